package dev.riffle.stage;

/**
 * How {@link SnapshotStager} downloads.
 *
 * @param partBytes bytes per ranged read (default 8 MiB, the low end of the 8–16 MiB that object
 *     stores serve best; smaller parts mean more requests, larger ones more memory per thread)
 * @param threads parallel ranged reads in flight (default 16); a stage holds up to {@code 2 ×
 *     threads} part buffers on the heap (one per read, and as many lent to the hashers by parts
 *     that landed early), plus one aligned direct buffer per thread with {@code directWrites}
 * @param maxAttempts tries per part or open before giving up on transient errors (default 8)
 * @param backoffBaseMillis first retry's backoff ceiling, doubled per attempt (default 200)
 * @param backoffCapMillis largest backoff ceiling (default 10 s)
 * @param freeSpaceFloorBytes a download must leave at least this much free on the cache's file
 *     system (default 0); it fails fast, before any byte is fetched, if it would not (with a cache
 *     limit, blobs are evicted to keep it first)
 * @param cacheLimit the most the cache's blobs may take, and how to evict; null (the default) for
 *     no limit
 * @param directWrites write blobs with O_DIRECT where the file system allows it (default true): the
 *     kernel then copies nothing into the page cache, which on a CPU-bound node costs more than the
 *     hashing (measured: benchmarks/RESULTS.md, staging); staged files are then read from disk, not
 *     memory, the first time. Falls back to the page cache where O_DIRECT is refused (tmpfs)
 */
public record StageOptions(
    int partBytes,
    int threads,
    int maxAttempts,
    long backoffBaseMillis,
    long backoffCapMillis,
    long freeSpaceFloorBytes,
    CacheLimit cacheLimit,
    boolean directWrites) {

  public static final int DEFAULT_PART_BYTES = 8 << 20;
  public static final int DEFAULT_THREADS = 16;

  public StageOptions {
    if (partBytes < 4096) {
      throw new IllegalArgumentException("part size must be at least 4096 bytes: " + partBytes);
    }
    if (threads < 1 || threads > 1024) {
      throw new IllegalArgumentException("threads must be in [1, 1024]: " + threads);
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
    if (backoffBaseMillis < 0 || backoffCapMillis < 0 || freeSpaceFloorBytes < 0) {
      throw new IllegalArgumentException("negative backoff or free-space floor");
    }
  }

  /** The defaults above. */
  public static StageOptions defaults() {
    return new StageOptions(DEFAULT_PART_BYTES, DEFAULT_THREADS, 8, 200, 10_000, 0, null, true);
  }

  public StageOptions withPartBytes(int bytes) {
    return new StageOptions(
        bytes,
        threads,
        maxAttempts,
        backoffBaseMillis,
        backoffCapMillis,
        freeSpaceFloorBytes,
        cacheLimit,
        directWrites);
  }

  public StageOptions withThreads(int n) {
    return new StageOptions(
        partBytes,
        n,
        maxAttempts,
        backoffBaseMillis,
        backoffCapMillis,
        freeSpaceFloorBytes,
        cacheLimit,
        directWrites);
  }

  /** Retries: {@code attempts} tries in all, backoff from {@code baseMillis} up to {@code cap}. */
  public StageOptions withRetries(int attempts, long baseMillis, long capMillis) {
    return new StageOptions(
        partBytes,
        threads,
        attempts,
        baseMillis,
        capMillis,
        freeSpaceFloorBytes,
        cacheLimit,
        directWrites);
  }

  public StageOptions withFreeSpaceFloor(long bytes) {
    return new StageOptions(
        partBytes,
        threads,
        maxAttempts,
        backoffBaseMillis,
        backoffCapMillis,
        bytes,
        cacheLimit,
        directWrites);
  }

  /** Keeps the cache under {@code limit} (null: no limit), evicting before each download. */
  public StageOptions withCacheLimit(CacheLimit limit) {
    return new StageOptions(
        partBytes,
        threads,
        maxAttempts,
        backoffBaseMillis,
        backoffCapMillis,
        freeSpaceFloorBytes,
        limit,
        directWrites);
  }

  /** O_DIRECT blob writes on (the default) or off. */
  public StageOptions withDirectWrites(boolean on) {
    return new StageOptions(
        partBytes,
        threads,
        maxAttempts,
        backoffBaseMillis,
        backoffCapMillis,
        freeSpaceFloorBytes,
        cacheLimit,
        on);
  }
}
