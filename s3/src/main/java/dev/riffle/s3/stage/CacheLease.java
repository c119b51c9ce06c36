package dev.riffle.s3.stage;

import dev.riffle.format.dataset.Manifest;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Blobs in use by this process, which {@link CacheEvictor} never removes: a file {@code
 * leases/<pid>.<random>.lease} listing their SHA-256s, deleted on {@link #close}. A lease of a dead
 * process (a crash, a kill) pins nothing and is deleted by the next eviction, so no timeout is
 * needed. Liveness is checked by pid, so processes sharing a cache must share a pid namespace (one
 * host, not separate containers); a reused pid only keeps blobs longer than needed.
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
  public static Optional<CacheLease> pinView(Path view) throws IOException {
    Path real = view.toRealPath();
    long version;
    try {
      version = Long.parseLong(real.getFileName().toString());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(view + " is not a staged view (snapshots/<id>/<version>)");
    }
    CacheLayout layout = new CacheLayout(real.getParent().getParent().getParent());
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
    Path file =
        layout
            .leasesDir()
            .resolve(
                ProcessHandle.current().pid()
                    + "."
                    + Long.toHexString(ThreadLocalRandom.current().nextLong())
                    + SUFFIX);
    // No fsync: after a crash the writer is dead and the lease void anyway.
    Files.write(file, String.join("\n", sha256s).getBytes(StandardCharsets.US_ASCII));
    return new CacheLease(file, view);
  }

  /**
   * The blobs pinned by live processes; leases of dead ones are deleted. Callers hold the eviction
   * lock.
   */
  static Set<String> pinned(CacheLayout layout) throws IOException {
    Set<String> pinned = new HashSet<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(layout.leasesDir(), "*" + SUFFIX)) {
      for (Path p : ds) {
        long pid = ownerOf(p);
        boolean alive = pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        if (!alive) {
          Files.deleteIfExists(p);
          continue;
        }
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
    }
    return pinned;
  }

  private static long ownerOf(Path lease) {
    String name = lease.getFileName().toString();
    int dot = name.indexOf('.');
    try {
      return dot > 0 ? Long.parseLong(name.substring(0, dot)) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
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
