package dev.riffle.spark.vector;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A column over an Arrow vector that the batch reader owns: nulls come from the vector, getters a
 * subclass does not serve fail (Spark only calls those of the column's type), and closing is left
 * to the reader, which frees the whole batch at once.
 */
abstract class BaseColumn extends ColumnVector {
  final ValueVector vector;

  BaseColumn(DataType type, ValueVector vector) {
    super(type);
    this.vector = vector;
  }

  @Override
  public void close() {}

  @Override
  public boolean hasNull() {
    return vector.getNullCount() > 0;
  }

  @Override
  public int numNulls() {
    return vector.getNullCount();
  }

  @Override
  public boolean isNullAt(int rowId) {
    return vector.isNull(rowId);
  }

  private UnsupportedOperationException unsupported(String what) {
    return new UnsupportedOperationException(
        what + " of a " + dataType().simpleString() + " column (" + vector.getField() + ")");
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported("boolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported("byte");
  }

  @Override
  public short getShort(int rowId) {
    throw unsupported("short");
  }

  @Override
  public int getInt(int rowId) {
    throw unsupported("int");
  }

  @Override
  public long getLong(int rowId) {
    throw unsupported("long");
  }

  @Override
  public float getFloat(int rowId) {
    throw unsupported("float");
  }

  @Override
  public double getDouble(int rowId) {
    throw unsupported("double");
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw unsupported("array");
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw unsupported("map");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw unsupported("decimal");
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw unsupported("string");
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw unsupported("binary");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw unsupported("child");
  }
}
