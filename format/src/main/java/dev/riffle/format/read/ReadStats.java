package dev.riffle.format.read;

import dev.riffle.format.FileLayout;
import java.util.concurrent.atomic.LongAdder;

/**
 * Machine-independent counters of a reader (FORMAT-NOTES "Counters every read path reports"): read
 * calls, bytes, distinct 4 KiB sectors covered, dependent read rounds, and top-level values
 * decoded. Thread-safe.
 */
public final class ReadStats {
  private final LongAdder reads = new LongAdder();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder sectors = new LongAdder();
  private final LongAdder rounds = new LongAdder();
  private final LongAdder valuesDecoded = new LongAdder();

  /** Records one read call of {@code length} bytes at {@code offset}. */
  void read(long offset, long length) {
    reads.increment();
    bytesRead.add(length);
    if (length > 0) {
      long first = offset / FileLayout.SECTOR_BYTES;
      long last = (offset + length - 1) / FileLayout.SECTOR_BYTES;
      sectors.add(last - first + 1);
    }
  }

  void round() {
    rounds.increment();
  }

  void decoded(long values) {
    valuesDecoded.add(values);
  }

  public long reads() {
    return reads.sum();
  }

  public long bytesRead() {
    return bytesRead.sum();
  }

  public long sectors() {
    return sectors.sum();
  }

  public long rounds() {
    return rounds.sum();
  }

  public long valuesDecoded() {
    return valuesDecoded.sum();
  }

  /** Sets every counter to zero, e.g. after open so that only a take is counted. */
  public void reset() {
    reads.reset();
    bytesRead.reset();
    sectors.reset();
    rounds.reset();
    valuesDecoded.reset();
  }

  @Override
  public String toString() {
    return "reads="
        + reads()
        + " bytesRead="
        + bytesRead()
        + " sectors="
        + sectors()
        + " rounds="
        + rounds()
        + " valuesDecoded="
        + valuesDecoded();
  }
}
