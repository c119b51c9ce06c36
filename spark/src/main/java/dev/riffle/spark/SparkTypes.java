package dev.riffle.spark;

import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.UnsupportedTypeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
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
 * The type mapping between Spark and Riffle, in one place (the module's README section "Type
 * mapping" lists it as a table).
 *
 * <p>Writing maps each Spark type to the Riffle (Arrow) type that holds it exactly; a Spark type
 * with no such type (intervals of months, variants, calendar intervals, nulls, geometries, user
 * types other than ML vectors, which keep Spark's own struct) is refused with an error that names
 * the column. Reading maps every Riffle type to a Spark type: the inverse where there is one,
 * otherwise the nearest type that holds every value (unsigned ints widen, uint64 becomes
 * decimal(20,0), half floats become floats, times become nanoseconds of the day, timestamps and
 * durations of other units become microseconds, decimals wider than 38 digits become strings).
 * Categorical (dictionary-encoded) columns are read as their values, decoded.
 */
public final class SparkTypes {
  private SparkTypes() {}

  /** Spark's widest decimal. */
  static final int MAX_SPARK_PRECISION = 38;

  /**
   * The fields Arrow uses for list items and map entries, as Spark's own Arrow export names them.
   */
  static final String ELEMENT = "element";

  static final String ENTRIES = "entries";
  static final String KEY = "key";
  static final String VALUE = "value";

  /** The classes of Spark ML's vector types (spark-mllib, known here by name only). */
  static boolean isMlVector(DataType t) {
    if (!(t instanceof UserDefinedType)) {
      return false;
    }
    String name = t.getClass().getName();
    return name.equals("org.apache.spark.ml.linalg.VectorUDT")
        || name.equals("org.apache.spark.mllib.linalg.VectorUDT");
  }

  // ---------------------------------------------------------------- Riffle -> Spark

  /** The Spark schema a dataset reads as: one column per top-level field, in order. */
  public static StructType toSpark(RiffleSchema schema) {
    List<StructField> out = new ArrayList<>();
    List<Field> fields = schema.fields();
    for (int f = 0; f < fields.size(); f++) {
      Field field = fields.get(f);
      Field values = schema.isDictionary(f) ? schema.dictionaryValues(f) : field;
      String json = field.getMetadata() == null ? null : field.getMetadata().get(METADATA);
      out.add(
          new StructField(
              field.getName(),
              toSpark(values, field.getName()),
              field.isNullable(),
              json == null
                  ? org.apache.spark.sql.types.Metadata.empty()
                  : org.apache.spark.sql.types.Metadata.fromJson(json)));
    }
    return new StructType(out.toArray(new StructField[0]));
  }

  /**
   * The key of a top-level Arrow field's metadata that holds the Spark column's metadata (JSON), as
   * ML stages leave it ({@code ml_attr} of {@code StringIndexer}, which {@code IndexToString} reads
   * back): kept in the dataset's schema and returned on read.
   */
  static final String METADATA = "spark.metadata";

  /**
   * The key of a struct field's metadata that holds the JSON of the Spark user-defined type (an ML
   * vector) it stores: the struct is the type's own {@code sqlType}, so reading rebuilds the type
   * from the JSON ({@link DataType#fromJson}) and Spark's rows fit it unchanged. Where the type's
   * class is not on the reader's class path (no spark-mllib), the column reads as the plain struct.
   */
  static final String UDT = "spark.udt";

  /** The Spark type of a (non-dictionary) Arrow field. */
  static DataType toSpark(Field field, String path) {
    DataType t = toSparkSql(field, path);
    String udt = field.getMetadata() == null ? null : field.getMetadata().get(UDT);
    if (udt != null && t instanceof StructType) {
      try {
        DataType u = DataType.fromJson(udt);
        if (u instanceof UserDefinedType<?> ud && structMatches(ud.sqlType(), (StructType) t)) {
          return u;
        }
      } catch (Exception | LinkageError e) {
        // The type's class is missing here (e.g. no spark-mllib; Scala rethrows the checked
        // ClassNotFoundException undeclared): the struct is still every value.
      }
    }
    return t;
  }

  /**
   * Whether a stored struct reads as the type's SQL struct: the same field names, with values of
   * float32 where the type has float64 (the write option {@code vectorFloat32}); they widen
   * exactly.
   */
  private static boolean structMatches(DataType sql, StructType stored) {
    if (!(sql instanceof StructType s) || s.fields().length != stored.fields().length) {
      return false;
    }
    for (int i = 0; i < s.fields().length; i++) {
      if (!s.fields()[i].name().equals(stored.fields()[i].name())) {
        return false;
      }
    }
    return true;
  }

  private static DataType toSparkSql(Field field, String path) {
    ArrowType t = field.getType();
    switch (t.getTypeID()) {
      case Bool:
        return DataTypes.BooleanType;
      case Int:
        {
          ArrowType.Int i = (ArrowType.Int) t;
          int bits = i.getBitWidth() + (i.getIsSigned() ? 0 : 1);
          if (bits <= 8) {
            return DataTypes.ByteType;
          } else if (bits <= 16) {
            return DataTypes.ShortType;
          } else if (bits <= 32) {
            return DataTypes.IntegerType;
          } else if (bits <= 64) {
            return DataTypes.LongType;
          }
          return DataTypes.createDecimalType(20, 0);
        }
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.DOUBLE
            ? DataTypes.DoubleType
            : DataTypes.FloatType;
      case Decimal:
        {
          ArrowType.Decimal d = (ArrowType.Decimal) t;
          return d.getPrecision() <= MAX_SPARK_PRECISION
              ? DataTypes.createDecimalType(d.getPrecision(), d.getScale())
              : DataTypes.StringType;
        }
      case Utf8:
      case LargeUtf8:
        return DataTypes.StringType;
      case Binary:
      case LargeBinary:
      case FixedSizeBinary:
        return DataTypes.BinaryType;
      case Date:
        return DataTypes.DateType;
      case Timestamp:
        return ((ArrowType.Timestamp) t).getTimezone() == null
            ? DataTypes.TimestampNTZType
            : DataTypes.TimestampType;
      case Time:
        return DataTypes.LongType;
      case Duration:
        return DataTypes.createDayTimeIntervalType();
      case List:
      case LargeList:
      case FixedSizeList:
        {
          Field item = field.getChildren().get(0);
          return DataTypes.createArrayType(
              toSpark(item, path + "." + item.getName()), item.isNullable());
        }
      case Struct:
        {
          List<StructField> children = new ArrayList<>();
          for (Field c : field.getChildren()) {
            children.add(
                DataTypes.createStructField(
                    c.getName(), toSpark(c, path + "." + c.getName()), c.isNullable()));
          }
          return DataTypes.createStructType(children);
        }
      case Map:
        {
          Field entries = field.getChildren().get(0);
          Field key = entries.getChildren().get(0);
          Field value = entries.getChildren().get(1);
          return DataTypes.createMapType(
              toSpark(key, path + ".key"), toSpark(value, path + ".value"), value.isNullable());
        }
      default:
        // Unreachable for a schema the reader accepted (TypeSupport checks the same list).
        throw new UnsupportedTypeException(path, t.toString(), "no Spark type reads it");
    }
  }

  // ---------------------------------------------------------------- Spark -> Riffle

  /**
   * The Arrow schema a Spark schema is written with.
   *
   * @throws UnsupportedTypeException naming the first column (dotted path) Riffle cannot hold
   */
  public static Schema toArrow(StructType schema) {
    return toArrow(schema, false);
  }

  /**
   * The Arrow schema a Spark schema is written with; ML vectors hold float64 (Spark's own values)
   * unless {@code float32Vectors} (the write option {@code vectorFloat32}) halves them.
   */
  public static Schema toArrow(StructType schema, boolean float32Vectors) {
    List<Field> fields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      Field a = toArrow(f.name(), f.dataType(), f.nullable(), f.name(), float32Vectors);
      String json = f.metadata().json();
      if (!json.equals("{}")) {
        Map<String, String> m =
            new java.util.TreeMap<>(a.getMetadata() == null ? Map.of() : a.getMetadata());
        m.put(METADATA, json);
        a =
            new Field(
                a.getName(),
                new FieldType(a.isNullable(), a.getType(), a.getDictionary(), m),
                a.getChildren());
      }
      fields.add(a);
    }
    return new Schema(fields);
  }

  static Field toArrow(String name, DataType t, boolean nullable, String path, boolean f32) {
    if (isMlVector(t)) {
      return mlVector(name, (UserDefinedType<?>) t, nullable, path, f32);
    }
    if (t instanceof StructType) {
      List<Field> children = new ArrayList<>();
      for (StructField c : ((StructType) t).fields()) {
        children.add(toArrow(c.name(), c.dataType(), c.nullable(), path + "." + c.name(), f32));
      }
      if (children.isEmpty()) {
        throw new UnsupportedTypeException(path, t.simpleString(), "a struct needs a field");
      }
      return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
    }
    if (t instanceof ArrayType) {
      ArrayType a = (ArrayType) t;
      return list(
          name, nullable, toArrow(ELEMENT, a.elementType(), a.containsNull(), path + "[]", f32));
    }
    if (t instanceof MapType) {
      MapType m = (MapType) t;
      Field key = toArrow(KEY, m.keyType(), false, path + ".key", f32);
      Field value = toArrow(VALUE, m.valueType(), m.valueContainsNull(), path + ".value", f32);
      Field entries =
          new Field(
              ENTRIES, new FieldType(false, ArrowType.Struct.INSTANCE, null), List.of(key, value));
      return new Field(
          name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
    }
    return leaf(name, leafType(t, path), nullable);
  }

  /**
   * An ML vector as the struct Spark itself stores it in (its {@code sqlType}: type 0 sparse or 1
   * dense, size, indices, values): a sparse vector keeps only its entries (sorted int32 indices and
   * their float64 values, as the {@code indices}/{@code values} lists of a converted sparse
   * matrix), a dense one its values, both exactly. The struct's fields are stored row-major in one
   * column, as a column group's are. The type's JSON in the field's metadata makes it read back as
   * vectors.
   */
  private static Field mlVector(
      String name, UserDefinedType<?> u, boolean nullable, String path, boolean f32) {
    Field sql = toArrow(name, u.sqlType(), nullable, path, false);
    List<Field> children = new ArrayList<>();
    for (Field c : sql.getChildren()) {
      if (f32 && c.getName().equals("values")) {
        // Values narrowed to float32 when asked; indices and sizes stay exact.
        Field item = c.getChildren().get(0);
        c =
            list(
                c.getName(),
                c.isNullable(),
                leaf(
                    item.getName(),
                    new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
                    item.isNullable()));
      }
      children.add(c);
    }
    return new Field(
        name,
        new FieldType(nullable, ArrowType.Struct.INSTANCE, null, Map.of(UDT, u.json())),
        children);
  }

  private static ArrowType leafType(DataType t, String path) {
    if (t instanceof BooleanType) {
      return ArrowType.Bool.INSTANCE;
    } else if (t instanceof ByteType) {
      return new ArrowType.Int(8, true);
    } else if (t instanceof ShortType) {
      return new ArrowType.Int(16, true);
    } else if (t instanceof IntegerType) {
      return new ArrowType.Int(32, true);
    } else if (t instanceof LongType) {
      return new ArrowType.Int(64, true);
    } else if (t instanceof FloatType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    } else if (t instanceof DoubleType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    } else if (t instanceof DecimalType) {
      DecimalType d = (DecimalType) t;
      return new ArrowType.Decimal(d.precision(), d.scale(), 128);
    } else if (t instanceof StringType || t instanceof CharType || t instanceof VarcharType) {
      return ArrowType.Utf8.INSTANCE;
    } else if (t instanceof BinaryType) {
      return ArrowType.Binary.INSTANCE;
    } else if (t instanceof DateType) {
      return new ArrowType.Date(DateUnit.DAY);
    } else if (t instanceof TimestampType) {
      // Spark timestamps are instants (UTC microseconds); the zone only labels them.
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
    } else if (t instanceof TimestampNTZType) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    } else if (t instanceof DayTimeIntervalType) {
      return new ArrowType.Duration(TimeUnit.MICROSECOND);
    } else if (t instanceof TimeType) {
      return new ArrowType.Time(TimeUnit.NANOSECOND, 64);
    }
    if (t instanceof UserDefinedType) {
      UserDefinedType<?> u = (UserDefinedType<?>) t;
      throw new UnsupportedTypeException(
          path,
          "user-defined " + u.getClass().getName(),
          "only Spark ML vectors among user-defined types have a Riffle equivalent; convert the"
              + " column to its SQL type ("
              + u.sqlType().simpleString()
              + ") before writing");
    }
    throw new UnsupportedTypeException(
        path,
        t.simpleString(),
        "Spark type "
            + t.simpleString()
            + " has no Riffle equivalent; cast the column (e.g. to string) before writing");
  }

  private static Field leaf(String name, ArrowType type, boolean nullable) {
    return new Field(name, new FieldType(nullable, type, null), null);
  }

  private static Field list(String name, boolean nullable, Field item) {
    return new Field(name, new FieldType(nullable, ArrowType.List.INSTANCE, null), List.of(item));
  }
}
