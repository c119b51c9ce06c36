package dev.riffle.convert.h5ad;

import io.jhdf.object.datatype.DataType;
import io.jhdf.object.datatype.FixedPoint;
import io.jhdf.object.datatype.FloatingPoint;
import java.lang.reflect.Array;
import java.math.BigInteger;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The primitive arrays jhdf returns (byte[] to double[], String[]) and the Arrow vectors they go
 * into. HDF5 enums are booleans in AnnData (numpy bool), which jhdf returns as "TRUE"/"FALSE".
 */
final class Values {
  private Values() {}

  static final ArrowType FLOAT32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  static final ArrowType FLOAT64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  /**
   * The Arrow type of a numeric dataset's stored dtype, exactly: widths kept, unsigned integers
   * unsigned (jhdf widens them to the next Java type), or null if there is none.
   */
  static ArrowType arrowType(io.jhdf.api.Dataset d) {
    DataType t = d.getDataType();
    if (t instanceof FixedPoint) {
      int bits = t.getSize() * 8;
      if (bits == 8 || bits == 16 || bits == 32 || bits == 64) {
        return new ArrowType.Int(bits, ((FixedPoint) t).isSigned());
      }
    }
    if (t instanceof FloatingPoint && t.getSize() == 8) {
      return FLOAT64;
    }
    if (t instanceof io.jhdf.object.datatype.EnumDataType) {
      // numpy bool: jhdf reads it as the strings "TRUE"/"FALSE", which are no utf8 values.
      return ArrowType.Bool.INSTANCE;
    }
    return arrowType(d.getJavaType());
  }

  /** numpy's name of a numeric Arrow type (float32, int64, uint16...), for messages. */
  static String dtypeName(ArrowType t) {
    if (t instanceof ArrowType.Int) {
      ArrowType.Int i = (ArrowType.Int) t;
      return (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
    }
    if (t instanceof ArrowType.FloatingPoint) {
      return "float" + width(t) * 8;
    }
    return t instanceof ArrowType.Bool ? "bool" : String.valueOf(t);
  }

  /** The Arrow type for a jhdf element type, or null if there is none. */
  static ArrowType arrowType(Class<?> t) {
    if (t == byte.class || t == Byte.class) {
      return new ArrowType.Int(8, true);
    }
    if (t == short.class || t == Short.class) {
      return new ArrowType.Int(16, true);
    }
    if (t == int.class || t == Integer.class) {
      return new ArrowType.Int(32, true);
    }
    if (t == long.class || t == Long.class) {
      return new ArrowType.Int(64, true);
    }
    if (t == float.class || t == Float.class) {
      return FLOAT32;
    }
    if (t == double.class || t == Double.class) {
      return FLOAT64;
    }
    if (t == boolean.class || t == Boolean.class) {
      return ArrowType.Bool.INSTANCE;
    }
    if (t == String.class) {
      return ArrowType.Utf8.INSTANCE;
    }
    return null;
  }

  /** Bytes of one value of an Arrow type (8 for variable-size ones, an estimate). */
  static int width(ArrowType t) {
    if (t instanceof ArrowType.Int) {
      return ((ArrowType.Int) t).getBitWidth() / 8;
    }
    if (t instanceof ArrowType.FloatingPoint) {
      return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.SINGLE ? 4 : 8;
    }
    return t instanceof ArrowType.Bool ? 1 : 8;
  }

  static double toDouble(Object a, int k) {
    if (a instanceof float[]) {
      return ((float[]) a)[k];
    }
    if (a instanceof double[]) {
      return ((double[]) a)[k];
    }
    if (a instanceof int[]) {
      return ((int[]) a)[k];
    }
    if (a instanceof long[]) {
      return ((long[]) a)[k];
    }
    if (a instanceof short[]) {
      return ((short[]) a)[k];
    }
    if (a instanceof byte[]) {
      return ((byte[]) a)[k];
    }
    if (a instanceof boolean[]) {
      return ((boolean[]) a)[k] ? 1 : 0;
    }
    if (a instanceof BigInteger[]) {
      return ((BigInteger[]) a)[k].doubleValue();
    }
    if (a instanceof String[]) {
      return "TRUE".equals(((String[]) a)[k]) ? 1 : 0;
    }
    throw new IllegalArgumentException("not a numeric array: " + a.getClass().getSimpleName());
  }

  static long toLong(Object a, int k) {
    if (a instanceof long[]) {
      return ((long[]) a)[k];
    }
    if (a instanceof int[]) {
      return ((int[]) a)[k];
    }
    if (a instanceof short[]) {
      return ((short[]) a)[k];
    }
    if (a instanceof byte[]) {
      return ((byte[]) a)[k];
    }
    if (a instanceof BigInteger[]) {
      // uint64: the same 64 bits, which an unsigned vector stores as they are.
      return ((BigInteger[]) a)[k].longValue();
    }
    return (long) toDouble(a, k);
  }

  /** Whether an element is the boolean true ("TRUE" for HDF5 enums). */
  static boolean isTrue(Object a, int k) {
    if (a instanceof String[]) {
      return "TRUE".equalsIgnoreCase(((String[]) a)[k]);
    }
    if (a instanceof boolean[]) {
      return ((boolean[]) a)[k];
    }
    return toDouble(a, k) != 0;
  }

  static boolean isZero(Object a, int k) {
    if (a instanceof float[]) {
      return ((float[]) a)[k] == 0f;
    }
    if (a instanceof double[]) {
      return ((double[]) a)[k] == 0d;
    }
    return toDouble(a, k) == 0;
  }

  static int length(Object a) {
    return Array.getLength(a);
  }

  /** Elements copied to the vector's buffer at once by {@link #copy}: a 256 KiB staging buffer. */
  private static final int STAGE = 1 << 16;

  /**
   * Copies elements [0, count) of {@code a} into {@code v}, all valid, when the array's Java type
   * is the vector's (int[] into int32, float[] into float32, double[] into float64, long[] into
   * int64): in bulk, through a small staging buffer, where setting them one by one with their
   * checks and the vector's doubling took most of a CSR conversion's time.
   *
   * @return false, having done nothing, for any other pair (the caller sets them one by one)
   */
  static boolean copy(FieldVector v, Object a, int count) {
    int width;
    if (v instanceof IntVector && a instanceof int[]) {
      width = 4;
    } else if (v instanceof Float4Vector && a instanceof float[]) {
      width = 4;
    } else if (v instanceof Float8Vector && a instanceof double[]) {
      width = 8;
    } else if (v instanceof BigIntVector && a instanceof long[]) {
      width = 8;
    } else {
      return false;
    }
    org.apache.arrow.vector.BaseFixedWidthVector f =
        (org.apache.arrow.vector.BaseFixedWidthVector) v;
    f.allocateNew(Math.max(count, 1));
    org.apache.arrow.memory.ArrowBuf data = f.getDataBuffer();
    java.nio.ByteBuffer stage =
        java.nio.ByteBuffer.allocate(Math.min(count, STAGE) * width)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (int from = 0; from < count; from += STAGE) {
      int len = Math.min(STAGE, count - from);
      stage.clear();
      if (a instanceof int[]) {
        stage.asIntBuffer().put((int[]) a, from, len);
      } else if (a instanceof float[]) {
        stage.asFloatBuffer().put((float[]) a, from, len);
      } else if (a instanceof double[]) {
        stage.asDoubleBuffer().put((double[]) a, from, len);
      } else {
        stage.asLongBuffer().put((long[]) a, from, len);
      }
      stage.limit(len * width);
      data.setBytes((long) from * width, stage);
    }
    f.getValidityBuffer().setOne(0L, (long) (count + 7) / 8);
    return true;
  }

  /** Sets element {@code at} of a numeric, boolean or utf8 vector from element k of an array. */
  static void set(FieldVector v, int at, Object a, int k) {
    if (v instanceof Float4Vector) {
      ((Float4Vector) v)
          .setSafe(at, a instanceof float[] ? ((float[]) a)[k] : (float) toDouble(a, k));
    } else if (v instanceof Float8Vector) {
      ((Float8Vector) v).setSafe(at, toDouble(a, k));
    } else if (v instanceof BitVector) {
      ((BitVector) v).setSafe(at, isTrue(a, k) ? 1 : 0);
    } else if (v instanceof VarCharVector) {
      String s = a instanceof String[] ? ((String[]) a)[k] : String.valueOf(Array.get(a, k));
      ((VarCharVector) v).setSafe(at, s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } else {
      setLong(v, at, toLong(a, k));
    }
  }

  /**
   * Sets a value of a transposed matrix, kept as 64 bits: the long itself if the source is
   * integral, else the double's bits, so that neither int64 nor float64 loses anything.
   */
  static void setBits(FieldVector v, int at, long bits, boolean integral) {
    if (!integral) {
      setDouble(v, at, Double.longBitsToDouble(bits));
    } else if (v instanceof Float4Vector || v instanceof Float8Vector) {
      setDouble(v, at, bits);
    } else {
      setLong(v, at, bits);
    }
  }

  /** The 64 bits {@link #setBits} takes for element k. */
  static long bits(Object a, int k, boolean integral) {
    return integral ? toLong(a, k) : Double.doubleToRawLongBits(toDouble(a, k));
  }

  /** Sets a double into a float or integer vector (values of a transposed matrix). */
  static void setDouble(FieldVector v, int at, double d) {
    if (v instanceof Float4Vector) {
      ((Float4Vector) v).setSafe(at, (float) d);
    } else if (v instanceof Float8Vector) {
      ((Float8Vector) v).setSafe(at, d);
    } else {
      setLong(v, at, (long) d);
    }
  }

  static void setLong(FieldVector v, int at, long x) {
    if (v instanceof IntVector) {
      ((IntVector) v).setSafe(at, (int) x);
    } else if (v instanceof BigIntVector) {
      ((BigIntVector) v).setSafe(at, x);
    } else if (v instanceof SmallIntVector) {
      ((SmallIntVector) v).setSafe(at, (short) x);
    } else if (v instanceof TinyIntVector) {
      ((TinyIntVector) v).setSafe(at, (byte) x);
    } else if (v instanceof BaseIntVector) {
      ((BaseIntVector) v).setWithPossibleTruncate(at, x);
    } else {
      throw new IllegalArgumentException("not an integer vector: " + v.getField());
    }
  }
}
