package dev.riffle.convert.h5ad;

import dev.riffle.convert.InputException;
import io.jhdf.api.Dataset;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.complex.ListVector;
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
      throws InputException {
    long[] p = pointers(start, n);
    int count = Math.toIntExact(p[n] - p[0]);
    Object idx = Hdf.slice(indices, p[0], count);
    Object val = Hdf.slice(data, p[0], count);
    IntVector iv = (IntVector) indexList.getDataVector();
    FieldVector vv = valueList.getDataVector();
    int[] lengths = new int[n];
    if (idx instanceof int[] && ascending((int[]) idx, p, start, n)) {
      // The usual file (int32 indices, every row's ascending): the slices go in whole.
      for (int i = 0; i < n; i++) {
        lengths[i] = (int) (p[i + 1] - p[i]);
      }
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
      lengths[i] = to - from;
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
  private boolean ascending(int[] idx, long[] p, long start, int n) throws InputException {
    boolean ascending = true;
    for (int i = 0; i < n; i++) {
      int from = (int) (p[i] - p[0]);
      int to = (int) (p[i + 1] - p[0]);
      long prev = -1;
      for (int k = from; k < to; k++) {
        int c = idx[k];
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

  @Override
  public void close() {}
}
