package dev.riffle.stage;

import dev.riffle.dataset.Manifest;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Blobs in use by this process, which {@link CacheEvictor} never removes: a file {@code
 * leases/<pid>.<random>.lease} listing their SHA-256s, deleted on {@link #close}. A lease of a dead
 * process (a crash, a kill) pins nothing and is deleted by the next eviction, so no timeout is
 * needed (liveness is by pid: see {@link OwnedFiles}).
 *
 * <p>Hold {@link #pinView} while a staged view is open as a dataset: eviction of its blobs would
 * otherwise invalidate the view under the reader (files already open stay readable, since the
 * kernel keeps an unlinked file until it is closed, but files opened later would be missing).
 */
public final class CacheLease implements Closeable {
  static final String SUFFIX = ".lease";

  private final Path file;
  private final Path view;
  private final AtomicBoolean closed = new AtomicBoolean();

  private CacheLease(Path file, Path view) {
    this.file = file;
    this.view = view;
  }

  /** Pins {@code sha256s}, present or still to be downloaded. */
  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  static CacheLease acquire(CacheLayout layout, Collection<String> sha256s) throws IOException {
    try (CacheLocks.Held lock = CacheLocks.lock(layout.evictLock())) {
      return write(layout, sha256s, null);
    }
  }

  /**
   * Pins the blobs of a complete staged view (a {@code snapshots/<id>/<version>} directory, e.g.
   * {@link StageReport#view()}) and marks them used now for LRU; empty if the view is not complete
   * (never staged, interrupted, or evicted: stage it again).
   */
  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  public static Optional<CacheLease> pinView(Path view) throws IOException {
    Path real = view.toRealPath();
    Path cache =
        CacheLayout.cacheOf(real)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        view + " is not a staged view (CACHE/snapshots/<id>/<version>)"));
    long version = Long.parseLong(real.getFileName().toString());
    CacheLayout layout = new CacheLayout(cache);
    sweepDead(layout);
    try (CacheLocks.Held lock = CacheLocks.lock(layout.evictLock())) {
      // Under the eviction lock: an evictor removes the marker before any blob, so a marker seen
      // here means every blob is still there, and the lease keeps them.
      if (!Files.isRegularFile(real.resolve(CacheLayout.COMPLETE))) {
        return Optional.empty();
      }
      Manifest m = CacheEvictor.viewManifest(real, version);
      if (m == null) {
        return Optional.empty();
      }
      List<String> shas = m.files().stream().map(Manifest.DataFile::sha256).distinct().toList();
      CacheLease lease = write(layout, shas, real);
      for (String sha : shas) {
        CacheEvictor.touch(layout.blob(sha));
      }
      return Optional.of(lease);
    }
  }

  private static CacheLease write(CacheLayout layout, Collection<String> sha256s, Path view)
      throws IOException {
    Path file = OwnedFiles.newName(layout.leasesDir(), SUFFIX);
    // No fsync: after a crash the writer is dead and the lease void anyway.
    Files.write(file, String.join("\n", sha256s).getBytes(StandardCharsets.US_ASCII));
    return new CacheLease(file, view);
  }

  /**
   * Deletes the leases of processes that are gone (a kill, a crash), so that they neither linger
   * nor come back to life if the pid is reused. Run by every stage and every pin.
   */
  public static void sweepDead(CacheLayout layout) throws IOException {
    OwnedFiles.live(layout.leasesDir(), "*" + SUFFIX);
  }

  /**
   * The blobs pinned by live processes; leases of dead ones are deleted. Callers hold the eviction
   * lock.
   */
  static Set<String> pinned(CacheLayout layout) throws IOException {
    Set<String> pinned = new HashSet<>();
    for (Path p : OwnedFiles.live(layout.leasesDir(), "*" + SUFFIX)) {
      try {
        for (String line : Files.readAllLines(p, StandardCharsets.US_ASCII)) {
          if (!line.isBlank()) {
            pinned.add(line.trim());
          }
        }
      } catch (NoSuchFileException e) {
        // Released meanwhile.
      }
    }
    return pinned;
  }

  /** The pinned view, or null for a lease taken by a stage. */
  public Path view() {
    return view;
  }

  /** Unpins; idempotent. */
  @Override
  public void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      Files.deleteIfExists(file);
    }
  }
}
