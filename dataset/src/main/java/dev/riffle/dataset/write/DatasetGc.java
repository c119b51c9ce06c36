package dev.riffle.dataset.write;

import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes orphaned data files: files under {@code data/} that no published version references, left
 * by writers that failed or lost a publish race. Published versions are never touched. Do not run
 * it while a writer is writing to the same dataset: that writer's files are orphans until it
 * publishes.
 */
public final class DatasetGc {
  private DatasetGc() {}

  /**
   * Deletes (or with {@code dryRun} only lists) the orphans.
   *
   * @return their paths
   * @throws IOException if some manifest is unreadable (then deleting anything would be unsafe)
   */
  public static List<String> collect(Storage storage, boolean dryRun) throws IOException {
    List<String> problems = new ArrayList<>();
    List<String> orphans = DatasetValidator.orphans(storage, problems);
    if (!problems.isEmpty()) {
      throw new IOException(
          "not collecting garbage in " + storage.uri() + ": " + String.join("; ", problems));
    }
    if (!dryRun) {
      for (String path : orphans) {
        storage.delete(path);
      }
    }
    return orphans;
  }
}
