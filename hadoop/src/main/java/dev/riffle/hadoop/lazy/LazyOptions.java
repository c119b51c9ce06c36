package dev.riffle.hadoop.lazy;

/**
 * How {@link LazyStorage} reads.
 *
 * @param chunkBytes the cache's unit for large and sequential reads (scans, load's fetch windows):
 *     they are served from, and fetched as, aligned chunks of this size (default 1 MiB: one GET of
 *     that size costs about as much as a 4 KiB one on an object store, and the next pages come
 *     along)
 * @param gapBytes missing chunks at most this far apart are fetched as one range, the bytes between
 *     included (default 1 MiB; a request's latency on an object store is worth about that many
 *     bytes, far more than the few KiB worth skipping on a local disk)
 * @param maxCacheBytes the most the chunk and range files may take on disk; least recently used
 *     ones are deleted beyond it (default 16 GiB)
 * @param exactRanges small random reads (a take's records and sectors: under a quarter of a chunk,
 *     not continuing the previous read) are fetched as the exact bytes asked for and cached as
 *     ranges, instead of as whole chunks (default true: a random take over a large dataset then
 *     fetches about what it reads, not a chunk per row)
 * @param exactGapBytes exact ranges at most this far apart are fetched as one (default 64 KiB)
 */
public record LazyOptions(
    int chunkBytes, int gapBytes, long maxCacheBytes, boolean exactRanges, int exactGapBytes) {
  public static final int DEFAULT_CHUNK_BYTES = 1 << 20;
  public static final int DEFAULT_GAP_BYTES = 1 << 20;
  public static final long DEFAULT_MAX_CACHE_BYTES = 16L << 30;
  public static final int DEFAULT_EXACT_GAP_BYTES = 64 << 10;

  public LazyOptions {
    if (chunkBytes < 4096 || Integer.bitCount(chunkBytes) != 1) {
      throw new IllegalArgumentException(
          "chunk size must be a power of two of at least 4096 bytes: " + chunkBytes);
    }
    if (gapBytes < 0 || exactGapBytes < 0) {
      throw new IllegalArgumentException("negative gap: " + gapBytes + ", " + exactGapBytes);
    }
    if (maxCacheBytes < chunkBytes) {
      throw new IllegalArgumentException(
          "chunk cache limit " + maxCacheBytes + " is smaller than one chunk (" + chunkBytes + ")");
    }
  }

  public static LazyOptions defaults() {
    return new LazyOptions(
        DEFAULT_CHUNK_BYTES,
        DEFAULT_GAP_BYTES,
        DEFAULT_MAX_CACHE_BYTES,
        true,
        DEFAULT_EXACT_GAP_BYTES);
  }

  public LazyOptions withChunkBytes(int bytes) {
    return new LazyOptions(bytes, gapBytes, maxCacheBytes, exactRanges, exactGapBytes);
  }

  public LazyOptions withGapBytes(int bytes) {
    return new LazyOptions(chunkBytes, bytes, maxCacheBytes, exactRanges, exactGapBytes);
  }

  public LazyOptions withMaxCacheBytes(long bytes) {
    return new LazyOptions(chunkBytes, gapBytes, bytes, exactRanges, exactGapBytes);
  }

  /** Exact ranges for small random reads on (the default) or off (every read by chunks). */
  public LazyOptions withExactRanges(boolean on) {
    return new LazyOptions(chunkBytes, gapBytes, maxCacheBytes, on, exactGapBytes);
  }

  public LazyOptions withExactGapBytes(int bytes) {
    return new LazyOptions(chunkBytes, gapBytes, maxCacheBytes, exactRanges, bytes);
  }

  /** Reads shorter than this are exact-range candidates: a quarter of a chunk. */
  int exactBelowBytes() {
    return chunkBytes / 4;
  }
}
