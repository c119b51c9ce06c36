package dev.riffle.convert.h5ad;

/**
 * The most a conversion held in memory at once, counted by the converter rather than measured on
 * the heap, so that tests can check that memory stays bounded whatever the size of the input.
 */
public final class BufferMeter {
  private long peakBatchRows;
  private long peakBatchBytes;
  private long peakTransposeBytes;

  /** Most rows in one batch. */
  public synchronized long peakBatchRows() {
    return peakBatchRows;
  }

  /** Most bytes of matrix entries (indices and values) in one batch. */
  public synchronized long peakBatchBytes() {
    return peakBatchBytes;
  }

  /** Most bytes a CSC transpose held in memory (its loaded bucket and write buffers). */
  public synchronized long peakTransposeBytes() {
    return peakTransposeBytes;
  }

  synchronized void batch(long rows, long bytes) {
    peakBatchRows = Math.max(peakBatchRows, rows);
    peakBatchBytes = Math.max(peakBatchBytes, bytes);
  }

  synchronized void transpose(long bytes) {
    peakTransposeBytes = Math.max(peakTransposeBytes, bytes);
  }
}
