package dev.riffle.stage;

import dev.riffle.dataset.storage.RetryPolicy;

/**
 * How {@link SnapshotStager} downloads.
 *
 * @param partBytes bytes per ranged read (default 8 MiB, the low end of the 8–16 MiB that object
 *     stores serve best; smaller parts mean more requests, larger ones more memory per thread)
 * @param threads parallel ranged reads in flight (default 16); a stage holds up to {@code 2 ×
 *     threads} part buffers on the heap (one per read, and as many lent to the hashers by parts
 *     that landed early), plus one aligned direct buffer per thread with {@code directWrites}
 * @param retry how a failed part (open and read together) is retried: {@link RetryPolicy}, the same
 *     policy the storage's own calls use (8 attempts, at most 15 s of retrying per part, no command
 *     deadline by default)
 * @param freeSpaceFloorBytes a download must leave at least this much free on the cache's file
 *     system (default 0); it fails fast, before any byte is fetched, if it would not (with a cache
 *     limit, blobs are evicted to keep it first)
 * @param cacheLimit the most the cache's blobs may take, and how to evict; null (the default) for
 *     no limit
 * @param directWrites write blobs with O_DIRECT where the file system allows it (default true): the
 *     kernel then copies nothing into the page cache, which on a CPU-bound node costs more than the
 *     hashing (measured: benchmarks/RESULTS.md, staging); staged files are then read from disk, not
 *     memory, the first time. Falls back to the page cache where O_DIRECT is refused (tmpfs)
 * @param verify hash every blob of the version again, even when its view is complete, and fetch
 *     again what no longer matches the manifest (default false: a complete view is checked for
 *     missing, relinked or resized files only, which costs no reads)
 */
public record StageOptions(
    int partBytes,
    int threads,
    RetryPolicy retry,
    long freeSpaceFloorBytes,
    CacheLimit cacheLimit,
    boolean directWrites,
    boolean verify) {

  public static final int DEFAULT_PART_BYTES = 8 << 20;
  public static final int DEFAULT_THREADS = 16;

  public StageOptions {
    if (partBytes < 4096) {
      throw new IllegalArgumentException("part size must be at least 4096 bytes: " + partBytes);
    }
    if (threads < 1 || threads > 1024) {
      throw new IllegalArgumentException("threads must be in [1, 1024]: " + threads);
    }
    if (retry == null) {
      throw new IllegalArgumentException("no retry policy");
    }
    if (freeSpaceFloorBytes < 0) {
      throw new IllegalArgumentException("negative free-space floor");
    }
  }

  /** The defaults above. */
  public static StageOptions defaults() {
    return new StageOptions(
        DEFAULT_PART_BYTES, DEFAULT_THREADS, RetryPolicy.defaults(), 0, null, true, false);
  }

  public StageOptions withPartBytes(int bytes) {
    return new StageOptions(
        bytes, threads, retry, freeSpaceFloorBytes, cacheLimit, directWrites, verify);
  }

  public StageOptions withThreads(int n) {
    return new StageOptions(
        partBytes, n, retry, freeSpaceFloorBytes, cacheLimit, directWrites, verify);
  }

  public StageOptions withRetry(RetryPolicy policy) {
    return new StageOptions(
        partBytes, threads, policy, freeSpaceFloorBytes, cacheLimit, directWrites, verify);
  }

  /** Retries: {@code attempts} tries in all, backoff from {@code baseMillis} up to {@code cap}. */
  public StageOptions withRetries(int attempts, long baseMillis, long capMillis) {
    return withRetry(retry.withAttempts(attempts).withBackoff(baseMillis, capMillis));
  }

  public StageOptions withFreeSpaceFloor(long bytes) {
    return new StageOptions(partBytes, threads, retry, bytes, cacheLimit, directWrites, verify);
  }

  /** Keeps the cache under {@code limit} (null: no limit), evicting before each download. */
  public StageOptions withCacheLimit(CacheLimit limit) {
    return new StageOptions(
        partBytes, threads, retry, freeSpaceFloorBytes, limit, directWrites, verify);
  }

  /** O_DIRECT blob writes on (the default) or off. */
  public StageOptions withDirectWrites(boolean on) {
    return new StageOptions(partBytes, threads, retry, freeSpaceFloorBytes, cacheLimit, on, verify);
  }

  /** Re-hash every blob, complete view or not, and fetch again what differs. */
  public StageOptions withVerify(boolean on) {
    return new StageOptions(
        partBytes, threads, retry, freeSpaceFloorBytes, cacheLimit, directWrites, on);
  }
}
