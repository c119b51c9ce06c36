package dev.riffle.spark.vector;

import java.math.BigDecimal;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A leaf whose Arrow type Spark's own {@code ArrowColumnVector} does not read, converted value by
 * value to the Spark type {@code SparkTypes} gives it: unsigned ints widened (uint64 as a decimal),
 * half floats as floats, millisecond dates as days, times as nanoseconds of the day, timestamps and
 * durations in other units as microseconds (finer units rounded down), fixed-size binary as binary,
 * and 256-bit decimals as decimals or, beyond 38 digits, as their plain strings.
 */
final class LeafColumn extends BaseColumn {
  private static final long MILLIS_PER_DAY = 86_400_000L;

  LeafColumn(DataType type, ValueVector vector) {
    super(type, vector);
  }

  private long integer(int rowId) {
    return ((BaseIntVector) vector).getValueAsLong(rowId);
  }

  @Override
  public byte getByte(int rowId) {
    return (byte) integer(rowId);
  }

  @Override
  public short getShort(int rowId) {
    return (short) integer(rowId);
  }

  @Override
  public int getInt(int rowId) {
    if (vector instanceof DateMilliVector) {
      return (int) Math.floorDiv(((DateMilliVector) vector).get(rowId), MILLIS_PER_DAY);
    }
    return (int) integer(rowId);
  }

  @Override
  public long getLong(int rowId) {
    if (vector instanceof TimeStampVector) {
      TimeUnit unit = ((ArrowType.Timestamp) vector.getField().getType()).getUnit();
      return micros(((TimeStampVector) vector).get(rowId), unit);
    }
    if (vector instanceof DurationVector) {
      TimeUnit unit = ((ArrowType.Duration) vector.getField().getType()).getUnit();
      return micros(DurationVector.get(((DurationVector) vector).getDataBuffer(), rowId), unit);
    }
    if (vector instanceof TimeSecVector) {
      return ((TimeSecVector) vector).get(rowId) * 1_000_000_000L;
    }
    if (vector instanceof TimeMilliVector) {
      return ((TimeMilliVector) vector).get(rowId) * 1_000_000L;
    }
    if (vector instanceof TimeMicroVector) {
      return ((TimeMicroVector) vector).get(rowId) * 1_000L;
    }
    if (vector instanceof TimeNanoVector) {
      return ((TimeNanoVector) vector).get(rowId);
    }
    return integer(rowId);
  }

  static long micros(long value, TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return Math.multiplyExact(value, 1_000_000L);
      case MILLISECOND:
        return Math.multiplyExact(value, 1_000L);
      case MICROSECOND:
        return value;
      case NANOSECOND:
        return Math.floorDiv(value, 1_000L);
      default:
        throw new IllegalArgumentException("unknown time unit " + unit);
    }
  }

  @Override
  public float getFloat(int rowId) {
    return (float) ((FloatingPointVector) vector).getValueAsDouble(rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return ((FloatingPointVector) vector).getValueAsDouble(rowId);
  }

  private BigDecimal bigDecimal(int rowId) {
    if (vector instanceof UInt8Vector) {
      return new BigDecimal(((UInt8Vector) vector).getObjectNoOverflow(rowId));
    }
    if (vector instanceof Decimal256Vector) {
      return ((Decimal256Vector) vector).getObject(rowId);
    }
    return ((DecimalVector) vector).getObject(rowId);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    if (isNullAt(rowId)) {
      return null;
    }
    return Decimal.apply(bigDecimal(rowId), precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    return UTF8String.fromString(bigDecimal(rowId).toPlainString());
  }

  @Override
  public byte[] getBinary(int rowId) {
    if (isNullAt(rowId)) {
      return null;
    }
    return ((FixedSizeBinaryVector) vector).get(rowId);
  }
}
