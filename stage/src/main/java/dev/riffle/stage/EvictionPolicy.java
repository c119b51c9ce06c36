package dev.riffle.stage;

/** Which blobs {@link CacheEvictor} removes first when the cache must shrink. */
public enum EvictionPolicy {
  /** Least recently used first: the oldest last use (a blob's mtime, set on stage and on pin). */
  LRU,

  /**
   * Furthest next use first (Belady's choice), from a {@link NextUse}: usually {@link
   * NextUse#fromPlans}, the {@link CachePlan}s loaders publish from their epoch plans (a loader
   * knows which files it reads when). Blobs no plan needs go first, then those needed latest; ties
   * are broken by {@link #LRU}.
   */
  FURTHEST_NEXT_USE
}
