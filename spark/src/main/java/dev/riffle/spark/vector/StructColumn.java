package dev.riffle.spark.vector;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

/** A struct column with a child column per field (Spark reads a struct's values from them). */
final class StructColumn extends BaseColumn {
  private final ColumnVector[] children;

  StructColumn(DataType type, ValueVector vector, ColumnVector[] children) {
    super(type, vector);
    this.children = children;
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    return children[ordinal];
  }
}
