package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Datasets written by other tools hold Arrow types Spark has no exact twin for: categoricals,
 * unsigned ints, half floats, fixed-size lists (embeddings), large strings and lists, other time
 * units, fixed-size binary, 256-bit decimals. They read as the Spark types of {@link SparkTypes},
 * through the columnar path, and a Spark append writes the same values back into them.
 */
class ArrowTypesTest {
  static SparkSession spark;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    spark = LocalSpark.session();
  }

  static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  static final DictionaryEncoding COLORS =
      new DictionaryEncoding(7, false, new ArrowType.Int(8, true));

  static Field f(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), List.of(children));
  }

  static List<Field> fields(boolean categorical) {
    List<Field> out = new ArrayList<>();
    out.add(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null));
    if (categorical) {
      out.add(new Field("cat", new FieldType(true, new ArrowType.Int(8, true), COLORS), null));
    }
    out.add(f("u8", new ArrowType.Int(8, false)));
    out.add(f("u16", new ArrowType.Int(16, false)));
    out.add(f("u32", new ArrowType.Int(32, false)));
    out.add(f("u64", new ArrowType.Int(64, false)));
    out.add(f("half", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)));
    out.add(
        f(
            "emb",
            new ArrowType.FixedSizeList(3),
            new Field("item", FieldType.notNullable(F32), null)));
    out.add(f("big", ArrowType.LargeUtf8.INSTANCE));
    out.add(f("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")));
    out.add(f("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)));
    out.add(f("dms", new ArrowType.Date(DateUnit.MILLISECOND)));
    out.add(f("tm", new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
    out.add(f("dur", new ArrowType.Duration(TimeUnit.SECOND)));
    out.add(f("fsb", new ArrowType.FixedSizeBinary(2)));
    out.add(f("ll", ArrowType.LargeList.INSTANCE, f("item", new ArrowType.Int(16, false))));
    out.add(f("dec", new ArrowType.Decimal(40, 2, 256)));
    out.add(
        f(
            "st",
            ArrowType.Struct.INSTANCE,
            f("u", new ArrowType.Int(8, false)),
            f(
                "e",
                new ArrowType.FixedSizeList(2),
                new Field("item", FieldType.notNullable(F32), null))));
    out.add(
        new Field(
            "m",
            FieldType.nullable(new ArrowType.Map(false)),
            List.of(
                new Field(
                    "entries",
                    FieldType.notNullable(ArrowType.Struct.INSTANCE),
                    List.of(
                        new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                        f("value", new ArrowType.Int(32, false)))))));
    return out;
  }

  static final String SPARK_SCHEMA =
      "struct<id:bigint,cat:string,u8:smallint,u16:int,u32:bigint,u64:decimal(20,0),half:float,"
          + "emb:array<float>,big:string,ts_ms:timestamp,ts_ns:timestamp_ntz,dms:date,tm:bigint,"
          + "dur:interval day to second,fsb:binary,ll:array<int>,dec:string,"
          + "st:struct<u:smallint,e:array<float>>,m:map<string,bigint>>";

  static final String DEC = "12345678901234567890123456789012345678.91";

  /** Three rows: full, all null, full with other values (negative times among them). */
  static void write(Path where, boolean categorical) throws Exception {
    Schema schema = new Schema(fields(categorical));
    try (BufferAllocator a = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, a);
        VarCharVector colors = new VarCharVector("colors", a)) {
      colors.allocateNew();
      String[] names = {"red", "green", "blue"};
      for (int i = 0; i < names.length; i++) {
        colors.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
      }
      colors.setValueCount(3);
      DictionaryProvider provider =
          new DictionaryProvider.MapDictionaryProvider(new Dictionary(colors, COLORS));
      root.allocateNew();
      for (int r = 0; r < 3; r++) {
        ((BigIntVector) root.getVector("id")).setSafe(r, r);
        if (r == 1) {
          for (FieldVector v : root.getFieldVectors()) {
            if (!v.getName().equals("id")) {
              ValueWriters.setNull(v, r);
            }
          }
          continue;
        }
        boolean first = r == 0;
        if (categorical) {
          ((TinyIntVector) root.getVector("cat")).setSafe(r, first ? 0 : 2);
        }
        ((UInt1Vector) root.getVector("u8")).setSafe(r, first ? 255 : 1);
        ((UInt2Vector) root.getVector("u16")).setSafe(r, first ? 65535 : 2);
        ((UInt4Vector) root.getVector("u32")).setSafe(r, first ? -1 : 3);
        ((UInt8Vector) root.getVector("u64")).setSafe(r, first ? -1L : 5L);
        ((Float2Vector) root.getVector("half")).setSafeWithPossibleTruncate(r, first ? 1.5f : -2f);
        FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
        emb.setNotNull(r);
        for (int k = 0; k < 3; k++) {
          ((Float4Vector) emb.getDataVector()).setSafe(r * 3 + k, first ? k + 1 : -k);
        }
        ((LargeVarCharVector) root.getVector("big"))
            .setSafe(r, (first ? "large" : "größer").getBytes(StandardCharsets.UTF_8));
        ((TimeStampMilliTZVector) root.getVector("ts_ms"))
            .setSafe(r, first ? 1234567890123L : -1500);
        ((TimeStampNanoVector) root.getVector("ts_ns"))
            .setSafe(r, first ? 1_000_000_123_456_789L : -1);
        ((DateMilliVector) root.getVector("dms")).setSafe(r, (first ? 19000L : -3L) * 86_400_000L);
        ((TimeMilliVector) root.getVector("tm")).setSafe(r, first ? 3_600_123 : 0);
        ((DurationVector) root.getVector("dur")).setSafe(r, first ? 90 : -4);
        ((FixedSizeBinaryVector) root.getVector("fsb"))
            .setSafe(r, first ? new byte[] {1, 2} : new byte[] {-1, 0});
        LargeListVector ll = (LargeListVector) root.getVector("ll");
        long at = ll.startNewValue(r);
        ((UInt2Vector) ll.getDataVector()).setSafe((int) at, 1);
        ((UInt2Vector) ll.getDataVector()).setSafe((int) at + 1, 65535);
        ll.endValue(r, 2);
        ((Decimal256Vector) root.getVector("dec"))
            .setSafe(r, new BigDecimal(first ? DEC : "-0.01"));
        StructVector st = (StructVector) root.getVector("st");
        st.setIndexDefined(r);
        ((UInt1Vector) st.getChild("u")).setSafe(r, first ? 7 : 200);
        FixedSizeListVector e = (FixedSizeListVector) st.getChild("e");
        e.setNotNull(r);
        ((Float4Vector) e.getDataVector()).setSafe(r * 2, 0.5f);
        ((Float4Vector) e.getDataVector()).setSafe(r * 2 + 1, first ? 0.25f : 4f);
        MapVector m = (MapVector) root.getVector("m");
        int mat = m.startNewValue(r);
        StructVector entries = (StructVector) m.getDataVector();
        entries.setIndexDefined(mat);
        ((VarCharVector) entries.getChild("key")).setSafe(mat, (first ? "a" : "b").getBytes());
        ((UInt4Vector) entries.getChild("value")).setSafe(mat, first ? -1 : 9);
        m.endValue(r, 1);
      }
      root.setRowCount(3);
      try (DatasetWriter w =
          DatasetWriter.create(
              new LocalStorage(where),
              schema,
              categorical ? provider : null,
              DatasetOptions.defaults())) {
        w.write(root);
        w.publish();
      }
    }
  }

  @Test
  void readsEveryArrowTypeAsItsSparkType() throws Exception {
    Path ds = dir.resolve("ds");
    write(ds, true);
    org.apache.spark.sql.Dataset<Row> df = spark.read().format("riffle").load(ds.toString());
    assertThat(df.schema().simpleString()).isEqualTo(SPARK_SCHEMA);
    List<Row> rows = df.orderBy("id").collectAsList();

    Row r = rows.get(0);
    assertThat(r.<String>getAs("cat")).isEqualTo("red");
    assertThat(r.<Short>getAs("u8")).isEqualTo((short) 255);
    assertThat(r.<Integer>getAs("u16")).isEqualTo(65535);
    assertThat(r.<Long>getAs("u32")).isEqualTo(4294967295L);
    assertThat(r.<BigDecimal>getAs("u64")).isEqualTo(new BigDecimal("18446744073709551615"));
    assertThat(r.<Float>getAs("half")).isEqualTo(1.5f);
    assertThat(list(r.getAs("emb"))).containsExactly(1f, 2f, 3f);
    assertThat(r.<String>getAs("big")).isEqualTo("large");
    assertThat(r.<Timestamp>getAs("ts_ms")).isEqualTo(new Timestamp(1234567890123L));
    assertThat(r.<LocalDateTime>getAs("ts_ns"))
        .isEqualTo(LocalDateTime.of(1970, 1, 12, 13, 46, 40, 123_456_000));
    assertThat(r.<java.sql.Date>getAs("dms").toLocalDate()).isEqualTo(LocalDate.ofEpochDay(19000));
    assertThat(r.<Long>getAs("tm")).isEqualTo(3_600_123_000_000L);
    assertThat(r.<Duration>getAs("dur")).isEqualTo(Duration.ofSeconds(90));
    assertThat(r.<byte[]>getAs("fsb")).containsExactly(1, 2);
    assertThat(list(r.getAs("ll"))).containsExactly(1, 65535);
    assertThat(r.<String>getAs("dec")).isEqualTo(DEC);
    Row st = r.getAs("st");
    assertThat(st.<Short>getAs("u")).isEqualTo((short) 7);
    assertThat(list(st.getAs("e"))).containsExactly(0.5f, 0.25f);
    assertThat(CollectionConverters.asJava(r.<scala.collection.Map<String, Long>>getAs("m")))
        .isEqualTo(Map.of("a", 4294967295L));

    Row nulls = rows.get(1);
    for (int i = 1; i < nulls.length(); i++) {
      assertThat(nulls.isNullAt(i)).as(df.columns()[i]).isTrue();
    }

    Row other = rows.get(2);
    assertThat(other.<String>getAs("cat")).isEqualTo("blue");
    assertThat(other.<Timestamp>getAs("ts_ms")).isEqualTo(new Timestamp(-1500));
    // A nanosecond before the epoch rounds down to the microsecond before it.
    assertThat(other.<LocalDateTime>getAs("ts_ns"))
        .isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000));
    assertThat(other.<java.sql.Date>getAs("dms").toLocalDate()).isEqualTo(LocalDate.ofEpochDay(-3));
    assertThat(other.<Duration>getAs("dur")).isEqualTo(Duration.ofSeconds(-4));
    assertThat(other.<String>getAs("big")).isEqualTo("größer");

    // Pruned to the categorical alone, and filtered on it.
    assertThat(df.filter("cat = 'blue'").select("id").collectAsList())
        .extracting(x -> x.getLong(0))
        .containsExactly(2L);
    // Filters pushed down as page filters on these types (categorical codes, unsigned ints, other
    // time units, large strings), or left to Spark where the connector converts the values
    // (nanoseconds, date64, half floats), give Spark's answer.
    Map<String, List<Long>> filters = new java.util.LinkedHashMap<>();
    filters.put("cat in ('red', 'green')", List.of(0L));
    filters.put("cat is null", List.of(1L));
    filters.put("u64 > 5", List.of(0L));
    filters.put("u8 >= 255", List.of(0L));
    filters.put("u32 < 4", List.of(2L));
    filters.put("ts_ms < timestamp'1970-01-01 00:00:00'", List.of(2L));
    filters.put("ts_ms = timestamp'2009-02-13 23:31:30.123'", List.of(0L));
    filters.put("ts_ms > timestamp'1969-12-31 23:59:58.4999'", List.of(0L, 2L));
    filters.put("ts_ns < timestamp_ntz'1970-01-01 00:00:00'", List.of(2L));
    filters.put("dms = date'1969-12-29'", List.of(2L));
    filters.put("half > 0", List.of(0L));
    filters.put("big >= 'large'", List.of(0L));
    for (Map.Entry<String, List<Long>> f : filters.entrySet()) {
      assertThat(df.filter(f.getKey()).select("id").collectAsList())
          .as(f.getKey())
          .extracting(x -> x.getLong(0))
          .containsExactlyInAnyOrderElementsOf(f.getValue());
    }

    // Spark has no categorical to append from.
    assertThatThrownBy(() -> df.write().format("riffle").mode("append").save(ds.toString()))
        .hasStackTraceContaining("column 'cat' is categorical");
  }

  @Test
  void appendsWriteSparkValuesBackIntoTheDatasetsTypes() throws Exception {
    Path ds = dir.resolve("plain");
    write(ds, false);
    org.apache.spark.sql.Dataset<Row> before = spark.read().format("riffle").load(ds.toString());
    List<String> once = before.orderBy("id").toJSON().collectAsList();
    before.write().format("riffle").mode("append").save(ds.toString());

    org.apache.spark.sql.Dataset<Row> after = spark.read().format("riffle").load(ds.toString());
    assertThat(after.schema()).isEqualTo(before.schema());
    List<String> twice = new ArrayList<>();
    for (String row : once) {
      twice.add(row);
      twice.add(row);
    }
    assertThat(after.orderBy("id").toJSON().collectAsList()).isEqualTo(twice);

    // A value outside the dataset's unsigned range is refused, naming the column and value.
    assertThatThrownBy(
            () ->
                before
                    .withColumn("u8", org.apache.spark.sql.functions.lit((short) 300))
                    .write()
                    .format("riffle")
                    .mode("append")
                    .save(ds.toString()))
        .hasStackTraceContaining("column 'u8': value 300 does not fit");
  }

  @Test
  void aCategoricalWithOnlyNullsReadsAsNulls() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("cat", new FieldType(true, new ArrowType.Int(8, true), COLORS), null)));
    Path ds = dir.resolve("nulls");
    try (BufferAllocator a = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, a);
        VarCharVector colors = new VarCharVector("colors", a)) {
      colors.allocateNew();
      colors.setValueCount(0);
      root.allocateNew();
      for (int r = 0; r < 5; r++) {
        ((BigIntVector) root.getVector("id")).setSafe(r, r);
        ((TinyIntVector) root.getVector("cat")).setNull(r);
      }
      root.setRowCount(5);
      try (DatasetWriter w =
          DatasetWriter.create(
              new LocalStorage(ds),
              schema,
              new DictionaryProvider.MapDictionaryProvider(new Dictionary(colors, COLORS)),
              DatasetOptions.defaults())) {
        w.write(root);
        w.publish();
      }
    }
    List<Row> rows =
        spark.read().format("riffle").load(ds.toString()).orderBy("id").collectAsList();
    assertThat(rows).hasSize(5).allMatch(r -> r.isNullAt(1));
  }

  static List<Object> list(Object seq) {
    return new ArrayList<>(CollectionConverters.asJava((scala.collection.Seq<?>) seq));
  }
}
