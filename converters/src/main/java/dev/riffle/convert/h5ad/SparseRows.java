package dev.riffle.convert.h5ad;

import java.io.IOException;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A matrix (X, a layer, raw/X) read by rows as sparse rows: the column numbers of the non-zeros,
 * ascending, and their values. Rows are asked for in increasing order.
 */
interface SparseRows extends AutoCloseable {
  /** The stored value type. */
  ArrowType valueType();

  /** Rows, and columns. */
  long rows();

  long cols();

  /**
   * Entries in the rows [start, start + n), cumulative: {@code n + 1} counts from 0. A dense matrix
   * answers an upper bound (every element), which is what it reads.
   */
  long[] extents(long start, int n);

  /** Writes rows [start, start + n) into two list vectors, freshly allocated. */
  void fill(ListVector indices, ListVector values, long start, int n) throws IOException;

  @Override
  void close() throws IOException;

  /** Sets the list offsets of {@code n} rows of the given lengths, once the items are written. */
  static void offsets(ListVector indices, ListVector values, int[] lengths, int n, int items) {
    for (int i = 0; i < n; i++) {
      indices.startNewValue(i);
      indices.endValue(i, lengths[i]);
      values.startNewValue(i);
      values.endValue(i, lengths[i]);
    }
    indices.getDataVector().setValueCount(items);
    values.getDataVector().setValueCount(items);
    indices.setValueCount(n);
    values.setValueCount(n);
  }
}
