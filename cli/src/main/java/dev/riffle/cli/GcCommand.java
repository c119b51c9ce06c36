package dev.riffle.cli;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetGc;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle gc URI [--dry-run]}: deletes orphaned data files, those under {@code data/} that no
 * published version references. Nothing tells an orphan from a file a running writer has not
 * published yet, hence the warning.
 */
@Command(
    name = "gc",
    mixinStandardHelpOptions = true,
    description = {
      "Delete the data files of a dataset that no version references (left by writers that"
          + " failed or lost a publish race), or with --dry-run only list them. Published"
          + " versions are never touched.",
      "Do NOT run it while a writer is writing to the dataset: the files that writer has not"
          + " published yet look exactly like orphans and would be deleted."
    })
public final class GcCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "URI", description = "A dataset.")
  String location;

  @Option(names = "--dry-run", description = "List the orphans without deleting them.")
  boolean dryRun;

  @Override
  public Integer call() throws IOException {
    Locations.Location loc = Locations.parse(location);
    Locations.requireNoVersion(loc, "gc works on all versions at once");
    PrintWriter out = spec.commandLine().getOut();
    try (Storage storage = Locations.openDataset(loc, "gc")) {
      if (!dryRun) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(
            "riffle gc: warning: this must not run while a writer is writing to "
                + loc.uri()
                + " (its unpublished files would be deleted as orphans)");
        err.flush();
      }
      List<String> orphans = DatasetGc.collect(storage, dryRun);
      for (String path : orphans) {
        out.println((dryRun ? "would delete " : "deleted ") + path);
      }
      out.println(
          orphans.isEmpty()
              ? "no orphaned data files"
              : ValidateCommand.count(orphans.size(), "orphaned data file")
                  + (dryRun ? " (dry run: nothing deleted)" : " deleted"));
      out.flush();
    }
    return 0;
  }
}
