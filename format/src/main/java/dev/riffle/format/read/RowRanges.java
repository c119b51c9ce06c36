package dev.riffle.format.read;

import java.util.Arrays;

/**
 * A set of rows as ascending, disjoint, non-touching half-open ranges {@code [start, end)}: the
 * rows a {@link PageFilter} cannot exclude ({@link FileReader#candidateRows}), or any rows a scan
 * should read ({@link FileReader#scan(java.util.List, int, RowRanges)}). Immutable.
 */
public final class RowRanges {
  private static final RowRanges NONE = new RowRanges(new long[0]);

  /** start, end, start, end, …: ascending, each range non-empty, none touching the next. */
  private final long[] bounds;

  private RowRanges(long[] bounds) {
    this.bounds = bounds;
  }

  /** No rows. */
  public static RowRanges none() {
    return NONE;
  }

  /** Rows {@code [start, end)}; none if {@code start == end}. */
  public static RowRanges of(long start, long end) {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("rows [" + start + ", " + end + ") are not a range");
    }
    return start == end ? NONE : new RowRanges(new long[] {start, end});
  }

  /** Rows {@code [0, rowCount)}. */
  public static RowRanges all(long rowCount) {
    return of(0, rowCount);
  }

  /** Number of ranges. */
  public int count() {
    return bounds.length / 2;
  }

  /** The first row of range {@code i}. */
  public long start(int i) {
    return bounds[2 * i];
  }

  /** The end (exclusive) of range {@code i}. */
  public long end(int i) {
    return bounds[2 * i + 1];
  }

  public boolean isEmpty() {
    return bounds.length == 0;
  }

  /** Rows in all ranges together. */
  public long rowCount() {
    long n = 0;
    for (int i = 0; i < bounds.length; i += 2) {
      n += bounds[i + 1] - bounds[i];
    }
    return n;
  }

  /** Whether {@code row} is in one of the ranges. */
  public boolean contains(long row) {
    int i = Arrays.binarySearch(bounds, row);
    // An exact hit on a start (even index) is inside; on an end (odd) outside. Otherwise the
    // insertion point is odd exactly when the row lies between a start and its end.
    return i >= 0 ? (i & 1) == 0 : ((-i - 1) & 1) == 1;
  }

  /** The rows in both. */
  public RowRanges intersect(RowRanges other) {
    Builder b = new Builder();
    int i = 0;
    int j = 0;
    while (i < count() && j < other.count()) {
      long s = Math.max(start(i), other.start(j));
      long e = Math.min(end(i), other.end(j));
      if (s < e) {
        b.add(s, e);
      }
      if (end(i) < other.end(j)) {
        i++;
      } else {
        j++;
      }
    }
    return b.build();
  }

  /** The rows in either. */
  public RowRanges union(RowRanges other) {
    Builder b = new Builder();
    int i = 0;
    int j = 0;
    while (i < count() || j < other.count()) {
      if (j == other.count() || (i < count() && start(i) <= other.start(j))) {
        b.add(start(i), end(i));
        i++;
      } else {
        b.add(other.start(j), other.end(j));
        j++;
      }
    }
    return b.build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowRanges r && Arrays.equals(bounds, r.bounds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bounds);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < count(); i++) {
      s.append(i == 0 ? "" : ", ").append('[').append(start(i)).append(", ").append(end(i));
      s.append(')');
    }
    return s.append(']').toString();
  }

  /** Collects ranges added in ascending order of start, merging overlapping and touching ones. */
  static final class Builder {
    private long[] b = new long[8];
    private int n;

    /** Adds {@code [start, end)}; {@code start} is at least the start of the range added last. */
    Builder add(long start, long end) {
      if (start >= end) {
        return this;
      }
      if (n > 0 && start <= b[n - 1]) {
        b[n - 1] = Math.max(b[n - 1], end);
        return this;
      }
      if (n + 2 > b.length) {
        b = Arrays.copyOf(b, b.length * 2);
      }
      b[n++] = start;
      b[n++] = end;
      return this;
    }

    RowRanges build() {
      return n == 0 ? NONE : new RowRanges(Arrays.copyOf(b, n));
    }
  }
}
