package dev.riffle.format.encoding;

import java.util.Arrays;

/** A growable list of primitive longs (offsets, first rows) without boxing. */
public final class LongList {
  private long[] values = new long[64];
  private int size;

  public void add(long v) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = v;
  }

  public int size() {
    return size;
  }

  public long get(int i) {
    return values[i];
  }

  /** The backing array; only {@code [0, size())} is meaningful. */
  public long[] array() {
    return values;
  }
}
