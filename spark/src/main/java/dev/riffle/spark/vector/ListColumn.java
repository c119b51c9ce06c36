package dev.riffle.spark.vector;

import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;

/**
 * An array column over a list, large list or fixed-size list (embeddings) whose items are read
 * through {@code items}: a slice of the item column, without copying.
 */
final class ListColumn extends BaseColumn {
  private final ColumnVector items;

  ListColumn(DataType type, ValueVector vector, ColumnVector items) {
    super(type, vector);
    this.items = items;
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    if (vector instanceof FixedSizeListVector) {
      int size = ((FixedSizeListVector) vector).getListSize();
      return new ColumnarArray(items, rowId * size, size);
    }
    long start;
    long end;
    if (vector instanceof LargeListVector) {
      start = ((LargeListVector) vector).getElementStartIndex(rowId);
      end = ((LargeListVector) vector).getElementEndIndex(rowId);
    } else {
      start = ((ListVector) vector).getElementStartIndex(rowId);
      end = ((ListVector) vector).getElementEndIndex(rowId);
    }
    return new ColumnarArray(items, Math.toIntExact(start), Math.toIntExact(end - start));
  }
}
