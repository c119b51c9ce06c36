package dev.riffle.convert;

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
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Maps a Parquet schema to the Arrow schema Riffle stores. Where Arrow has no exact counterpart
 * (JSON, ENUM, BSON, UUID, INTERVAL, INT96, and the physical type of a decimal) the field keeps the
 * Parquet annotation in its metadata under {@link #LOGICAL}/{@link #PHYSICAL}, so that {@link
 * ArrowToParquet} writes the same Parquet type back.
 */
final class ParquetSchemas {
  private ParquetSchemas() {}

  /** Field metadata key: the Parquet logical type that Arrow cannot express. */
  static final String LOGICAL = "parquet.logical";

  /** Field metadata key: the Parquet physical type where several map to one Arrow type. */
  static final String PHYSICAL = "parquet.physical";

  /**
   * The Arrow schema of a Parquet file.
   *
   * @throws InputException naming the field, for a type Riffle cannot store
   */
  static Schema toArrow(MessageType message, String file) throws InputException {
    List<Field> fields = new ArrayList<>();
    for (Type t : message.getFields()) {
      fields.add(field(t, t.getName(), file));
    }
    return new Schema(fields);
  }

  private static Field field(Type t, String path, String file) throws InputException {
    if (t.isRepetition(Type.Repetition.REPEATED)) {
      // A repeated field outside a LIST group is a required list of required elements.
      Field element = element(t, path, file);
      return new Field(t.getName(), FieldType.notNullable(new ArrowType.List()), List.of(element));
    }
    boolean nullable = t.isRepetition(Type.Repetition.OPTIONAL);
    if (t.isPrimitive()) {
      return primitive(t.asPrimitiveType(), t.getName(), nullable, path, file);
    }
    GroupType g = t.asGroupType();
    LogicalTypeAnnotation a = g.getLogicalTypeAnnotation();
    if (a instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      Type repeated = single(g, path, file);
      Field element = listElement(g, repeated, path, file);
      return new Field(
          t.getName(), new FieldType(nullable, new ArrowType.List(), null), List.of(element));
    }
    if (a instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
        || a instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation) {
      Type repeated = single(g, path, file);
      if (repeated.isPrimitive() || repeated.asGroupType().getFieldCount() != 2) {
        throw new InputException(
            file, "map field '" + path + "' needs a repeated group of key and value");
      }
      GroupType kv = repeated.asGroupType();
      Field key = field(kv.getType(0), path + ".key", file);
      Field value = field(kv.getType(1), path + ".value", file);
      // Arrow's map: a non-null struct "entries" of a non-null key and a value.
      key =
          new Field(
              "key",
              new FieldType(false, key.getType(), null, key.getMetadata()),
              key.getChildren());
      value = new Field("value", value.getFieldType(), value.getChildren());
      Field entries =
          new Field(
              "entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
      return new Field(
          t.getName(), new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
    }
    if (a != null) {
      throw new InputException(
          file, "field '" + path + "' has the unsupported Parquet group type " + a);
    }
    if (g.getFieldCount() == 0) {
      throw new InputException(file, "field '" + path + "' is an empty group");
    }
    List<Field> children = new ArrayList<>();
    for (Type c : g.getFields()) {
      children.add(field(c, path + "." + c.getName(), file));
    }
    return new Field(
        t.getName(), new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
  }

  private static Type single(GroupType g, String path, String file) throws InputException {
    if (g.getFieldCount() != 1 || !g.getType(0).isRepetition(Type.Repetition.REPEATED)) {
      throw new InputException(
          file,
          "field '"
              + path
              + "' is annotated "
              + g.getLogicalTypeAnnotation()
              + " but does not hold exactly one repeated field");
    }
    return g.getType(0);
  }

  /**
   * Whether the repeated field of a LIST group is the element itself (the legacy two-level forms)
   * rather than a wrapper around it, by the backward-compatibility rules of the Parquet spec.
   */
  static boolean repeatedIsElement(GroupType list, Type repeated) {
    if (repeated.isPrimitive()) {
      return true;
    }
    GroupType r = repeated.asGroupType();
    return r.getFieldCount() != 1
        || r.getName().equals("array")
        || r.getName().equals(list.getName() + "_tuple");
  }

  private static Field listElement(GroupType list, Type repeated, String path, String file)
      throws InputException {
    if (repeatedIsElement(list, repeated)) {
      return element(repeated, path + "." + repeated.getName(), file);
    }
    Type e = repeated.asGroupType().getType(0);
    return field(e, path + "." + e.getName(), file);
  }

  /** A repeated field read as one list element: required, never null. */
  private static Field element(Type repeated, String path, String file) throws InputException {
    Type asRequired =
        repeated.isPrimitive()
            ? new PrimitiveType(
                    Type.Repetition.REQUIRED,
                    repeated.asPrimitiveType().getPrimitiveTypeName(),
                    repeated.asPrimitiveType().getTypeLength(),
                    repeated.getName())
                .withLogicalTypeAnnotation(repeated.getLogicalTypeAnnotation())
            : new GroupType(
                Type.Repetition.REQUIRED, repeated.getName(), repeated.asGroupType().getFields());
    return field(asRequired, path, file);
  }

  private static Field primitive(
      PrimitiveType p, String name, boolean nullable, String path, String file)
      throws InputException {
    LogicalTypeAnnotation a = p.getLogicalTypeAnnotation();
    ArrowType type = null;
    String logical = null;
    String physical = null;
    switch (p.getPrimitiveTypeName()) {
      case BOOLEAN:
        type = a == null ? ArrowType.Bool.INSTANCE : null;
        break;
      case INT32:
        if (a == null) {
          type = new ArrowType.Int(32, true);
        } else if (a instanceof IntLogicalTypeAnnotation) {
          IntLogicalTypeAnnotation i = (IntLogicalTypeAnnotation) a;
          type = new ArrowType.Int(i.getBitWidth(), i.isSigned());
        } else if (a instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
          type = new ArrowType.Date(DateUnit.DAY);
        } else if (a instanceof TimeLogicalTypeAnnotation) {
          type = time((TimeLogicalTypeAnnotation) a);
          logical = timeLogical((TimeLogicalTypeAnnotation) a);
        } else if (a instanceof DecimalLogicalTypeAnnotation) {
          type = decimal((DecimalLogicalTypeAnnotation) a);
          physical = "INT32";
        }
        break;
      case INT64:
        if (a == null) {
          type = new ArrowType.Int(64, true);
        } else if (a instanceof IntLogicalTypeAnnotation) {
          IntLogicalTypeAnnotation i = (IntLogicalTypeAnnotation) a;
          type = new ArrowType.Int(i.getBitWidth(), i.isSigned());
        } else if (a instanceof TimestampLogicalTypeAnnotation) {
          TimestampLogicalTypeAnnotation ts = (TimestampLogicalTypeAnnotation) a;
          type = new ArrowType.Timestamp(unit(ts.getUnit()), ts.isAdjustedToUTC() ? "UTC" : null);
        } else if (a instanceof TimeLogicalTypeAnnotation) {
          type = time((TimeLogicalTypeAnnotation) a);
          logical = timeLogical((TimeLogicalTypeAnnotation) a);
        } else if (a instanceof DecimalLogicalTypeAnnotation) {
          type = decimal((DecimalLogicalTypeAnnotation) a);
          physical = "INT64";
        }
        break;
      case INT96:
        // Legacy Impala/Spark timestamps: nanoseconds of a Julian day, no time zone.
        type = a == null ? new ArrowType.Timestamp(TimeUnit.NANOSECOND, null) : null;
        physical = "INT96";
        break;
      case FLOAT:
        type = a == null ? new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE) : null;
        break;
      case DOUBLE:
        type = a == null ? new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE) : null;
        break;
      case BINARY:
        if (a == null) {
          type = ArrowType.Binary.INSTANCE;
        } else if (a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
          type = ArrowType.Utf8.INSTANCE;
        } else if (a instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation) {
          type = ArrowType.Utf8.INSTANCE;
          logical = "ENUM";
        } else if (a instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
          type = ArrowType.Utf8.INSTANCE;
          logical = "JSON";
        } else if (a instanceof LogicalTypeAnnotation.BsonLogicalTypeAnnotation) {
          type = ArrowType.Binary.INSTANCE;
          logical = "BSON";
        } else if (a instanceof DecimalLogicalTypeAnnotation) {
          type = decimal((DecimalLogicalTypeAnnotation) a);
          physical = "BINARY";
        }
        break;
      case FIXED_LEN_BYTE_ARRAY:
        int width = p.getTypeLength();
        if (a == null) {
          type = new ArrowType.FixedSizeBinary(width);
        } else if (a instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
          type = new ArrowType.FixedSizeBinary(16);
          logical = "UUID";
        } else if (a instanceof LogicalTypeAnnotation.IntervalLogicalTypeAnnotation) {
          type = new ArrowType.FixedSizeBinary(12);
          logical = "INTERVAL";
        } else if (a instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation) {
          type = new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
        } else if (a instanceof DecimalLogicalTypeAnnotation) {
          type = decimal((DecimalLogicalTypeAnnotation) a);
          physical = "FIXED_LEN_BYTE_ARRAY(" + width + ")";
        }
        break;
      default:
        break;
    }
    if (type == null) {
      throw new InputException(
          file,
          "field '"
              + path
              + "' has the unsupported Parquet type "
              + p.getPrimitiveTypeName()
              + (a == null ? "" : " " + a));
    }
    Map<String, String> metadata = null;
    if (logical != null) {
      metadata = Map.of(LOGICAL, logical);
    } else if (physical != null) {
      metadata = Map.of(PHYSICAL, physical);
    }
    return new Field(name, new FieldType(nullable, type, null, metadata), null);
  }

  /** Arrow times carry no UTC flag: a local (not UTC-adjusted) time keeps it in metadata. */
  private static String timeLogical(TimeLogicalTypeAnnotation t) {
    return t.isAdjustedToUTC() ? null : "TIME_LOCAL";
  }

  private static ArrowType time(TimeLogicalTypeAnnotation t) {
    TimeUnit u = unit(t.getUnit());
    return new ArrowType.Time(u, u == TimeUnit.MILLISECOND ? 32 : 64);
  }

  private static ArrowType decimal(DecimalLogicalTypeAnnotation d) {
    return new ArrowType.Decimal(
        d.getPrecision(), d.getScale(), d.getPrecision() <= 38 ? 128 : 256);
  }

  static TimeUnit unit(LogicalTypeAnnotation.TimeUnit u) {
    switch (u) {
      case MILLIS:
        return TimeUnit.MILLISECOND;
      case MICROS:
        return TimeUnit.MICROSECOND;
      default:
        return TimeUnit.NANOSECOND;
    }
  }
}
