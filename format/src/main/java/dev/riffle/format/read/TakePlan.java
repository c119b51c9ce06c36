package dev.riffle.format.read;

import dev.riffle.format.FileLayout;
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

  /**
   * The slots each read serves, grouped by read: read r serves {@code readSlots[readSlotStart[r]]}
   * up to (excluding) {@code readSlots[readSlotStart[r + 1]]}, in increasing byte offset.
   */
  final int[] readSlots;

  final int[] readSlotStart;

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
    int[] order = sortedByOffset(rangeOffset);
    readOf = new int[n];
    long[] offsets = new long[n];
    long[] lengths = new long[n];
    int[] firstSlot = new int[n + 1];
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
        firstSlot[reads] = o;
        reads++;
      }
      readOf[i] = reads - 1;
    }
    firstSlot[reads] = n;
    readSlots = order;
    readSlotStart = reads == n ? firstSlot : Arrays.copyOf(firstSlot, reads + 1);
    readOffset = Arrays.copyOf(offsets, reads);
    readLength = Arrays.copyOf(lengths, reads);
  }

  /**
   * Slot indices in increasing order of their byte offset (ties in slot order). Offsets below 2^(63
   * - bits(n)) are sorted as packed primitive keys; larger ones fall back to a boxed sort.
   */
  static int[] sortedByOffset(long[] offset) {
    int n = offset.length;
    int[] order = new int[n];
    if (n <= 1) {
      return order;
    }
    int bits = 32 - Integer.numberOfLeadingZeros(n - 1);
    long max = 0;
    boolean sorted = true;
    for (int i = 0; i < n; i++) {
      max = Math.max(max, offset[i]);
      if (i > 0 && offset[i] < offset[i - 1]) {
        sorted = false;
      }
    }
    if (sorted) {
      Arrays.setAll(order, i -> i);
      return order;
    }
    if (max < (1L << (63 - bits))) {
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        keys[i] = (offset[i] << bits) | i;
      }
      Arrays.sort(keys);
      long mask = (1L << bits) - 1;
      for (int i = 0; i < n; i++) {
        order[i] = (int) (keys[i] & mask);
      }
      return order;
    }
    Integer[] boxed = new Integer[n];
    for (int i = 0; i < n; i++) {
      boxed[i] = i;
    }
    Arrays.sort(boxed, (a, b) -> Long.compare(offset[a], offset[b]));
    for (int i = 0; i < n; i++) {
      order[i] = boxed[i];
    }
    return order;
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

  /** Bytes of a buffer holding every read at a 4 KiB-aligned position. */
  long alignedBytes() {
    long sum = 0;
    for (long l : readLength) {
      sum += (l + FileLayout.SECTOR_BYTES - 1) & -FileLayout.SECTOR_BYTES;
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
