package dev.riffle.stage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When a blob is next read, for {@link EvictionPolicy#FURTHEST_NEXT_USE}: the position in the
 * coming reads (smaller is sooner), or {@link #NEVER}.
 *
 * <p>Loaders publish their coming reads in the cache as {@link CachePlan}s (the loader module's
 * {@code FileOrder} walks an epoch plan to the data files in the order it first reads them; the
 * manifest's {@code files().get(i).sha256()} names the blob), and {@link #fromPlans} reads them
 * all, so a stage in any process evicts by every live loader's plan. {@link #fromOrder} is the same
 * for one caller's list, in process.
 */
@FunctionalInterface
public interface NextUse {
  /** Not needed by the coming reads: evicted before any blob that is. */
  long NEVER = Long.MAX_VALUE;

  /** The position at which blob {@code sha256} is next read, or {@link #NEVER}. */
  long of(String sha256);

  /**
   * This function frozen for one eviction pass, which {@link CacheEvictor} takes once per pass
   * under the cache's eviction lock: an implementation that reads shared state (as {@link
   * #fromPlans} does) reads it here, once. Others return themselves.
   */
  default NextUse snapshot() throws IOException {
    return this;
  }

  /** Nothing is planned: every blob is {@link #NEVER}, so the policy falls back to LRU order. */
  NextUse NONE = sha256 -> NEVER;

  /**
   * The next use of each blob is the index of its first appearance in {@code sha256s} (the blobs in
   * the order the coming reads touch them; repeats are fine).
   */
  static NextUse fromOrder(List<String> sha256s) {
    Map<String, Long> first = new HashMap<>();
    for (int i = 0; i < sha256s.size(); i++) {
      first.putIfAbsent(sha256s.get(i), (long) i);
    }
    return sha256 -> first.getOrDefault(sha256, NEVER);
  }

  /**
   * The live {@link CachePlan}s of the cache at {@code cacheDir}: a blob's next use is its smallest
   * position over all of them, {@link #NEVER} if none lists it. Read afresh by each eviction pass
   * ({@link #snapshot}); {@link #of} outside a pass reads every plan per call.
   */
  static NextUse fromPlans(Path cacheDir) {
    return new NextUse() {
      @Override
      public long of(String sha256) {
        try {
          return snapshot().of(sha256);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public NextUse snapshot() throws IOException {
        Map<String, Long> first = CachePlan.readLive(new CacheLayout(cacheDir));
        return sha256 -> first.getOrDefault(sha256, NEVER);
      }
    };
  }
}
