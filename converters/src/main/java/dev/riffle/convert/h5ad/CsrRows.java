package dev.riffle.convert.h5ad;

import dev.riffle.convert.InputException;
import io.jhdf.api.Dataset;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A CSR matrix, read a batch of rows at a time: the batch's slice of indptr, then the slices of
 * indices and data it spans. Rows whose indices are not sorted (scipy allows it) are sorted.
 */
final class CsrRows implements SparseRows {
  private final String file;
  private final Dataset indptr;
  private final Dataset indices;
  private final Dataset data;
  private final long rows;
  private final long cols;
  private long cachedStart = -1;
  private long[] cachedPtr;
  private boolean rawChecked;
  private RawSlices rawIndices;
  private RawSlices rawValues;

  /** indptr must have been checked (Matrices.checkPointers). */
  CsrRows(String file, Dataset indptr, Dataset indices, Dataset data, long rows, long cols) {
    this.file = file;
    this.indptr = indptr;
    this.indices = indices;
    this.data = data;
    this.rows = rows;
    this.cols = cols;
  }

  @Override
  public ArrowType valueType() {
    return Values.arrowType(data);
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public long cols() {
    return cols;
  }

  /** indptr[start .. start + n], absolute. */
  private long[] pointers(long start, int n) {
    if (start != cachedStart || cachedPtr.length < n + 1) {
      Object a = Hdf.slice(indptr, start, n + 1);
      long[] p = new long[n + 1];
      for (int i = 0; i <= n; i++) {
        p[i] = Values.toLong(a, i);
      }
      cachedStart = start;
      cachedPtr = p;
    }
    return cachedPtr;
  }

  @Override
  public long[] extents(long start, int n) {
    long[] p = pointers(start, n);
    long[] out = new long[n + 1];
    for (int i = 0; i <= n; i++) {
      out[i] = p[i] - p[0];
    }
    return out;
  }

  @Override
  public void fill(ListVector indexList, ListVector valueList, long start, int n)
      throws IOException {
    long[] p = pointers(start, n);
    int count = Math.toIntExact(p[n] - p[0]);
    IntVector iv = (IntVector) indexList.getDataVector();
    FieldVector vv = valueList.getDataVector();
    int[] lengths = new int[n];
    for (int i = 0; i < n; i++) {
      lengths[i] = (int) (p[i + 1] - p[i]);
    }
    if (raw(vv)) {
      // The usual file (unfiltered, int32 indices): the slices are read into the vectors.
      allocate(iv, count);
      rawIndices.read(p[0], count, iv.getDataBuffer());
      IntBuffer read =
          iv.getDataBuffer().nioBuffer(0, count * 4).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer();
      boolean sorted = ascending(read, p, start, n);
      BaseFixedWidthVector f = (BaseFixedWidthVector) vv;
      allocate(f, count);
      rawValues.read(p[0], count, f.getDataBuffer());
      if (!sorted) {
        sortRows(read, f.getDataBuffer(), f.getTypeWidth(), p, n);
      }
      SparseRows.offsets(indexList, valueList, lengths, n, count);
      return;
    }
    Object idx = Hdf.slice(indices, p[0], count);
    Object val = Hdf.slice(data, p[0], count);
    if (idx instanceof int[] && ascending(IntBuffer.wrap((int[]) idx), p, start, n)) {
      // int32 indices, every row's ascending: the slices go in whole.
      Values.copy(iv, idx, count);
      if (!Values.copy(vv, val, count)) {
        for (int k = 0; k < count; k++) {
          Values.set(vv, k, val, k);
        }
      }
      SparseRows.offsets(indexList, valueList, lengths, n, count);
      return;
    }
    for (int i = 0; i < n; i++) {
      int from = (int) (p[i] - p[0]);
      int to = (int) (p[i + 1] - p[0]);
      for (int k = from; k < to; k++) {
        long c = Values.toLong(idx, k);
        if (c < 0 || c >= cols) {
          throw outside(c, p[0] + k, start + i);
        }
      }
      int[] order = sortedOrder(idx, from, to);
      for (int k = from; k < to; k++) {
        int src = order == null ? k : order[k - from];
        iv.setSafe(k, (int) Values.toLong(idx, src));
        Values.set(vv, k, val, src);
      }
    }
    SparseRows.offsets(indexList, valueList, lengths, n, count);
  }

  /**
   * Whether every row's int32 indices ascend strictly; fails on the first index outside [0, cols),
   * naming it and its row.
   */
  private boolean ascending(IntBuffer idx, long[] p, long start, int n) throws InputException {
    boolean ascending = true;
    for (int i = 0; i < n; i++) {
      int from = (int) (p[i] - p[0]);
      int to = (int) (p[i + 1] - p[0]);
      long prev = -1;
      for (int k = from; k < to; k++) {
        int c = idx.get(k);
        if (c < 0 || c >= cols) {
          throw outside(c, p[0] + k, start + i);
        }
        ascending &= c > prev;
        prev = c;
      }
    }
    return ascending;
  }

  private InputException outside(long c, long at, long row) {
    return new InputException(
        file,
        Matrices.path(indices)
            + "["
            + at
            + "] = "
            + c
            + " (row "
            + row
            + ") is outside the "
            + cols
            + " columns");
  }

  /** Null if the row's indices ascend already (the usual case), else the sorting permutation. */
  private static int[] sortedOrder(Object idx, int from, int to) {
    boolean sorted = true;
    for (int k = from + 1; k < to && sorted; k++) {
      sorted = Values.toLong(idx, k - 1) < Values.toLong(idx, k);
    }
    if (sorted) {
      return null;
    }
    return java.util.stream.IntStream.range(from, to)
        .boxed()
        .sorted(java.util.Comparator.comparingLong(k -> Values.toLong(idx, k)))
        .mapToInt(Integer::intValue)
        .toArray();
  }

  /** Sorts each row whose indices do not ascend in place, its values (of width w) along. */
  private static void sortRows(IntBuffer idx, ArrowBuf values, int w, long[] p, int n) {
    for (int i = 0; i < n; i++) {
      int from = (int) (p[i] - p[0]);
      int len = (int) (p[i + 1] - p[i]);
      int[] row = new int[len];
      idx.get(from, row);
      int[] order = sortedOrder(row, 0, len);
      if (order == null) {
        continue;
      }
      byte[] v = new byte[len * w];
      values.getBytes((long) from * w, v);
      for (int j = 0; j < len; j++) {
        idx.put(from + j, row[order[j]]);
        values.setBytes((long) (from + j) * w, v, order[j] * w, w);
      }
    }
  }

  /**
   * Gives {@code v} room for {@code count} values, all valid, without zeroing the values first
   * (allocateNew does, and every byte is read over a moment later).
   */
  private static void allocate(BaseFixedWidthVector v, int count) {
    int n = Math.max(count, 1);
    BufferAllocator a = v.getAllocator();
    try (ArrowBuf validity = a.buffer((n + 7) / 8);
        ArrowBuf values = a.buffer((long) n * v.getTypeWidth())) {
      // No nulls: Arrow makes the validity buffer itself, all set.
      v.loadFieldBuffers(new ArrowFieldNode(count, 0), List.of(validity, values));
    }
  }

  /**
   * Whether indices and values can be read straight into the vectors (RawSlices): int32 indices,
   * values stored as the vector holds them, neither filtered. Decided at the first batch.
   */
  private boolean raw(FieldVector vv) throws IOException {
    if (rawChecked) {
      return rawValues != null;
    }
    rawChecked = true;
    if (vv instanceof BaseFixedWidthVector f
        && !(vv instanceof BitVector)
        && new ArrowType.Int(32, true).equals(Values.arrowType(indices))
        && vv.getField().getType().equals(Values.arrowType(data))) {
      rawIndices = RawSlices.of(file, indices, 4);
      if (rawIndices != null) {
        rawValues = RawSlices.of(file, data, f.getTypeWidth());
      }
    }
    return rawValues != null;
  }

  @Override
  public void close() throws IOException {
    RawSlices a = rawIndices;
    RawSlices b = rawValues;
    rawIndices = null;
    rawValues = null;
    try {
      if (a != null) {
        a.close();
      }
    } finally {
      if (b != null) {
        b.close();
      }
    }
  }
}
