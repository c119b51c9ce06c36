package dev.riffle.spark.vector;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A categorical (dictionary-encoded) column read as its values: row i is row {@code code(i)} of the
 * dictionary's column. Nothing is copied; each value is looked up when Spark asks for it.
 */
final class DictionaryColumn extends BaseColumn {
  private final BaseIntVector codes;
  private final ColumnVector values;

  /** The codes' buffers' addresses and width (as {@link RawColumn} reads its buffers). */
  private final long codeValues;

  private final long codeValidity;
  private final int width;
  private final boolean signed;
  private final boolean codeNulls;

  DictionaryColumn(DataType type, BaseIntVector codes, ColumnVector values) {
    super(type, codes);
    this.codes = codes;
    this.values = values;
    BaseFixedWidthVector v = (BaseFixedWidthVector) codes;
    this.codeValues = v.getDataBuffer().memoryAddress();
    this.codeValidity = v.getValidityBuffer().memoryAddress();
    this.width = v.getTypeWidth();
    this.signed = ((ArrowType.Int) v.getField().getType()).getIsSigned();
    this.codeNulls = v.getNullCount() > 0;
  }

  private int code(int rowId) {
    switch (width) {
      case 1:
        byte b = Platform.getByte(null, codeValues + rowId);
        return signed ? b : b & 0xFF;
      case 2:
        short s = Platform.getShort(null, codeValues + 2L * rowId);
        return signed ? s : s & 0xFFFF;
      case 4:
        return Platform.getInt(null, codeValues + 4L * rowId);
      default:
        return (int) Platform.getLong(null, codeValues + 8L * rowId);
    }
  }

  @Override
  public boolean isNullAt(int rowId) {
    return (codeNulls
            && (Platform.getByte(null, codeValidity + (rowId >> 3)) & (1 << (rowId & 7))) == 0)
        || values.isNullAt(code(rowId));
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
    // Made once a batch: Spark asks for a struct's field column at every value it reads.
    if (children == null) {
      children = new ColumnVector[((StructType) dataType()).fields().length];
    }
    if (children[ordinal] == null) {
      ColumnVector child = values.getChild(ordinal);
      children[ordinal] = new DictionaryColumn(child.dataType(), codes, child);
    }
    return children[ordinal];
  }

  private ColumnVector[] children;
}
