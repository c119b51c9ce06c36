package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import java.util.Arrays;

/**
 * The rows of one page as the writer buffers them before choosing a layout: a validity bit per row
 * and, for valid rows only, the encoded record bytes back to back.
 */
public final class PageRows {
  private final ByteSink data = new ByteSink(64 * 1024);
  private int[] ends = new int[1024];
  private long[] validity = new long[16];
  private int rowCount;
  private int validCount;
  private int maxRecordBytes;

  public void addNull() {
    grow();
    rowCount++;
  }

  /** Starts a valid row; encode its record into the returned sink, then call {@link #endValid}. */
  public ByteSink beginValid() {
    grow();
    return data;
  }

  public void endValid() {
    if (validCount == ends.length) {
      ends = Arrays.copyOf(ends, ends.length * 2);
    }
    int start = validCount == 0 ? 0 : ends[validCount - 1];
    ends[validCount++] = data.length();
    maxRecordBytes = Math.max(maxRecordBytes, data.length() - start);
    validity[rowCount >>> 6] |= 1L << rowCount;
    rowCount++;
  }

  private void grow() {
    if ((rowCount >>> 6) >= validity.length) {
      validity = Arrays.copyOf(validity, validity.length * 2);
    }
  }

  public int rowCount() {
    return rowCount;
  }

  public int validCount() {
    return validCount;
  }

  /** Bytes of all records. */
  public int bytes() {
    return data.length();
  }

  public int maxRecordBytes() {
    return maxRecordBytes;
  }

  public boolean isValid(int row) {
    return (validity[row >>> 6] & (1L << row)) != 0;
  }

  public int recordStart(int validIndex) {
    return validIndex == 0 ? 0 : ends[validIndex - 1];
  }

  public int recordEnd(int validIndex) {
    return ends[validIndex];
  }

  /** The record bytes; valid row v occupies {@code [recordStart(v), recordEnd(v))}. */
  public byte[] array() {
    return data.array();
  }

  /** The record size below which {@code fraction} of the valid rows fall (nearest rank). */
  public int recordBytesQuantile(double fraction) {
    if (validCount == 0) {
      return 0;
    }
    int[] sizes = new int[validCount];
    for (int v = 0; v < validCount; v++) {
      sizes[v] = recordEnd(v) - recordStart(v);
    }
    Arrays.sort(sizes);
    int rank = (int) Math.ceil(fraction * validCount) - 1;
    return sizes[Math.max(0, Math.min(validCount - 1, rank))];
  }

  /** True if every valid record has the same length (and there is at least one). */
  public boolean equalRecordBytes() {
    if (validCount == 0) {
      return false;
    }
    int first = recordEnd(0);
    for (int v = 1; v < validCount; v++) {
      if (recordEnd(v) - recordStart(v) != first) {
        return false;
      }
    }
    return true;
  }

  public void clear() {
    data.clear();
    Arrays.fill(validity, 0, Math.min(validity.length, (rowCount >>> 6) + 1), 0L);
    rowCount = 0;
    validCount = 0;
    maxRecordBytes = 0;
  }
}
