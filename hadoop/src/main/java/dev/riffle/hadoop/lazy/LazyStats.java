package dev.riffle.hadoop.lazy;

import java.util.concurrent.atomic.LongAdder;

/** Counters of a {@link LazyStorage}, for tests, benchmarks and progress output. Thread-safe. */
public final class LazyStats {
  final LongAdder chunkHits = new LongAdder();
  final LongAdder chunkMisses = new LongAdder();
  final LongAdder rangeHits = new LongAdder();
  final LongAdder rangeMisses = new LongAdder();
  final LongAdder corruptChunks = new LongAdder();
  final LongAdder chunksEvicted = new LongAdder();
  final LongAdder remoteRequests = new LongAdder();
  final LongAdder vectoredReads = new LongAdder();
  final LongAdder fetchRounds = new LongAdder();
  final LongAdder remoteBytes = new LongAdder();
  final LongAdder verifiedBytes = new LongAdder();

  /** Chunk reads served from the local cache. */
  public long chunkHits() {
    return chunkHits.sum();
  }

  /** Chunk reads that had to go to the remote store. */
  public long chunkMisses() {
    return chunkMisses.sum();
  }

  /** Small random reads served from a cached exact range. */
  public long rangeHits() {
    return rangeHits.sum();
  }

  /** Small random reads fetched as exact ranges. */
  public long rangeMisses() {
    return rangeMisses.sum();
  }

  /** Reads served from the local cache (chunks and ranges). */
  public long cacheHits() {
    return chunkHits() + rangeHits();
  }

  /** Cached chunks whose CRC32C did not match: deleted and fetched again. */
  public long corruptChunks() {
    return corruptChunks.sum();
  }

  /** Chunk files deleted to stay under the cache limit. */
  public long chunksEvicted() {
    return chunksEvicted.sum();
  }

  /** Ranged reads sent to the remote store (each range of a vectored read counts once). */
  public long remoteRequests() {
    return remoteRequests.sum();
  }

  /** Calls of {@code readVectored} (several ranges at once). */
  public long vectoredReads() {
    return vectoredReads.sum();
  }

  /**
   * Reads that went to the remote store: one positional read or one {@code readVectored} call each,
   * however many ranges it carried. A take misses in at most one round per file.
   */
  public long fetchRounds() {
    return fetchRounds.sum();
  }

  /** Bytes fetched from the remote store. */
  public long remoteBytes() {
    return remoteBytes.sum();
  }

  /**
   * Bytes of cached chunks read back to check their CRC32C: each block of a chunk file is checked
   * the first time this process reads from it.
   */
  public long verifiedBytes() {
    return verifiedBytes.sum();
  }

  @Override
  public String toString() {
    return "hits="
        + chunkHits()
        + " misses="
        + chunkMisses()
        + " rangeHits="
        + rangeHits()
        + " rangeMisses="
        + rangeMisses()
        + " corrupt="
        + corruptChunks()
        + " evicted="
        + chunksEvicted()
        + " requests="
        + remoteRequests()
        + " vectored="
        + vectoredReads()
        + " rounds="
        + fetchRounds()
        + " bytes="
        + remoteBytes();
  }
}
