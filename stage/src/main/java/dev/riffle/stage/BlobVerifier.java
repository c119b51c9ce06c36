package dev.riffle.stage;

import dev.riffle.dataset.Manifest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code stage --verify}: hashes every blob of a staged version (and every view file that is a copy
 * rather than a link to its blob) against the manifest's SHA-256, on as many threads as the stage
 * and the CPUs allow. Blobs are immutable by contract, but a disk can rot and root can write
 * through a read-only link; this is how such damage is found before it becomes training data.
 */
final class BlobVerifier {
  private BlobVerifier() {}

  /**
   * Hashes the blobs of {@code m}; sound ones are added to {@code checked.verified()}, damaged ones
   * to {@code checked.bad()}.
   *
   * @return what is wrong, one line each (empty if all is sound)
   */
  static List<String> verify(
      CacheLayout layout,
      Path view,
      Manifest m,
      int threads,
      StageListener listener,
      SnapshotStager.Checked checked)
      throws IOException {
    Map<String, List<Manifest.DataFile>> bySha = new LinkedHashMap<>();
    for (Manifest.DataFile f : m.files()) {
      bySha.computeIfAbsent(f.sha256(), k -> new ArrayList<>()).add(f);
    }
    int n = Math.max(1, Math.min(threads, Runtime.getRuntime().availableProcessors()));
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, bySha.size()));
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    AtomicLong done = new AtomicLong();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (Map.Entry<String, List<Manifest.DataFile>> e : bySha.entrySet()) {
        futures.add(
            pool.submit(
                () -> {
                  check(layout, view, e.getKey(), e.getValue(), checked, problems);
                  listener.progressed(done.addAndGet(e.getValue().get(0).byteLength()));
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          throw c instanceof IOException io ? io : new IOException(c.toString(), c);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while verifying " + view);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return problems;
  }

  private static void check(
      CacheLayout layout,
      Path view,
      String sha,
      List<Manifest.DataFile> files,
      SnapshotStager.Checked checked,
      List<String> problems)
      throws IOException {
    Path blob = layout.blob(sha);
    Manifest.DataFile first = files.get(0);
    Set<String> bad = checked.bad();
    if (!Files.exists(blob)) {
      bad.add(sha);
      problems.add(view.resolve(first.path()) + ": its blob " + sha + " is gone from the cache");
      return;
    }
    checked.hashed().add(sha);
    String actual =
        Files.size(blob) == first.byteLength() ? CacheLayout.sha256Of(blob) : "(wrong length)";
    if (!actual.equals(sha)) {
      bad.add(sha);
      problems.add(
          blob
              + " ("
              + view.resolve(first.path())
              + "): SHA-256 is "
              + actual
              + " but the manifest says "
              + sha
              + ": the cached copy was damaged (bit rot, or a write through the view)");
      return;
    }
    for (Manifest.DataFile f : files) {
      Path target = view.resolve(f.path());
      // A view file that is a copy (no hard links there) has bytes of its own to check.
      if (Files.exists(target)
          && !Files.isSameFile(target, blob)
          && !sha.equals(CacheLayout.sha256Of(target))) {
        bad.add(sha);
        problems.add(target + ": differs from its blob " + sha + " (a copy that was damaged)");
        return;
      }
    }
    checked.verified().add(sha);
  }
}
