package dev.riffle.hadoop.lazy;

/**
 * How {@link LazyStorage} reads.
 *
 * @param chunkBytes the cache's unit: reads are served from, and fetched as, aligned chunks of this
 *     size (default 1 MiB: one GET of that size costs about as much as a 4 KiB one on an object
 *     store, and neighbouring rows come along)
 * @param gapBytes missing chunks at most this far apart are fetched as one range, the bytes between
 *     included (default 1 MiB; a request's latency on an object store is worth about that many
 *     bytes, far more than the few KiB worth skipping on a local disk)
 * @param maxCacheBytes the most the chunk files may take on disk; least recently used chunks are
 *     deleted beyond it (default 16 GiB)
 */
public record LazyOptions(int chunkBytes, int gapBytes, long maxCacheBytes) {
  public static final int DEFAULT_CHUNK_BYTES = 1 << 20;
  public static final int DEFAULT_GAP_BYTES = 1 << 20;
  public static final long DEFAULT_MAX_CACHE_BYTES = 16L << 30;

  public LazyOptions {
    if (chunkBytes < 4096 || Integer.bitCount(chunkBytes) != 1) {
      throw new IllegalArgumentException(
          "chunk size must be a power of two of at least 4096 bytes: " + chunkBytes);
    }
    if (gapBytes < 0) {
      throw new IllegalArgumentException("negative gap: " + gapBytes);
    }
    if (maxCacheBytes < chunkBytes) {
      throw new IllegalArgumentException(
          "chunk cache limit " + maxCacheBytes + " is smaller than one chunk (" + chunkBytes + ")");
    }
  }

  public static LazyOptions defaults() {
    return new LazyOptions(DEFAULT_CHUNK_BYTES, DEFAULT_GAP_BYTES, DEFAULT_MAX_CACHE_BYTES);
  }

  public LazyOptions withChunkBytes(int bytes) {
    return new LazyOptions(bytes, gapBytes, maxCacheBytes);
  }

  public LazyOptions withGapBytes(int bytes) {
    return new LazyOptions(chunkBytes, bytes, maxCacheBytes);
  }

  public LazyOptions withMaxCacheBytes(long bytes) {
    return new LazyOptions(chunkBytes, gapBytes, bytes);
  }
}
