package dev.riffle.convert.h5ad;

import io.jhdf.api.Dataset;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A dense matrix, read a batch of rows at a time and stored sparse: the zeros are dropped, so that
 * a dataset has one layout whatever the file had (NaN is kept: it is not zero).
 */
final class DenseRows implements SparseRows {
  private final Dataset data;
  private final long rows;
  private final int cols;

  DenseRows(Dataset data) {
    this.data = data;
    this.rows = data.getDimensionsAsLong()[0];
    this.cols = data.getDimensions()[1];
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

  @Override
  public long[] extents(long start, int n) {
    long[] out = new long[n + 1];
    for (int i = 0; i <= n; i++) {
      out[i] = (long) i * cols;
    }
    return out;
  }

  @Override
  public void fill(ListVector indexList, ListVector valueList, long start, int n) {
    Object a = Hdf.rows(data, start, n);
    IntVector iv = (IntVector) indexList.getDataVector();
    FieldVector vv = valueList.getDataVector();
    int[] lengths = new int[n];
    int at = 0;
    for (int i = 0; i < n; i++) {
      int base = i * cols;
      for (int j = 0; j < cols; j++) {
        if (!Values.isZero(a, base + j)) {
          iv.setSafe(at, j);
          Values.set(vv, at, a, base + j);
          at++;
          lengths[i]++;
        }
      }
    }
    SparseRows.offsets(indexList, valueList, lengths, n, at);
  }

  @Override
  public void close() {}
}
