package dev.riffle.loader.pipeline;

import dev.riffle.loader.diversity.BatchDiversity;
import java.util.BitSet;

/**
 * What a loader delivered in one epoch (or the part of it since a resume): throughput, reads, stall
 * time, realised diversity and exactly-once coverage. Updated by the consumer thread only; read it
 * from that thread or after the loader is done.
 */
public final class LoaderMetrics {
  private final long epoch;
  private final BatchDiversity diversity;
  private final BitSet seen = new BitSet();
  private final long expectedRows;
  private final boolean fromStart;
  long batches;
  long rows;
  long paddingRows;
  long duplicates;
  long bytesRead;
  long reads;
  long bytesDelivered;
  long stallNanos;
  long startNanos;
  long endNanos;

  LoaderMetrics(long epoch, double[] globalLabels, long expectedRows, boolean fromStart) {
    this.epoch = epoch;
    this.diversity = new BatchDiversity(globalLabels);
    this.expectedRows = expectedRows;
    this.fromStart = fromStart;
  }

  void cover(long position, boolean padding) {
    if (padding) {
      paddingRows++;
    } else if (seen.get((int) position)) {
      duplicates++;
    } else {
      seen.set((int) position);
    }
  }

  public long epoch() {
    return epoch;
  }

  /** Batches handed out. */
  public long batches() {
    return batches;
  }

  /** Rows handed out, padding included. */
  public long rows() {
    return rows;
  }

  /** Rows that were padding (repeats that fill the last batch). */
  public long paddingRows() {
    return paddingRows;
  }

  /** Bytes the dataset read (all columns' reads, as the format counts them) during the epoch. */
  public long bytesRead() {
    return bytesRead;
  }

  /** Read calls the dataset made during the epoch. */
  public long reads() {
    return reads;
  }

  /**
   * Arrow buffer bytes of the batches handed out (for batches read in place, {@link
   * Loader#next(Loader.RowsReader)}, their rows' share of the fetch's bytes).
   */
  public long bytesDelivered() {
    return bytesDelivered;
  }

  /** Time {@code next()} spent waiting for a fetch. */
  public long stallNanos() {
    return stallNanos;
  }

  /** From the first {@code next()} to the last batch of the epoch. */
  public long wallNanos() {
    return Math.max(0, endNanos - startNanos);
  }

  public double samplesPerSecond() {
    return wallNanos() == 0 ? 0 : rows * 1e9 / wallNanos();
  }

  public double bytesPerSecond() {
    return wallNanos() == 0 ? 0 : bytesRead * 1e9 / wallNanos();
  }

  /** Realised diversity of the batches handed out. */
  public BatchDiversity diversity() {
    return diversity;
  }

  /** Distinct view rows handed out (padding aside). */
  public long coveredRows() {
    return seen.cardinality();
  }

  /** Rows of the view a rank repeated, padding aside (0 for a correct plan). */
  public long duplicates() {
    return duplicates;
  }

  /**
   * Whether every row this rank owns in the epoch came exactly once: the epoch ran from its first
   * batch to its last, nothing repeated, and the rows seen are the rank's share of the plan.
   */
  public boolean coverageExact() {
    return fromStart && duplicates == 0 && coveredRows() == expectedRows;
  }

  /** The positions seen (a copy), to check coverage over the union of ranks. */
  public BitSet seen() {
    return (BitSet) seen.clone();
  }
}
