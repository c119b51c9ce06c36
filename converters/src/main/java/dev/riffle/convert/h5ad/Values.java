package dev.riffle.convert.h5ad;

import java.lang.reflect.Array;
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
