package dev.riffle.stage;

import java.nio.file.Path;

/**
 * A size limit for a staging cache: the blobs ({@code blobs/}, counted in allocated blocks) may
 * take at most {@code maxBytes}; staging evicts blobs by {@code policy} to make room before it
 * downloads.
 *
 * @param maxBytes the most the blobs may take; it must be at least {@link #MIN_LARGEST_BLOBS} times
 *     the largest blob of any snapshot staged under it, so that a snapshot's blobs and the next
 *     one's can coexist without thrashing (staging fails fast otherwise)
 * @param policy which blobs go first
 * @param nextUse the plan for {@link EvictionPolicy#FURTHEST_NEXT_USE} (e.g. {@link
 *     NextUse#fromPlans}; {@link NextUse#NONE} for LRU)
 */
public record CacheLimit(long maxBytes, EvictionPolicy policy, NextUse nextUse) {
  /** A limit must hold this many copies of the largest blob. */
  public static final int MIN_LARGEST_BLOBS = 4;

  public CacheLimit {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("cache limit must be positive: " + maxBytes);
    }
    if (policy == null) {
      throw new IllegalArgumentException("no eviction policy");
    }
    if (nextUse == null) {
      nextUse = NextUse.NONE;
    }
  }

  /** Least recently used blobs go first. */
  public static CacheLimit lru(long maxBytes) {
    return new CacheLimit(maxBytes, EvictionPolicy.LRU, NextUse.NONE);
  }

  /** Blobs needed furthest in the future (or never) go first. */
  public static CacheLimit furthestNextUse(long maxBytes, NextUse nextUse) {
    return new CacheLimit(maxBytes, EvictionPolicy.FURTHEST_NEXT_USE, nextUse);
  }

  /**
   * Blobs needed furthest in the future (or never) by the live {@link CachePlan}s of the cache at
   * {@code cacheDir} go first.
   */
  public static CacheLimit furthestByPlans(long maxBytes, Path cacheDir) {
    return furthestNextUse(maxBytes, NextUse.fromPlans(cacheDir));
  }
}
