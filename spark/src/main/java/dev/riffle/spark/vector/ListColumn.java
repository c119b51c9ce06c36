package dev.riffle.spark.vector;

import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.unsafe.Platform;

/**
 * An array column over a list, large list or fixed-size list (embeddings) whose items are read
 * through {@code items}: a slice of the item column, without copying.
 */
final class ListColumn extends BaseColumn {
  private final ColumnVector items;

  /** A list's validity and offset buffers' addresses (as {@link RawColumn} reads its buffers). */
  private final long validity;

  private final long offsets;
  private final boolean nulls;

  ListColumn(DataType type, ValueVector vector, ColumnVector items) {
    super(type, vector);
    this.items = items;
    this.nulls = vector.getNullCount() > 0;
    this.validity = vector.getValidityBuffer().memoryAddress();
    this.offsets = vector instanceof ListVector l ? l.getOffsetBuffer().memoryAddress() : 0;
  }

  @Override
  public boolean hasNull() {
    return nulls;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return nulls && (Platform.getByte(null, validity + (rowId >> 3)) & (1 << (rowId & 7))) == 0;
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    if (offsets != 0) {
      int start = Platform.getInt(null, offsets + 4L * rowId);
      return new ColumnarArray(
          items, start, Platform.getInt(null, offsets + 4L * rowId + 4) - start);
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
