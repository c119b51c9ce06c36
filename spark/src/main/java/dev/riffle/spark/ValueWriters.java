// Why this file stays whole (over 500 lines): see "Why this file is long" in the class comment.
package dev.riffle.spark;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimeType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.UserDefinedType;
import org.apache.spark.sql.types.VarcharType;

/**
 * The writer of each (Spark type, Arrow type) pair {@link RowWriter} supports: one small object per
 * column and nested field, chosen once, that copies a value from a Spark row or array into an Arrow
 * vector, converting it to the dataset's type where Spark has no such type (checked, naming the
 * column and value when it does not fit).
 *
 * <p>Why this file is long: it is one small writer per Spark type, each a few lines, and the table
 * that chooses among them; they read best side by side.
 */
final class ValueWriters {
  private ValueWriters() {}

  /** Writes one Spark value (ordinal {@code ord} of a row or array) at {@code index}. */
  abstract static class ValueWriter {
    final FieldVector vector;
    final String path;

    ValueWriter(FieldVector vector, String path) {
      this.vector = vector;
      this.path = path;
    }

    final void write(SpecializedGetters src, int ord, int index) {
      if (src.isNullAt(ord)) {
        if (!vector.getField().isNullable()) {
          throw new IllegalArgumentException(
              "column '" + path + "' holds a null, but the dataset's field is not nullable");
        }
        setNull(vector, index);
      } else {
        set(src, ord, index);
      }
    }

    abstract void set(SpecializedGetters src, int ord, int index);

    IllegalArgumentException outOfRange(Object value) {
      return new IllegalArgumentException(
          "column '" + path + "': value " + value + " does not fit " + vector.getField().getType());
    }
  }

  static void setNull(FieldVector v, int index) {
    if (v instanceof BaseFixedWidthVector) {
      ((BaseFixedWidthVector) v).setNull(index);
    } else if (v instanceof BaseVariableWidthVector) {
      ((BaseVariableWidthVector) v).setNull(index);
    } else if (v instanceof BaseLargeVariableWidthVector) {
      ((BaseLargeVariableWidthVector) v).setNull(index);
    } else if (v instanceof ListVector) {
      ((ListVector) v).setNull(index);
    } else if (v instanceof LargeListVector) {
      ((LargeListVector) v).setNull(index);
    } else if (v instanceof FixedSizeListVector) {
      ((FixedSizeListVector) v).setNull(index);
    } else if (v instanceof StructVector) {
      ((StructVector) v).setNull(index);
    } else {
      throw new IllegalStateException("no null for " + v.getClass().getSimpleName());
    }
  }

  private static IllegalArgumentException cannot(FieldVector v, DataType t, String path) {
    return new IllegalArgumentException(
        "column '"
            + path
            + "' is "
            + t.simpleString()
            + " in the DataFrame but "
            + v.getField().getType()
            + " in the dataset; Spark cannot write one as the other");
  }

  static ValueWriter writer(FieldVector v, DataType t, String path) {
    ArrowType at = v.getField().getType();
    if (SparkTypes.isMlVector(t)) {
      return v instanceof StructVector
          ? mlVectorStruct((StructVector) v, (UserDefinedType<?>) t, path)
          : mlVector(v, path);
    }
    switch (at.getTypeID()) {
      case Struct:
        if (t instanceof StructType) {
          return struct((StructVector) v, (StructType) t, path);
        }
        break;
      case List:
      case LargeList:
      case FixedSizeList:
        if (t instanceof ArrayType) {
          return list(v, (ArrayType) t, path);
        }
        break;
      case Map:
        if (t instanceof MapType) {
          return map((MapVector) v, (MapType) t, path);
        }
        break;
      case Bool:
        if (t instanceof BooleanType) {
          BitVector b = (BitVector) v;
          return new ValueWriter(v, path) {
            @Override
            void set(SpecializedGetters src, int ord, int index) {
              b.setSafe(index, src.getBoolean(ord) ? 1 : 0);
            }
          };
        }
        break;
      case Int:
        return integer(v, t, path);
      case FloatingPoint:
        return floating(v, t, path);
      case Decimal:
        if (t instanceof DecimalType) {
          return decimal(v, (DecimalType) t, path);
        }
        if (t instanceof StringType) {
          // Decimals wider than Spark's 38 digits read as strings; they append the same way.
          return decimal(v, null, path);
        }
        break;
      case Utf8:
      case LargeUtf8:
        if (t instanceof StringType || t instanceof CharType || t instanceof VarcharType) {
          return bytes(v, path, true);
        }
        break;
      case Binary:
      case LargeBinary:
      case FixedSizeBinary:
        if (t instanceof BinaryType) {
          return bytes(v, path, false);
        }
        break;
      case Date:
        if (t instanceof DateType) {
          return date(v, path);
        }
        break;
      case Timestamp:
        {
          boolean zoned = ((ArrowType.Timestamp) at).getTimezone() != null;
          if ((zoned && t instanceof TimestampType) || (!zoned && t instanceof TimestampNTZType)) {
            TimeStampVector ts = (TimeStampVector) v;
            TimeUnit unit = ((ArrowType.Timestamp) at).getUnit();
            return new ValueWriter(v, path) {
              @Override
              void set(SpecializedGetters src, int ord, int index) {
                ts.setSafe(index, fromMicros(src.getLong(ord), unit, this));
              }
            };
          }
          break;
        }
      case Duration:
        if (t instanceof DayTimeIntervalType) {
          DurationVector d = (DurationVector) v;
          TimeUnit unit = ((ArrowType.Duration) at).getUnit();
          return new ValueWriter(v, path) {
            @Override
            void set(SpecializedGetters src, int ord, int index) {
              d.setSafe(index, fromMicros(src.getLong(ord), unit, this));
            }
          };
        }
        break;
      case Time:
        if (t instanceof TimeType || t instanceof LongType) {
          return time(v, path);
        }
        break;
      default:
        break;
    }
    throw cannot(v, t, path);
  }

  /** Microseconds in another unit; finer units multiply (checked), coarser ones round down. */
  static long fromMicros(long micros, TimeUnit unit, ValueWriter w) {
    try {
      switch (unit) {
        case SECOND:
          return Math.floorDiv(micros, 1_000_000L);
        case MILLISECOND:
          return Math.floorDiv(micros, 1_000L);
        case MICROSECOND:
          return micros;
        default:
          return Math.multiplyExact(micros, 1_000L);
      }
    } catch (ArithmeticException e) {
      throw w.outOfRange(micros + " µs");
    }
  }

  private static ValueWriter struct(StructVector v, StructType t, String path) {
    StructField[] fields = t.fields();
    if (fields.length != v.getChildrenFromFields().size()) {
      throw cannot(v, t, path);
    }
    ValueWriter[] children = new ValueWriter[fields.length];
    for (int i = 0; i < fields.length; i++) {
      FieldVector c = (FieldVector) v.getChildByOrdinal(i);
      if (!c.getName().equals(fields[i].name())) {
        throw cannot(v, t, path);
      }
      children[i] = writer(c, fields[i].dataType(), path + "." + fields[i].name());
    }
    int n = fields.length;
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        InternalRow row = src.getStruct(ord, n);
        v.setIndexDefined(index);
        for (int i = 0; i < n; i++) {
          children[i].write(row, i, index);
        }
      }
    };
  }

  private static ValueWriter list(FieldVector v, ArrayType t, String path) {
    return list(v, writer(items(v), t.elementType(), path + "[]"), path);
  }

  private static FieldVector items(FieldVector v) {
    return v instanceof ListVector
        ? ((ListVector) v).getDataVector()
        : v instanceof LargeListVector
            ? ((LargeListVector) v).getDataVector()
            : ((FixedSizeListVector) v).getDataVector();
  }

  private static ValueWriter list(FieldVector v, ValueWriter items, String path) {
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        ArrayData a = src.getArray(ord);
        int n = a.numElements();
        long at = beginList(v, index, n, this);
        for (int k = 0; k < n; k++) {
          items.write(a, k, Math.toIntExact(at + k));
        }
        endList(v, index, n);
      }
    };
  }

  /** Starts list {@code index} of {@code n} items and returns the position of its first item. */
  static long beginList(FieldVector v, int index, int n, ValueWriter w) {
    if (v instanceof ListVector) {
      return ((ListVector) v).startNewValue(index);
    } else if (v instanceof LargeListVector) {
      return ((LargeListVector) v).startNewValue(index);
    }
    FixedSizeListVector f = (FixedSizeListVector) v;
    if (n != f.getListSize()) {
      throw w.outOfRange("of " + n + " items");
    }
    return f.startNewValue(index);
  }

  static void endList(FieldVector v, int index, int n) {
    if (v instanceof ListVector) {
      ((ListVector) v).endValue(index, n);
    } else if (v instanceof LargeListVector) {
      ((LargeListVector) v).endValue(index, n);
    }
  }

  private static ValueWriter map(MapVector v, MapType t, String path) {
    StructVector entries = (StructVector) v.getDataVector();
    ValueWriter keys =
        writer((FieldVector) entries.getChildByOrdinal(0), t.keyType(), path + ".key");
    ValueWriter values =
        writer((FieldVector) entries.getChildByOrdinal(1), t.valueType(), path + ".value");
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        MapData m = src.getMap(ord);
        ArrayData k = m.keyArray();
        ArrayData val = m.valueArray();
        int n = m.numElements();
        int at = v.startNewValue(index);
        for (int j = 0; j < n; j++) {
          entries.setIndexDefined(at + j);
          keys.write(k, j, at + j);
          values.write(val, j, at + j);
        }
        v.endValue(index, n);
      }
    };
  }

  /**
   * Spark ML vectors into the struct {@link SparkTypes} gives them (Spark's own: type, size,
   * indices, values), field by field, so sparse vectors stay sparse; values are narrowed to float32
   * only where the dataset holds float32 (the write option {@code vectorFloat32}).
   */
  private static ValueWriter mlVectorStruct(StructVector v, UserDefinedType<?> u, String path) {
    StructType sql = (StructType) u.sqlType();
    StructField[] fields = sql.fields();
    if (fields.length != v.getChildrenFromFields().size()) {
      throw cannot(v, u, path);
    }
    ValueWriter[] children = new ValueWriter[fields.length];
    for (int i = 0; i < fields.length; i++) {
      FieldVector c = (FieldVector) v.getChildByOrdinal(i);
      String p = path + "." + fields[i].name();
      if (!c.getName().equals(fields[i].name())) {
        throw cannot(v, u, path);
      }
      children[i] =
          c instanceof ListVector && items(c) instanceof Float4Vector f
              ? list(c, narrowed(f, p + "[]"), p)
              : writer(c, fields[i].dataType(), p);
    }
    int n = fields.length;
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        InternalRow row = src.getStruct(ord, n);
        v.setIndexDefined(index);
        for (int i = 0; i < n; i++) {
          children[i].write(row, i, index);
        }
      }
    };
  }

  /** Spark doubles as float32: vector values where the dataset holds float32, as asked. */
  private static ValueWriter narrowed(Float4Vector f, String path) {
    return new ValueWriter(f, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        f.setSafe(index, (float) src.getDouble(ord));
      }
    };
  }

  /**
   * Spark ML vectors into a dataset written before vectors were stored as structs: dense arrays of
   * double, or of float where the dataset holds float32.
   */
  private static ValueWriter mlVector(FieldVector v, String path) {
    if (!(v instanceof ListVector
        || v instanceof LargeListVector
        || v instanceof FixedSizeListVector)) {
      throw new IllegalArgumentException(
          "column '"
              + path
              + "' is an ML vector but "
              + v.getField().getType()
              + " in the dataset");
    }
    FieldVector items = items(v);
    if (!(items instanceof Float4Vector) && !(items instanceof Float8Vector)) {
      throw new IllegalArgumentException(
          "column '" + path + "' is an ML vector but its items are " + items.getField().getType());
    }
    Float4Vector f = items instanceof Float4Vector f4 ? f4 : null;
    Float8Vector d = items instanceof Float8Vector f8 ? f8 : null;
    return new ValueWriter(v, path) {
      private void put(long at, double x) {
        if (f != null) {
          f.setSafe(Math.toIntExact(at), (float) x);
        } else {
          d.setSafe(Math.toIntExact(at), x);
        }
      }

      @Override
      void set(SpecializedGetters src, int ord, int index) {
        InternalRow vec = src.getStruct(ord, 4);
        ArrayData values = vec.getArray(3);
        boolean dense = vec.getByte(0) == 1;
        int n = dense ? values.numElements() : vec.getInt(1);
        long at = beginList(v, index, n, this);
        if (dense) {
          for (int k = 0; k < n; k++) {
            put(at + k, values.getDouble(k));
          }
        } else {
          for (int k = 0; k < n; k++) {
            put(at + k, 0);
          }
          ArrayData indices = vec.getArray(2);
          for (int k = 0; k < indices.numElements(); k++) {
            put(at + indices.getInt(k), values.getDouble(k));
          }
        }
        endList(v, index, n);
      }
    };
  }

  private static ValueWriter integer(FieldVector v, DataType t, String path) {
    ArrowType.Int it = (ArrowType.Int) v.getField().getType();
    BaseIntVector iv = (BaseIntVector) v;
    int bits = it.getBitWidth();
    boolean signed = it.getIsSigned();
    BigInteger max =
        signed
            ? BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE)
            : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
    BigInteger min = signed ? BigInteger.ONE.shiftLeft(bits - 1).negate() : BigInteger.ZERO;
    long lo = min.longValue();
    long hi = max.bitLength() > 63 ? Long.MAX_VALUE : max.longValue();
    if (t instanceof DecimalType && ((DecimalType) t).scale() == 0) {
      // uint64 reads as decimal(20,0); write it back the same way.
      DecimalType d = (DecimalType) t;
      return new ValueWriter(v, path) {
        @Override
        void set(SpecializedGetters src, int ord, int index) {
          BigInteger x = src.getDecimal(ord, d.precision(), 0).toJavaBigDecimal().toBigInteger();
          if (x.compareTo(min) < 0 || x.compareTo(max) > 0) {
            throw outOfRange(x);
          }
          ensure(v, index);
          iv.setWithPossibleTruncate(index, x.longValue());
        }
      };
    }
    if (!(t instanceof ByteType
        || t instanceof ShortType
        || t instanceof IntegerType
        || t instanceof LongType)) {
      throw cannot(v, t, path);
    }
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        long x =
            t instanceof ByteType
                ? src.getByte(ord)
                : t instanceof ShortType
                    ? src.getShort(ord)
                    : t instanceof IntegerType ? src.getInt(ord) : src.getLong(ord);
        if (x < lo || x > hi) {
          throw outOfRange(x);
        }
        ensure(v, index);
        iv.setWithPossibleTruncate(index, x);
      }
    };
  }

  /** Grows a fixed-width vector until it holds {@code index} (the non-"safe" setters do not). */
  static void ensure(FieldVector v, int index) {
    while (index >= v.getValueCapacity()) {
      v.reAlloc();
    }
  }

  private static ValueWriter floating(FieldVector v, DataType t, String path) {
    FloatingPointPrecision p = ((ArrowType.FloatingPoint) v.getField().getType()).getPrecision();
    if (p == FloatingPointPrecision.DOUBLE && t instanceof DoubleType) {
      Float8Vector f = (Float8Vector) v;
      return new ValueWriter(v, path) {
        @Override
        void set(SpecializedGetters src, int ord, int index) {
          f.setSafe(index, src.getDouble(ord));
        }
      };
    }
    if (p == FloatingPointPrecision.SINGLE && t instanceof FloatType) {
      Float4Vector f = (Float4Vector) v;
      return new ValueWriter(v, path) {
        @Override
        void set(SpecializedGetters src, int ord, int index) {
          f.setSafe(index, src.getFloat(ord));
        }
      };
    }
    if (p == FloatingPointPrecision.HALF && t instanceof FloatType) {
      Float2Vector f = (Float2Vector) v;
      return new ValueWriter(v, path) {
        @Override
        void set(SpecializedGetters src, int ord, int index) {
          f.setSafeWithPossibleTruncate(index, src.getFloat(ord));
        }
      };
    }
    throw cannot(v, t, path);
  }

  /** Decimals from Spark decimals, or from strings when {@code t} is null. */
  private static ValueWriter decimal(FieldVector v, DecimalType t, String path) {
    ArrowType.Decimal d = (ArrowType.Decimal) v.getField().getType();
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        BigDecimal x;
        if (t == null) {
          try {
            x = new BigDecimal(src.getUTF8String(ord).toString());
          } catch (NumberFormatException e) {
            throw outOfRange("'" + src.getUTF8String(ord) + "'");
          }
        } else {
          x = src.getDecimal(ord, t.precision(), t.scale()).toJavaBigDecimal();
        }
        BigDecimal scaled;
        try {
          scaled = x.setScale(d.getScale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
          throw outOfRange(x);
        }
        if (scaled.precision() > d.getPrecision()) {
          throw outOfRange(x);
        }
        if (v instanceof DecimalVector) {
          ((DecimalVector) v).setSafe(index, scaled);
        } else {
          ((Decimal256Vector) v).setSafe(index, scaled);
        }
      }
    };
  }

  private static ValueWriter bytes(FieldVector v, String path, boolean text) {
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        byte[] b = text ? src.getUTF8String(ord).getBytes() : src.getBinary(ord);
        if (v instanceof BaseVariableWidthVector) {
          ((BaseVariableWidthVector) v).setSafe(index, b);
        } else if (v instanceof BaseLargeVariableWidthVector) {
          ((BaseLargeVariableWidthVector) v).setSafe(index, b);
        } else {
          FixedSizeBinaryVector f = (FixedSizeBinaryVector) v;
          if (b.length != f.getByteWidth()) {
            throw outOfRange("of " + b.length + " bytes");
          }
          f.setSafe(index, b);
        }
      }
    };
  }

  private static ValueWriter date(FieldVector v, String path) {
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        int days = src.getInt(ord);
        if (v instanceof DateDayVector) {
          ((DateDayVector) v).setSafe(index, days);
        } else {
          ((DateMilliVector) v).setSafe(index, days * 86_400_000L);
        }
      }
    };
  }

  /** Times from nanoseconds of the day (Spark's TIME, or the long a Riffle time reads as). */
  private static ValueWriter time(FieldVector v, String path) {
    return new ValueWriter(v, path) {
      @Override
      void set(SpecializedGetters src, int ord, int index) {
        long nanos = src.getLong(ord);
        if (v instanceof TimeNanoVector) {
          ((TimeNanoVector) v).setSafe(index, nanos);
        } else if (v instanceof TimeMicroVector) {
          ((TimeMicroVector) v).setSafe(index, Math.floorDiv(nanos, 1_000L));
        } else if (v instanceof TimeMilliVector) {
          ((TimeMilliVector) v).setSafe(index, (int) Math.floorDiv(nanos, 1_000_000L));
        } else {
          ((TimeSecVector) v).setSafe(index, (int) Math.floorDiv(nanos, 1_000_000_000L));
        }
      }
    };
  }
}
