package dev.riffle.format.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** One schema to round-trip, covering a type family and the layouts it leads to. */
public final class TypeCase {
  public final String name;
  public final Schema schema;
  public final List<List<String>> groups;
  public final int severalPagesRows;

  public TypeCase(String name, Schema schema, List<List<String>> groups, int severalPagesRows) {
    this.name = name;
    this.schema = schema;
    this.groups = groups;
    this.severalPagesRows = severalPagesRows;
  }

  @Override
  public String toString() {
    return name;
  }

  public static Field f(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), Arrays.asList(children));
  }

  public static Field notNull(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.notNullable(type), Arrays.asList(children));
  }

  public static TypeCase single(Field field, int rows) {
    return new TypeCase(
        field.getName() + ":" + field.getType(), new Schema(List.of(field)), List.of(), rows);
  }

  public static List<TypeCase> all() {
    List<TypeCase> c = new ArrayList<>();
    ArrowType utf8 = ArrowType.Utf8.INSTANCE;
    ArrowType f32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    int narrow = 3000;
    c.add(single(f("bool", ArrowType.Bool.INSTANCE), 40000));
    for (int bits : new int[] {8, 16, 32, 64}) {
      c.add(single(f("i" + bits, new ArrowType.Int(bits, true)), narrow));
      c.add(single(f("u" + bits, new ArrowType.Int(bits, false)), narrow));
    }
    c.add(single(f("small_i64", new ArrowType.Int(64, true)), 20000));
    c.add(single(f("small_u32", new ArrowType.Int(32, false)), 20000));
    for (FloatingPointPrecision p : FloatingPointPrecision.values()) {
      c.add(single(f("float_" + p, new ArrowType.FloatingPoint(p)), narrow));
    }
    c.add(single(f("dec128", new ArrowType.Decimal(38, 5, 128)), narrow));
    c.add(single(f("dec256", new ArrowType.Decimal(60, 2, 256)), narrow));
    c.add(single(f("date32", new ArrowType.Date(DateUnit.DAY)), narrow));
    c.add(single(f("date64", new ArrowType.Date(DateUnit.MILLISECOND)), narrow));
    c.add(single(f("time32", new ArrowType.Time(TimeUnit.MILLISECOND, 32)), narrow));
    c.add(single(f("time64", new ArrowType.Time(TimeUnit.NANOSECOND, 64)), narrow));
    c.add(single(f("ts_utc", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), narrow));
    c.add(single(f("ts_naive", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)), narrow));
    c.add(
        single(f("ts_berlin", new ArrowType.Timestamp(TimeUnit.SECOND, "Europe/Berlin")), narrow));
    c.add(single(f("duration", new ArrowType.Duration(TimeUnit.MILLISECOND)), narrow));
    c.add(single(f("utf8", utf8), narrow));
    c.add(single(f("large_utf8", ArrowType.LargeUtf8.INSTANCE), narrow));
    c.add(single(f("binary", ArrowType.Binary.INSTANCE), narrow));
    c.add(single(f("large_binary", ArrowType.LargeBinary.INSTANCE), narrow));
    c.add(single(f("long_utf8", utf8), 60));
    c.add(single(f("zstd_binary", ArrowType.Binary.INSTANCE), 60));
    c.add(single(f("fsb16", new ArrowType.FixedSizeBinary(16)), narrow));
    c.add(single(f("fsb100", new ArrowType.FixedSizeBinary(100)), narrow));
    c.add(single(f("fsb5000", new ArrowType.FixedSizeBinary(5000)), 40));
    c.add(single(f("vec4", new ArrowType.FixedSizeList(4), notNull("item", f32)), narrow));
    c.add(single(f("vec768", new ArrowType.FixedSizeList(768), notNull("item", f32)), 40));
    c.add(
        single(
            f(
                "vec3_nullable_items",
                new ArrowType.FixedSizeList(3),
                f("item", new ArrowType.Int(32, true))),
            narrow));
    c.add(
        single(
            f("list_i64", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(64, true))),
            narrow));
    c.add(single(f("list_notnull_f32", ArrowType.List.INSTANCE, notNull("item", f32)), narrow));
    c.add(single(f("large_list_utf8", ArrowType.LargeList.INSTANCE, f("item", utf8)), narrow));
    c.add(
        single(
            f(
                "list_list_i16",
                ArrowType.List.INSTANCE,
                f("inner", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(16, true)))),
            narrow));
    c.add(
        single(
            f(
                "list3_bool",
                ArrowType.List.INSTANCE,
                f(
                    "l2",
                    ArrowType.List.INSTANCE,
                    f("l3", ArrowType.List.INSTANCE, f("item", ArrowType.Bool.INSTANCE)))),
            narrow));
    c.add(
        single(f("list_long_utf8", ArrowType.List.INSTANCE, f("item", utf8)), 60)
            .renamed("long_list_utf8"));
    c.add(
        single(
            f(
                "struct",
                ArrowType.Struct.INSTANCE,
                f("a", new ArrowType.Int(32, true)),
                notNull("b", utf8),
                f(
                    "c",
                    ArrowType.Struct.INSTANCE,
                    f(
                        "d",
                        ArrowType.List.INSTANCE,
                        f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))),
            narrow));
    c.add(
        single(
            f(
                "list_struct",
                ArrowType.List.INSTANCE,
                f(
                    "item",
                    ArrowType.Struct.INSTANCE,
                    f("x", new ArrowType.Int(8, true)),
                    f("y", utf8))),
            narrow));
    c.add(
        single(
            f(
                "map",
                new ArrowType.Map(false),
                notNull(
                    "entries",
                    ArrowType.Struct.INSTANCE,
                    notNull("key", utf8),
                    f("value", new ArrowType.Int(32, true)))),
            narrow));
    c.add(
        single(
            f(
                "list_vec",
                ArrowType.List.INSTANCE,
                notNull("item", new ArrowType.FixedSizeList(768), notNull("v", f32))),
            30));
    // Dictionary-encoded categoricals, alone and beside other columns.
    DictionaryEncoding enc = new DictionaryEncoding(7, false, new ArrowType.Int(16, true));
    Field cat = new Field("category", new FieldType(true, new ArrowType.Int(16, true), enc), null);
    c.add(
        new TypeCase(
            "dictionary",
            new Schema(List.of(cat, f("id", new ArrowType.Int(64, false)))),
            List.of(),
            narrow));
    // Column groups: five scalars; a sparse row (indices + values); a group of wide values.
    c.add(
        new TypeCase(
            "group5",
            new Schema(
                List.of(
                    f("g_a", new ArrowType.Int(64, false)),
                    notNull("g_b", f32),
                    f("g_c", utf8),
                    f("g_d", ArrowType.Bool.INSTANCE),
                    f("g_e", new ArrowType.Int(16, true)),
                    f("outside", new ArrowType.Int(32, true)))),
            List.of(List.of("g_a", "g_b", "g_c", "g_d", "g_e")),
            narrow));
    c.add(
        new TypeCase(
            "sparse_group",
            new Schema(
                List.of(
                    f(
                        "indices",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.Int(32, true))),
                    f("values", ArrowType.List.INSTANCE, notNull("item", f32)))),
            List.of(List.of("indices", "values")),
            narrow));
    c.add(
        new TypeCase(
            "wide_group",
            new Schema(
                List.of(
                    f(
                        "positions",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.FixedSizeList(3), notNull("xyz", f32))),
                    f("long_text", utf8))),
            List.of(List.of("positions", "long_text")),
            60));
    c.add(
        new TypeCase(
            "metadata",
            new Schema(
                List.of(
                    new Field(
                        "m",
                        new FieldType(
                            true,
                            new ArrowType.Int(32, true),
                            null,
                            Map.of("unit", "cm", "k", "v")),
                        null)),
                Map.of("dataset", "test")),
            List.of(),
            100));
    return c;
  }

  public TypeCase renamed(String newName) {
    return new TypeCase(newName, schema, groups, severalPagesRows);
  }
}
