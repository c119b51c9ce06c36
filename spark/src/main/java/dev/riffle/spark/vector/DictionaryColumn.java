package dev.riffle.spark.vector;

import org.apache.arrow.vector.BaseIntVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A categorical (dictionary-encoded) column read as its values: row i is row {@code code(i)} of the
 * dictionary's column. Nothing is copied; each value is looked up when Spark asks for it.
 */
final class DictionaryColumn extends BaseColumn {
  private final BaseIntVector codes;
  private final ColumnVector values;

  DictionaryColumn(DataType type, BaseIntVector codes, ColumnVector values) {
    super(type, codes);
    this.codes = codes;
    this.values = values;
  }

  private int code(int rowId) {
    return (int) codes.getValueAsLong(rowId);
  }

  @Override
  public boolean isNullAt(int rowId) {
    return codes.isNull(rowId) || values.isNullAt(code(rowId));
  }

  @Override
  public boolean hasNull() {
    return true;
  }

  @Override
  public int numNulls() {
    int n = 0;
    for (int i = 0; i < codes.getValueCount(); i++) {
      n += isNullAt(i) ? 1 : 0;
    }
    return n;
  }

  @Override
  public boolean getBoolean(int rowId) {
    return values.getBoolean(code(rowId));
  }

  @Override
  public byte getByte(int rowId) {
    return values.getByte(code(rowId));
  }

  @Override
  public short getShort(int rowId) {
    return values.getShort(code(rowId));
  }

  @Override
  public int getInt(int rowId) {
    return values.getInt(code(rowId));
  }

  @Override
  public long getLong(int rowId) {
    return values.getLong(code(rowId));
  }

  @Override
  public float getFloat(int rowId) {
    return values.getFloat(code(rowId));
  }

  @Override
  public double getDouble(int rowId) {
    return values.getDouble(code(rowId));
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return isNullAt(rowId) ? null : values.getArray(code(rowId));
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return isNullAt(rowId) ? null : values.getMap(code(rowId));
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return isNullAt(rowId) ? null : values.getDecimal(code(rowId), precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return isNullAt(rowId) ? null : values.getUTF8String(code(rowId));
  }

  @Override
  public byte[] getBinary(int rowId) {
    return isNullAt(rowId) ? null : values.getBinary(code(rowId));
  }

  /** A struct's field: the same codes over the dictionary's field column. */
  @Override
  public ColumnVector getChild(int ordinal) {
    ColumnVector child = values.getChild(ordinal);
    return new DictionaryColumn(child.dataType(), codes, child);
  }
}
