package dev.riffle.format;

import java.util.Arrays;
import java.util.List;

/**
 * Which bytes a take needs: the byte range of each requested row in each needed column, and the
 * sorted, de-duplicated, coalesced reads that cover them. Planning reads no data, so the counters
 * it predicts can be checked before any I/O.
 */
public final class TakePlan {
  final long[] rows;
  final List<String> fields;
  final int[] columns;

  /** For column c (position in {@link #columns}) and row i: slot = c * rows.length + i. */
  final int[] readOf;

  final long[] rangeOffset;
  final long[] readOffset;
  final long[] readLength;

  /** Ranges are not merged into reads larger than this, so one read buffer stays small. */
  public static final long MAX_COALESCED_BYTES = 16L << 20;

  TakePlan(
      long[] rows,
      List<String> fields,
      int[] columns,
      long[] rangeOffset,
      long[] rangeLength,
      long coalesceGap) {
    this.rows = rows;
    this.fields = List.copyOf(fields);
    this.columns = columns;
    this.rangeOffset = rangeOffset;
    int n = rangeOffset.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(rangeOffset[a], rangeOffset[b]));
    readOf = new int[n];
    long[] offsets = new long[n];
    long[] lengths = new long[n];
    int reads = 0;
    long curStart = -1;
    long curEnd = -1;
    for (int o = 0; o < n; o++) {
      int i = order[o];
      long s = rangeOffset[i];
      long e = s + rangeLength[i];
      if (reads > 0 && s <= curEnd + coalesceGap && e - curStart <= MAX_COALESCED_BYTES) {
        curEnd = Math.max(curEnd, e);
        lengths[reads - 1] = curEnd - curStart;
      } else {
        curStart = s;
        curEnd = e;
        offsets[reads] = s;
        lengths[reads] = e - s;
        reads++;
      }
      readOf[i] = reads - 1;
    }
    readOffset = Arrays.copyOf(offsets, reads);
    readLength = Arrays.copyOf(lengths, reads);
  }

  /** Number of read calls the plan issues. */
  public int reads() {
    return readOffset.length;
  }

  /** Total bytes the plan reads. */
  public long bytes() {
    long sum = 0;
    for (long l : readLength) {
      sum += l;
    }
    return sum;
  }

  /** Distinct 4 KiB sectors the reads cover. */
  public long sectors() {
    long sum = 0;
    for (int r = 0; r < readOffset.length; r++) {
      if (readLength[r] > 0) {
        sum +=
            (readOffset[r] + readLength[r] - 1) / FileLayout.SECTOR_BYTES
                - readOffset[r] / FileLayout.SECTOR_BYTES
                + 1;
      }
    }
    return sum;
  }

  /** Offset of read {@code r}. */
  public long readOffset(int r) {
    return readOffset[r];
  }

  /** Length of read {@code r}. */
  public long readLength(int r) {
    return readLength[r];
  }

  public int rowCount() {
    return rows.length;
  }
}
