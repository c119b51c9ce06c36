package dev.riffle.spark.vector;

import org.apache.arrow.vector.complex.MapVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarMap;

/** A map column whose keys or values need a converting column. */
final class MapColumn extends BaseColumn {
  private final ColumnVector keys;
  private final ColumnVector values;

  MapColumn(DataType type, MapVector vector, ColumnVector keys, ColumnVector values) {
    super(type, vector);
    this.keys = keys;
    this.values = values;
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    MapVector m = (MapVector) vector;
    int start = m.getElementStartIndex(rowId);
    return new ColumnarMap(keys, values, start, m.getElementEndIndex(rowId) - start);
  }
}
