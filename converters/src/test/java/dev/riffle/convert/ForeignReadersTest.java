package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Riffle's exports read back by other implementations, value by value: Parquet by DuckDB, Arrow IPC
 * files and streams by arrow-js (both run by Node, see {@link NodeReaders}). The reference is the
 * dataset itself, read by Riffle.
 */
class ForeignReadersTest {
  /**
   * Columns of {@link ParquetFixtures#ALL_TYPES} that DuckDB cannot give back exactly, so not
   * compared: INT96 and FLOAT16 (no exact DuckDB form here), DECIMAL(50, 10) (wider than DuckDB's
   * 38 digits: read as DOUBLE) and TIME(NANOS) (DuckDB's TIME holds microseconds).
   */
  static final Set<String> DUCKDB_INEXACT = Set.of("ts96", "f16", "dec50", "time_ns");

  /**
   * Columns left out of the file, as DuckDB 1.5 refuses a whole file that has them: INTERVAL, BSON
   * ("Unsupported converted type (20)"), and TIMESTAMP(MILLIS) with the fixture's random 64-bit
   * values (read as microseconds, they overflow: "Could not convert Timestamp(MS) to
   * Timestamp(US)"). {@link #duckdbReadsBackWhatDuckDbWrote} has timestamps in range.
   */
  static final Set<String> DUCKDB_REFUSES = Set.of("ivl", "bsn", "ts_ms");

  static final String[] CATEGORIES = {"low", "mid", "high", "unused"};

  @TempDir Path dir;
  BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void duckdbReadsEveryExportedParquetType() throws IOException {
    Path src = dir.resolve("all.parquet");
    ParquetFixtures.writeAllTypes(
        src, 2500, 11, CompressionCodecName.SNAPPY, 64 << 10, DUCKDB_REFUSES);
    Path ds = convertParquet(src, "d");
    compareWithDuckDb(ds, exportParquet(ds));
  }

  /**
   * DuckDB → Riffle → Parquet → DuckDB, with DuckDB's own files (src/test/resources/duckdb). An
   * INTERVAL comes back as its 12 bytes (a BLOB to DuckDB): exported with parquet-java's INTERVAL
   * annotation, DuckDB read every value as null.
   */
  @ParameterizedTest
  @ValueSource(strings = {"types", "nested", "groups", "interval"})
  void duckdbReadsBackWhatDuckDbWrote(String name) throws IOException {
    Path ds = convertParquet(DuckDbParquetTest.FIXTURES.resolve(name + ".parquet"), name);
    compareWithDuckDb(ds, exportParquet(ds));
  }

  @Test
  void duckdbReadsExportedNestedParquet() throws IOException {
    Path src = dir.resolve("nested.parquet");
    ParquetFixtures.writeNested(src, 1500, 12, 32 << 10);
    Path ds = convertParquet(src, "d");
    compareWithDuckDb(ds, exportParquet(ds));
  }

  @Test
  void duckdbReadsCategoricalsAsDictionaryEncodedStrings() throws IOException {
    Path ds = categoricalDataset();
    JsonNode duck = NodeReaders.duckdb(exportParquet(ds));
    assertThat(duck.at("/columns/5/name").asText()).isEqualTo("label");
    assertThat(duck.at("/columns/5/type").asText()).isEqualTo("VARCHAR");
    JsonNode rows = duck.get("rows");
    assertThat(rows).hasSize(2500);
    for (int i = 0; i < rows.size(); i++) {
      String want = i % 11 == 0 ? null : CATEGORIES[i % 3];
      assertThat(rows.get(i).get(5).isNull() ? null : rows.get(i).get(5).asText())
          .as("row " + i + " label")
          .isEqualTo(want);
    }
    // Every row group's chunk of the column is dictionary encoded.
    JsonNode chunks = duck.at("/encodings/label");
    assertThat(chunks.size()).isPositive();
    chunks.forEach(e -> assertThat(e.asText()).as("label encodings").contains("DICTIONARY"));
    compareWithDuckDb(ds, dir.resolve("d.parquet"));
  }

  @Test
  void arrowJsReadsExportedFilesAndStreamsWithOrderedCategories() throws IOException {
    Path ds = categoricalDataset();
    List<List<Object>> want = rows(ds);
    for (Exporter.ArrowFormat format : Exporter.ArrowFormat.values()) {
      Path out = dir.resolve("back-" + format + ".arrow");
      try (LocalStorage s = new LocalStorage(ds);
          Dataset d = Dataset.open(s, allocator)) {
        Exporter.toArrow(
            d, OutputTarget.open(out.toString(), Map.of()), format, allocator, n -> {});
      }
      JsonNode js = NodeReaders.arrowJs(out);
      String where = format + " ";
      List<String> types = new ArrayList<>();
      js.get("fields")
          .forEach(f -> types.add(f.get("name").asText() + ":" + f.get("type").asText()));
      assertThat(types)
          .as(where + "fields")
          .containsExactly(
              "id:Int32",
              "big:Int64",
              "x:Float64",
              "name:Utf8",
              "flag:Bool",
              "label:Dictionary<Int8, Utf8>",
              "tags:List<Int32>");
      JsonNode label = js.at("/fields/5");
      assertThat(label.get("ordered").asBoolean()).as(where + "ordered flag").isTrue();
      List<String> dictionary = new ArrayList<>();
      label.get("dictionary").forEach(v -> dictionary.add(v.asText()));
      assertThat(dictionary)
          .as(where + "categories, unused one included")
          .containsExactly(CATEGORIES);
      JsonNode rows = js.get("rows");
      assertThat(rows).hasSize(want.size());
      for (int i = 0; i < want.size(); i++) {
        List<Object> w = new ArrayList<>(want.get(i));
        w.set(5, w.get(5) == null ? null : CATEGORIES[((Long) w.get(5)).intValue()]);
        JsonNode got = rows.get(i);
        assertThat(got.get(0).asLong()).as(where + i + " id").isEqualTo((Long) w.get(0));
        assertThat(got.get(1).asText()).as(where + i + " big").isEqualTo(String.valueOf(w.get(1)));
        assertThat(got.get(2).asDouble()).as(where + i + " x").isEqualTo((Double) w.get(2));
        assertThat(text(got.get(3))).as(where + i + " name").isEqualTo(w.get(3));
        assertThat(got.get(4).asBoolean()).as(where + i + " flag").isEqualTo(w.get(4));
        assertThat(text(got.get(5))).as(where + i + " label").isEqualTo(w.get(5));
        List<Long> tags = new ArrayList<>();
        got.get(6).forEach(t -> tags.add(t.asLong()));
        assertThat(tags).as(where + i + " tags").isEqualTo(w.get(6));
      }
    }
  }

  private List<List<Object>> rows(Path dataset) throws IOException {
    try (LocalStorage s = new LocalStorage(dataset)) {
      return DatasetRows.read(s, allocator);
    }
  }

  private static String text(JsonNode n) {
    return n.isNull() ? null : n.asText();
  }

  private Path convertParquet(Path parquet, String name) throws IOException {
    Path out = dir.resolve(name);
    try (LocalStorage s = new LocalStorage(out)) {
      ParquetConverter.convert(
          List.of(SourceFile.local(parquet)), s, allocator, ConvertOptions.defaults());
    }
    return out;
  }

  private Path exportParquet(Path dataset) throws IOException {
    Path target = dir.resolve(dataset.getFileName() + ".parquet");
    try (LocalStorage s = new LocalStorage(dataset);
        Dataset d = Dataset.open(s, allocator)) {
      Exporter.toParquet(
          d,
          OutputTarget.open(target.toString(), Map.of()),
          CompressionCodecName.ZSTD,
          allocator,
          n -> {});
    }
    return target;
  }

  /** Every value DuckDB reads from {@code parquet} equals the dataset's, column by column. */
  private void compareWithDuckDb(Path dataset, Path parquet) throws IOException {
    JsonNode duck = NodeReaders.duckdb(parquet);
    List<Field> fields;
    DictionaryProvider dictionaries;
    List<List<Object>> want = rows(dataset);
    try (LocalStorage s = new LocalStorage(dataset);
        Dataset d = Dataset.open(s, allocator)) {
      fields = d.arrowSchema().getFields();
      List<List<Object>> decoded = new ArrayList<>();
      dictionaries = d.dictionaries();
      for (List<Object> row : want) {
        List<Object> r = new ArrayList<>(row);
        for (int c = 0; c < fields.size(); c++) {
          DictionaryEncoding enc = fields.get(c).getDictionary();
          if (enc != null && r.get(c) != null) {
            Dictionary dict = dictionaries.lookup(enc.getId());
            r.set(c, ArrowValues.get(dict.getVector(), ((Long) r.get(c)).intValue()));
          }
        }
        decoded.add(r);
      }
      want = decoded;
      fields = dictionaryValueFields(fields, dictionaries);
    }
    JsonNode columns = duck.get("columns");
    assertThat(columns).hasSize(fields.size());
    JsonNode rows = duck.get("rows");
    assertThat(rows).hasSize(want.size());
    int compared = 0;
    for (int c = 0; c < fields.size(); c++) {
      Field f = fields.get(c);
      assertThat(columns.get(c).get("name").asText()).isEqualTo(f.getName());
      if (DUCKDB_INEXACT.contains(f.getName())) {
        continue;
      }
      compared++;
      for (int i = 0; i < want.size(); i++) {
        check(
            f,
            want.get(i).get(c),
            rows.get(i).get(c),
            parquet.getFileName() + " row " + i + " " + f.getName() + " (" + columns.get(c) + ")");
      }
    }
    assertThat(compared).isGreaterThan(fields.size() / 2);
  }

  private static List<Field> dictionaryValueFields(List<Field> fields, DictionaryProvider dicts) {
    List<Field> out = new ArrayList<>();
    for (Field f : fields) {
      out.add(
          f.getDictionary() == null
              ? f
              : new Field(
                  f.getName(),
                  dicts.lookup(f.getDictionary().getId()).getVector().getField().getFieldType(),
                  null));
    }
    return out;
  }

  /** One value: Riffle's ({@link ArrowValues} form) against DuckDB's (read-parquet.mjs form). */
  private static void check(Field f, Object want, JsonNode got, String where) {
    if (want == null) {
      assertThat(got.isNull()).as(where + ": " + got).isTrue();
      return;
    }
    assertThat(got.isNull()).as(where + " is " + want + ", not null").isFalse();
    ArrowType t = f.getType();
    switch (t.getTypeID()) {
      case Bool -> assertThat(got.asBoolean()).as(where).isEqualTo(want);
      case Int -> {
        long v = (Long) want;
        String s =
            ((ArrowType.Int) t).getIsSigned() || ((ArrowType.Int) t).getBitWidth() < 64
                ? Long.toString(v)
                : Long.toUnsignedString(v);
        assertThat(got.asText()).as(where).isEqualTo(s);
      }
      case FloatingPoint ->
          assertThat(got.asDouble()).as(where).isEqualTo(((Number) want).doubleValue());
      case Decimal ->
          assertThat(got.asText()).as(where).isEqualTo(((BigDecimal) want).toPlainString());
      case Date -> assertThat(got.asLong()).as(where).isEqualTo((Long) want);
      case Timestamp -> {
        // read-parquet.mjs gives a timestamp in the unit of DuckDB's type (named in `where`).
        BigInteger ns = nanos((Long) want, ((ArrowType.Timestamp) t).getUnit());
        long per =
            where.contains("TIMESTAMP_NS")
                ? 1
                : where.contains("TIMESTAMP_MS")
                    ? 1_000_000
                    : where.contains("TIMESTAMP_S") ? 1_000_000_000 : 1_000;
        assertThat(got.asText()).as(where).isEqualTo(ns.divide(BigInteger.valueOf(per)).toString());
      }
      case Time ->
          assertThat(got.asText())
              .as(where)
              .isEqualTo(nanos((Long) want, ((ArrowType.Time) t).getUnit()).toString());
      case Utf8, LargeUtf8, Binary, LargeBinary, FixedSizeBinary ->
          assertThat(got.asText()).as(where).isEqualTo(want);
      case List, LargeList, Map -> {
        List<?> list = (List<?>) want;
        assertThat(got.isArray()).as(where + ": " + got).isTrue();
        assertThat(got.size()).as(where + " length").isEqualTo(list.size());
        for (int i = 0; i < list.size(); i++) {
          check(f.getChildren().get(0), list.get(i), got.get(i), where + "[" + i + "]");
        }
      }
      case Struct -> {
        List<Object> values = new ArrayList<>(((Map<?, ?>) want).values());
        List<JsonNode> gotValues = new ArrayList<>();
        got.elements().forEachRemaining(gotValues::add);
        assertThat(gotValues).as(where + " fields").hasSize(values.size());
        for (int i = 0; i < values.size(); i++) {
          Field child = f.getChildren().get(i);
          check(child, values.get(i), gotValues.get(i), where + "." + child.getName());
        }
      }
      default -> throw new AssertionError(where + ": no comparison for " + t);
    }
  }

  private static BigInteger nanos(long v, TimeUnit unit) {
    long per =
        switch (unit) {
          case SECOND -> 1_000_000_000L;
          case MILLISECOND -> 1_000_000L;
          case MICROSECOND -> 1_000L;
          case NANOSECOND -> 1L;
        };
    return BigInteger.valueOf(v).multiply(BigInteger.valueOf(per));
  }

  /**
   * A dataset of 2500 rows in three batches, converted from an Arrow IPC file that Java writes: id,
   * big (int64), x, name (nullable), flag, label (an ordered categorical with int8 codes whose
   * categories are not sorted and include an unused one), tags (list of int32).
   */
  private Path categoricalDataset() throws IOException {
    DictionaryEncoding enc = new DictionaryEncoding(7, true, new ArrowType.Int(8, true));
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(32, true)),
                Field.nullable("big", new ArrowType.Int(64, true)),
                Field.nullable("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE),
                Field.nullable("flag", ArrowType.Bool.INSTANCE),
                new Field("label", new FieldType(true, new ArrowType.Int(8, true), enc), null),
                new Field(
                    "tags",
                    FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(Field.nullable("item", new ArrowType.Int(32, true))))));
    Path ipc = dir.resolve("cats.arrow");
    try (VarCharVector dict = new VarCharVector("label", allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileChannel ch =
            FileChannel.open(ipc, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      dict.allocateNew();
      for (int i = 0; i < CATEGORIES.length; i++) {
        dict.setSafe(i, CATEGORIES[i].getBytes(StandardCharsets.UTF_8));
      }
      dict.setValueCount(CATEGORIES.length);
      DictionaryProvider.MapDictionaryProvider provider =
          new DictionaryProvider.MapDictionaryProvider();
      provider.put(new Dictionary(dict, enc));
      try (ArrowFileWriter w = new ArrowFileWriter(root, provider, ch)) {
        w.start();
        int row = 0;
        for (int rows : new int[] {1000, 900, 600}) {
          root.allocateNew();
          ListVector tags = (ListVector) root.getVector(6);
          UnionListWriter lw = tags.getWriter();
          for (int i = 0; i < rows; i++, row++) {
            ((IntVector) root.getVector(0)).setSafe(i, row);
            ((BigIntVector) root.getVector(1)).setSafe(i, row * 3_000_000_019L - (1L << 40));
            ((Float8Vector) root.getVector(2)).setSafe(i, row / 8.0 - 7);
            if (row % 7 == 0) {
              ((VarCharVector) root.getVector(3)).setNull(i);
            } else {
              ((VarCharVector) root.getVector(3))
                  .setSafe(i, ("n" + row).getBytes(StandardCharsets.UTF_8));
            }
            ((BitVector) root.getVector(4)).setSafe(i, row % 3 == 0 ? 1 : 0);
            if (row % 11 == 0) {
              ((TinyIntVector) root.getVector(5)).setNull(i);
            } else {
              ((TinyIntVector) root.getVector(5)).setSafe(i, row % 3);
            }
            lw.setPosition(i);
            lw.startList();
            for (int k = 0; k < row % 4; k++) {
              lw.integer().writeInt(row + k);
            }
            lw.endList();
          }
          lw.setValueCount(rows);
          root.setRowCount(rows);
          w.writeBatch();
        }
        w.end();
      }
    }
    Path out = dir.resolve("d");
    try (LocalStorage s = new LocalStorage(out)) {
      ArrowIpcConverter.convert(SourceFile.local(ipc), s, allocator, ConvertOptions.defaults());
    }
    return out;
  }
}
