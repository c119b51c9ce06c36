package dev.riffle.stage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The blobs this process reads next, published in the cache for {@link
 * EvictionPolicy#FURTHEST_NEXT_USE} evictions by any process: a file {@code
 * plans/<pid>.<random>.plan} listing SHA-256s one a line, soonest first, replaced whole by {@link
 * #update} (written aside, then renamed over it, so a reader sees the old plan or the new, never a
 * mix) and deleted on {@link #close}. {@link NextUse#fromPlans} reads every live plan: a blob's
 * next use is its smallest line number over them, {@link NextUse#NEVER} if no plan lists it.
 *
 * <p>A plan of a dead process (a crash, a kill) counts for nothing and is deleted by the next
 * eviction, like a {@link CacheLease}. A plan that does not parse (a line that is not a SHA-256)
 * also counts for nothing: it only orders evictions, so ignoring it costs at most a worse choice,
 * while failing would let any one process stop every stage of a shared cache.
 *
 * <p>A plan pins nothing: hold a {@link CacheLease} (e.g. {@link CacheLease#pinView}) for blobs
 * that must stay. Pinned blobs are never evicted whatever the plans say, so a plan matters for
 * blobs a process reads later without pinning them now (a job queued behind the running one, a
 * snapshot staged ahead of its loader).
 */
public final class CachePlan implements Closeable {
  static final String SUFFIX = ".plan";
  private static final String TEMP_SUFFIX = ".plan-tmp";

  private final CacheLayout layout;
  private final Path file;
  private final AtomicBoolean closed = new AtomicBoolean();

  private CachePlan(CacheLayout layout, Path file) {
    this.layout = layout;
    this.file = file;
  }

  /**
   * Publishes a plan in the cache at {@code cacheDir} (created if missing).
   *
   * @param sha256s the blobs in the order they are read next (repeats are fine)
   * @throws IllegalArgumentException if one is not a lower-case hex SHA-256
   */
  public static CachePlan publish(Path cacheDir, List<String> sha256s) throws IOException {
    CacheLayout layout = new CacheLayout(cacheDir);
    CachePlan plan = new CachePlan(layout, OwnedFiles.newName(layout.plansDir(), SUFFIX));
    plan.update(sha256s);
    return plan;
  }

  /** Replaces the plan atomically: e.g. at each epoch start, or as the reads advance. */
  public synchronized void update(List<String> sha256s) throws IOException {
    if (closed.get()) {
      throw new IllegalStateException("plan " + file + " is closed");
    }
    StringBuilder text = new StringBuilder(sha256s.size() * 65);
    for (String sha : sha256s) {
      if (sha == null || !CacheLayout.isSha256(sha)) {
        throw new IllegalArgumentException("not a lower-case hex SHA-256: " + sha);
      }
      text.append(sha).append('\n');
    }
    Path temp = OwnedFiles.newName(layout.plansDir(), TEMP_SUFFIX);
    try {
      // No fsync: after a crash the writer is dead and its plan void anyway.
      Files.write(temp, text.toString().getBytes(StandardCharsets.US_ASCII));
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** The plan file (for tests and diagnostics). */
  public Path file() {
    return file;
  }

  /**
   * Every live plan of the cache merged: each listed blob's smallest position over them. Plans (and
   * half-written replacements) of dead processes are deleted; plans that do not parse are skipped.
   */
  static Map<String, Long> readLive(CacheLayout layout) throws IOException {
    Map<String, Long> first = new HashMap<>();
    for (Path p : OwnedFiles.live(layout.plansDir(), "*")) {
      if (!p.getFileName().toString().endsWith(SUFFIX)) {
        continue;
      }
      List<String> lines;
      try {
        lines = Files.readAllLines(p, StandardCharsets.US_ASCII);
      } catch (NoSuchFileException e) {
        continue; // closed meanwhile
      } catch (IOException e) {
        continue; // not ASCII: not a plan of ours
      }
      if (!lines.stream().allMatch(l -> l.isEmpty() || CacheLayout.isSha256(l))) {
        continue;
      }
      for (int i = 0; i < lines.size(); i++) {
        if (!lines.get(i).isEmpty()) {
          first.merge(lines.get(i), (long) i, Math::min);
        }
      }
    }
    return first;
  }

  /** Withdraws the plan; idempotent. */
  @Override
  public void close() throws IOException {
    if (closed.compareAndSet(false, true)) {
      synchronized (this) {
        Files.deleteIfExists(file);
      }
    }
  }
}
