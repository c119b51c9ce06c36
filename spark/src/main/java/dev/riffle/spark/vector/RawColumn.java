package dev.riffle.spark.vector;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A signed integer, float, day-date, microsecond-timestamp or UTF-8 leaf read straight from its
 * Arrow buffers' addresses, as Spark's own off-heap vectors read theirs. Spark's {@code
 * ArrowColumnVector} reads each value through Arrow's checked accessors (a bounds and reference
 * count check a value, and a validity bit read even when the batch has no null), which cost more
 * than the value itself in a scan: an embedding's 32 floats a row are 32 such reads. The addresses
 * stay valid while the batch does (the reader frees its vectors only when Spark asks for the next
 * one), and Spark only asks for rows below the batch's row count.
 */
final class RawColumn extends BaseColumn {
  private final long values;
  private final long validity;
  private final long offsets;
  private final boolean nulls;

  private RawColumn(DataType type, FieldVector vector, long offsets) {
    super(type, vector);
    this.values = vector.getDataBuffer().memoryAddress();
    this.validity = vector.getValidityBuffer().memoryAddress();
    this.offsets = offsets;
    // Counted once a batch (Arrow counts the validity bits each time it is asked).
    this.nulls = vector.getNullCount() > 0;
  }

  /** A raw column over {@code vector} read as {@code type}, or null if it is not such a leaf. */
  static RawColumn of(FieldVector vector, DataType type) {
    if (vector instanceof VarCharVector v) {
      return type instanceof StringType
          ? new RawColumn(type, v, v.getOffsetBuffer().memoryAddress())
          : null;
    }
    if (!(vector instanceof BaseFixedWidthVector) || !matches(vector.getField().getType(), type)) {
      return null;
    }
    return new RawColumn(type, vector, 0);
  }

  /** Whether {@code type} is what the Arrow type's values are, bit for bit, in Spark. */
  private static boolean matches(ArrowType arrow, DataType type) {
    if (arrow instanceof ArrowType.Int i) {
      if (!i.getIsSigned()) {
        return false;
      }
      return switch (i.getBitWidth()) {
        case 8 -> type instanceof ByteType;
        case 16 -> type instanceof ShortType;
        case 32 -> type instanceof IntegerType;
        case 64 -> type instanceof LongType;
        default -> false;
      };
    }
    if (arrow instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() == FloatingPointPrecision.SINGLE
          ? type instanceof FloatType
          : f.getPrecision() == FloatingPointPrecision.DOUBLE && type instanceof DoubleType;
    }
    if (arrow instanceof ArrowType.Date d) {
      return d.getUnit() == DateUnit.DAY && type instanceof DateType;
    }
    if (arrow instanceof ArrowType.Timestamp t) {
      return t.getUnit() == TimeUnit.MICROSECOND
          && (type instanceof TimestampType || type instanceof TimestampNTZType);
    }
    return false;
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
  public int numNulls() {
    return nulls
        ? BitVectorHelper.getNullCount(vector.getValidityBuffer(), vector.getValueCount())
        : 0;
  }

  @Override
  public byte getByte(int rowId) {
    return Platform.getByte(null, values + rowId);
  }

  @Override
  public short getShort(int rowId) {
    return Platform.getShort(null, values + 2L * rowId);
  }

  @Override
  public int getInt(int rowId) {
    return Platform.getInt(null, values + 4L * rowId);
  }

  @Override
  public long getLong(int rowId) {
    return Platform.getLong(null, values + 8L * rowId);
  }

  @Override
  public float getFloat(int rowId) {
    return Platform.getFloat(null, values + 4L * rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return Platform.getDouble(null, values + 8L * rowId);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    int start = Platform.getInt(null, offsets + 4L * rowId);
    int end = Platform.getInt(null, offsets + 4L * rowId + 4);
    return UTF8String.fromAddress(null, values + start, end - start);
  }
}
