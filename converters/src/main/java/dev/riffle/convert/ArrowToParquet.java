package dev.riffle.convert;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Maps an Arrow schema to the Parquet schema an export writes: the inverse of {@link
 * ParquetSchemas}, including the annotations it kept in field metadata. Lists are written in the
 * standard three-level form. Arrow types Parquet lacks are widened: durations to INT64, fixed-size
 * lists to lists, large strings, binaries and lists to their plain forms, date64 to DATE.
 */
final class ArrowToParquet {
  private ArrowToParquet() {}

  static MessageType schema(Schema arrow) {
    List<Type> fields = new ArrayList<>();
    for (Field f : arrow.getFields()) {
      fields.add(type(f, f.getName()));
    }
    return new MessageType("riffle", fields);
  }

  private static Type.Repetition repetition(Field f) {
    return f.isNullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
  }

  private static Type type(Field f, String name) {
    ArrowType t = f.getType();
    Type.Repetition rep = repetition(f);
    switch (t.getTypeID()) {
      case List:
      case LargeList:
      case FixedSizeList:
        return Types.buildGroup(rep)
            .as(LogicalTypeAnnotation.listType())
            .addField(
                Types.repeatedGroup()
                    .addField(type(f.getChildren().get(0), "element"))
                    .named("list"))
            .named(name);
      case Map:
        Field entries = f.getChildren().get(0);
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        return Types.buildGroup(rep)
            .as(LogicalTypeAnnotation.mapType())
            .addField(
                Types.repeatedGroup()
                    .addField(
                        type(
                            new Field(
                                key.getName(),
                                new org.apache.arrow.vector.types.pojo.FieldType(
                                    false, key.getType(), null, key.getMetadata()),
                                key.getChildren()),
                            "key"))
                    .addField(type(value, "value"))
                    .named("key_value"))
            .named(name);
      case Struct:
        List<Type> children = new ArrayList<>();
        for (Field c : f.getChildren()) {
          children.add(type(c, c.getName()));
        }
        return new GroupType(rep, name, children);
      default:
        return primitive(f, name, rep);
    }
  }

  private static Type primitive(Field f, String name, Type.Repetition rep) {
    ArrowType t = f.getType();
    String logical = f.getMetadata().get(ParquetSchemas.LOGICAL);
    String physical = f.getMetadata().get(ParquetSchemas.PHYSICAL);
    switch (t.getTypeID()) {
      case Bool:
        return Types.primitive(PrimitiveTypeName.BOOLEAN, rep).named(name);
      case Int:
        ArrowType.Int i = (ArrowType.Int) t;
        PrimitiveTypeName p =
            i.getBitWidth() == 64 ? PrimitiveTypeName.INT64 : PrimitiveTypeName.INT32;
        if (i.getIsSigned() && (i.getBitWidth() == 32 || i.getBitWidth() == 64)) {
          return Types.primitive(p, rep).named(name);
        }
        return Types.primitive(p, rep)
            .as(LogicalTypeAnnotation.intType(i.getBitWidth(), i.getIsSigned()))
            .named(name);
      case FloatingPoint:
        FloatingPointPrecision fp = ((ArrowType.FloatingPoint) t).getPrecision();
        if (fp == FloatingPointPrecision.HALF) {
          return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep)
              .length(2)
              .as(LogicalTypeAnnotation.float16Type())
              .named(name);
        }
        return Types.primitive(
                fp == FloatingPointPrecision.SINGLE
                    ? PrimitiveTypeName.FLOAT
                    : PrimitiveTypeName.DOUBLE,
                rep)
            .named(name);
      case Decimal:
        ArrowType.Decimal d = (ArrowType.Decimal) t;
        LogicalTypeAnnotation dec =
            LogicalTypeAnnotation.decimalType(d.getScale(), d.getPrecision());
        if ("INT32".equals(physical)) {
          return Types.primitive(PrimitiveTypeName.INT32, rep).as(dec).named(name);
        }
        if ("INT64".equals(physical)) {
          return Types.primitive(PrimitiveTypeName.INT64, rep).as(dec).named(name);
        }
        if ("BINARY".equals(physical)) {
          return Types.primitive(PrimitiveTypeName.BINARY, rep).as(dec).named(name);
        }
        return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep)
            .length(decimalBytes(d.getPrecision(), physical))
            .as(dec)
            .named(name);
      case Date:
        return Types.primitive(PrimitiveTypeName.INT32, rep)
            .as(LogicalTypeAnnotation.dateType())
            .named(name);
      case Time:
        ArrowType.Time tm = (ArrowType.Time) t;
        return Types.primitive(
                tm.getBitWidth() == 32 ? PrimitiveTypeName.INT32 : PrimitiveTypeName.INT64, rep)
            .as(LogicalTypeAnnotation.timeType(!"TIME_LOCAL".equals(logical), unit(tm.getUnit())))
            .named(name);
      case Timestamp:
        ArrowType.Timestamp ts = (ArrowType.Timestamp) t;
        if ("INT96".equals(physical)) {
          return Types.primitive(PrimitiveTypeName.INT96, rep).named(name);
        }
        if (ts.getUnit() == org.apache.arrow.vector.types.TimeUnit.SECOND) {
          // Parquet has no seconds: written as milliseconds.
          return Types.primitive(PrimitiveTypeName.INT64, rep)
              .as(
                  LogicalTypeAnnotation.timestampType(
                      ts.getTimezone() != null, LogicalTypeAnnotation.TimeUnit.MILLIS))
              .named(name);
        }
        return Types.primitive(PrimitiveTypeName.INT64, rep)
            .as(LogicalTypeAnnotation.timestampType(ts.getTimezone() != null, unit(ts.getUnit())))
            .named(name);
      case Duration:
        return Types.primitive(PrimitiveTypeName.INT64, rep).named(name);
      case Utf8:
      case LargeUtf8:
        LogicalTypeAnnotation s =
            "JSON".equals(logical)
                ? LogicalTypeAnnotation.jsonType()
                : "ENUM".equals(logical)
                    ? LogicalTypeAnnotation.enumType()
                    : LogicalTypeAnnotation.stringType();
        return Types.primitive(PrimitiveTypeName.BINARY, rep).as(s).named(name);
      case Binary:
      case LargeBinary:
        return "BSON".equals(logical)
            ? Types.primitive(PrimitiveTypeName.BINARY, rep)
                .as(LogicalTypeAnnotation.bsonType())
                .named(name)
            : Types.primitive(PrimitiveTypeName.BINARY, rep).named(name);
      case FixedSizeBinary:
        int w = ((ArrowType.FixedSizeBinary) t).getByteWidth();
        var b = Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep).length(w);
        if ("UUID".equals(logical) && w == 16) {
          return b.as(LogicalTypeAnnotation.uuidType()).named(name);
        }
        // An INTERVAL stays plain 12 bytes: parquet-java writes the INTERVAL annotation with the
        // logical type UNKNOWN, which tells readers (DuckDB) that every value is null.
        return b.named(name);
      default:
        throw new IllegalArgumentException(
            "field '" + name + "' has type " + t + ", which has no Parquet counterpart");
    }
  }

  /** The FLBA width of a decimal: the original one if known, else the least that fits. */
  private static int decimalBytes(int precision, String physical) {
    if (physical != null && physical.startsWith("FIXED_LEN_BYTE_ARRAY(")) {
      return Integer.parseInt(physical.substring(21, physical.length() - 1));
    }
    int bytes = 1;
    while (java.math.BigInteger.TEN.pow(precision).bitLength() + 1 > bytes * 8) {
      bytes++;
    }
    return bytes;
  }

  static LogicalTypeAnnotation.TimeUnit unit(org.apache.arrow.vector.types.TimeUnit u) {
    switch (u) {
      case MICROSECOND:
        return LogicalTypeAnnotation.TimeUnit.MICROS;
      case NANOSECOND:
        return LogicalTypeAnnotation.TimeUnit.NANOS;
      default:
        return LogicalTypeAnnotation.TimeUnit.MILLIS;
    }
  }
}
