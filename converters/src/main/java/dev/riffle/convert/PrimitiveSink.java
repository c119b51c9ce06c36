package dev.riffle.convert;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Writes one Parquet primitive column into an Arrow vector. Fixed-width values go straight into the
 * data buffer as little-endian bytes, which covers signed and unsigned ints, dates, times,
 * timestamps and decimals with one code path per physical type.
 */
final class PrimitiveSink extends PrimitiveConverter implements VectorSink {
  private static final long JULIAN_EPOCH_DAY = 2_440_588L;
  private static final long NANOS_PER_DAY = 86_400_000_000_000L;

  private final FieldVector vector;
  private final PrimitiveType.PrimitiveTypeName physical;
  private final int width;
  private final boolean decimal;
  private final boolean variable;
  private int count;

  PrimitiveSink(FieldVector vector, PrimitiveType.PrimitiveTypeName physical) {
    this.vector = vector;
    this.physical = physical;
    this.variable = vector instanceof BaseVariableWidthVector;
    this.width =
        vector instanceof BaseFixedWidthVector ? ((BaseFixedWidthVector) vector).getTypeWidth() : 0;
    this.decimal = vector.getField().getType() instanceof ArrowType.Decimal;
  }

  @Override
  public Converter converter() {
    return this;
  }

  @Override
  public int count() {
    return count;
  }

  @Override
  public void reset() {
    count = 0;
  }

  @Override
  public void appendNull() {
    if (variable) {
      ((BaseVariableWidthVector) vector).setNull(count);
    } else {
      ensure(count);
      BitVectorHelper.unsetBit(vector.getValidityBuffer(), count);
    }
    count++;
  }

  private void ensure(int i) {
    while (i >= vector.getValueCapacity()) {
      vector.reAlloc();
    }
  }

  /** Marks slot {@code count} valid and returns the data buffer to write it into. */
  private ArrowBuf slot() {
    ensure(count);
    BitVectorHelper.setBit(vector.getValidityBuffer(), count);
    return vector.getDataBuffer();
  }

  @Override
  public void addBoolean(boolean value) {
    ((BitVector) vector).setSafe(count++, value ? 1 : 0);
  }

  @Override
  public void addInt(int value) {
    ArrowBuf b = slot();
    long at = (long) count * width;
    switch (width) {
      case 1:
        b.setByte(at, value);
        break;
      case 2:
        b.setShort(at, (short) value);
        break;
      case 4:
        b.setInt(at, value);
        break;
      default:
        signExtend(b, at, value);
        break;
    }
    count++;
  }

  @Override
  public void addLong(long value) {
    ArrowBuf b = slot();
    long at = (long) count * width;
    if (width == 8) {
      b.setLong(at, value);
    } else {
      signExtend(b, at, value);
    }
    count++;
  }

  /** A decimal's unscaled value widened to 16 or 32 little-endian bytes. */
  private void signExtend(ArrowBuf b, long at, long value) {
    b.setLong(at, value);
    long fill = value < 0 ? -1L : 0L;
    for (int i = 8; i < width; i += 8) {
      b.setLong(at + i, fill);
    }
  }

  @Override
  public void addFloat(float value) {
    slot().setFloat((long) count * 4, value);
    count++;
  }

  @Override
  public void addDouble(double value) {
    slot().setDouble((long) count * 8, value);
    count++;
  }

  @Override
  public void addBinary(Binary value) {
    if (physical == PrimitiveType.PrimitiveTypeName.INT96) {
      addLong(int96Nanos(value));
      return;
    }
    if (variable) {
      java.nio.ByteBuffer bb = value.toByteBuffer();
      ((BaseVariableWidthVector) vector).setSafe(count++, bb, bb.position(), bb.remaining());
      return;
    }
    byte[] bytes = value.getBytesUnsafe();
    ArrowBuf b = slot();
    long at = (long) count * width;
    if (decimal) {
      // Parquet decimals are big-endian two's complement of any length; Arrow's little-endian.
      if (bytes.length > width) {
        throw new IllegalArgumentException(
            "decimal of " + bytes.length + " bytes does not fit " + width);
      }
      byte fill = bytes.length > 0 && bytes[0] < 0 ? (byte) -1 : 0;
      for (int i = 0; i < width; i++) {
        b.setByte(at + i, i < bytes.length ? bytes[bytes.length - 1 - i] : fill);
      }
    } else {
      // Fixed-size binary, and FLOAT16 whose two bytes are already little-endian.
      if (bytes.length != width) {
        throw new IllegalArgumentException(
            "value of " + bytes.length + " bytes in a column of width " + width);
      }
      b.setBytes(at, bytes, 0, width);
    }
    count++;
  }

  /** INT96: 8 bytes of nanoseconds in the day, then 4 of the Julian day, little-endian. */
  static long int96Nanos(Binary value) {
    java.nio.ByteBuffer bb = value.toByteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    long nanos = bb.getLong(bb.position());
    long day = bb.getInt(bb.position() + 8);
    return (day - JULIAN_EPOCH_DAY) * NANOS_PER_DAY + nanos;
  }
}
