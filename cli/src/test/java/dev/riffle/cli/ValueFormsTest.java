package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One form for a value wherever a command prints it: scan's rows, a categorical's dictionary and a
 * column's statistics in inspect --json. Floats as Python writes them (1e+20, not Java's 1.0E20).
 */
class ValueFormsTest {
  @TempDir static Path dir;
  static String file;

  static final double[] DOUBLES = {1e20, 123456789.125, 1e-7, 3.0, -0.0, 0.1};

  @BeforeAll
  static void write() throws Exception {
    file = dir.resolve("values.riffle").toString();
    DictionaryEncoding fc = new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
    DictionaryEncoding tc = new DictionaryEncoding(2, false, new ArrowType.Int(8, true));
    DictionaryEncoding uc = new DictionaryEncoding(3, false, new ArrowType.Int(8, true));
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
                Field.nullable("u", new ArrowType.Int(64, false)),
                Field.nullable("dec", new ArrowType.Decimal(10, 2, 128)),
                new Field("fcat", new FieldType(true, fc.getIndexType(), fc), null),
                new Field("tcat", new FieldType(true, tc.getIndexType(), tc), null),
                new Field("ucat", new FieldType(true, uc.getIndexType(), uc), null)));
    try (BufferAllocator a = new RootAllocator();
        Float8Vector fv = new Float8Vector("fcat", a);
        TimeStampMicroVector tv = new TimeStampMicroVector("tcat", a);
        UInt8Vector uv = new UInt8Vector("ucat", a);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
      fv.allocateNew(2);
      fv.set(0, 1e20);
      fv.set(1, 0.5);
      fv.setValueCount(2);
      tv.allocateNew(1);
      tv.set(0, 1_700_000_000_000_000L);
      tv.setValueCount(1);
      uv.allocateNew(1);
      uv.set(0, -1L);
      uv.setValueCount(1);
      DictionaryProvider dictionaries =
          new DictionaryProvider.MapDictionaryProvider(
              new Dictionary(fv, fc), new Dictionary(tv, tc), new Dictionary(uv, uc));
      root.allocateNew();
      for (int i = 0; i < DOUBLES.length; i++) {
        ((Float8Vector) root.getVector("d")).setSafe(i, DOUBLES[i]);
        ((Float4Vector) root.getVector("f")).setSafe(i, i == 0 ? 1e20f : 0.1f * i);
        ((DateDayVector) root.getVector("day")).setSafe(i, 19_000 + i);
        ((UInt8Vector) root.getVector("u")).setSafe(i, -1L - i);
        ((DecimalVector) root.getVector("dec")).setSafe(i, new BigDecimal(i + ".25"));
        ((TinyIntVector) root.getVector("fcat")).setSafe(i, i % 2);
        ((TinyIntVector) root.getVector("tcat")).setSafe(i, 0);
        ((TinyIntVector) root.getVector("ucat")).setSafe(i, 0);
      }
      root.setRowCount(DOUBLES.length);
      try (FileWriter w =
          FileWriter.create(Path.of(file), schema, dictionaries, WriterOptions.defaults())) {
        w.write(root);
        w.finish();
      }
    }
  }

  @ParameterizedTest
  @CsvSource({
    "1e20, 1e+20",
    "-1.5e-7, -1.5e-07",
    "1e-4, 0.0001",
    "1.25e-5, 1.25e-05",
    "9999999999999998, 9999999999999998.0",
    "1e16, 1e+16",
    "123456789.125, 123456789.125",
    "-2, -2.0",
    "0, 0.0",
    "-0.0, -0.0",
    "1.7976931348623157e308, 1.7976931348623157e+308"
  })
  void doublesAsPythonsRepr(double d, String text) {
    assertThat(JsonNumbers.text(d)).isEqualTo(text);
  }

  /** Messages write whole numbers as counts (what was typed, 1e9 or 2), others as JSON does. */
  @ParameterizedTest
  @CsvSource(
      delimiter = ';',
      value = {
        "1e9; 1,000,000,000",
        "2; 2",
        "-2; -2",
        "0.25; 0.25",
        "1e-9; 1e-09",
        "1e20; 1e+20",
        "9999999999999998; 9,999,999,999,999,998"
      })
  void messageNumbersAsTyped(double d, String text) {
    assertThat(dev.riffle.format.io.Numbers.text(d)).isEqualTo(text);
  }

  @Test
  void floatsKeepTheirOwnDigits() {
    assertThat(JsonNumbers.text(0.1f)).isEqualTo("0.1");
    assertThat(JsonNumbers.text(0.9f + 0.00000004f)).isEqualTo("0.90000004");
    assertThat(JsonNumbers.text(1e10f)).isEqualTo("10000000000.0");
    assertThat(JsonNumbers.text(3.4028235e38f)).isEqualTo("3.4028235e+38");
  }

  @Test
  void scanWritesFloatsAsPythonDoes() {
    assertThat(Cli.ok("scan", file, "--columns", "d").outLines())
        .containsExactly(
            "{\"d\":1e+20}",
            "{\"d\":123456789.125}",
            "{\"d\":1e-07}",
            "{\"d\":3.0}",
            "{\"d\":-0.0}",
            "{\"d\":0.1}");
    assertThat(Cli.ok("take", file, "--rows", "0,1", "--columns", "f,fcat").outLines())
        .containsExactly("{\"f\":1e+20,\"fcat\":1e+20}", "{\"f\":0.1,\"fcat\":0.5}");
  }

  @Test
  void dictionariesAndStatisticsInTheFormsOfScan() throws Exception {
    // Checked on the text: a parsed number would print in Jackson's own form again.
    String text = Cli.ok("inspect", file, "--json").out();
    assertThat(text).doesNotContain("E20", "E-7");
    assertThat(text).contains("\"values\" : [ 1e+20, 0.5 ]");
    assertThat(text).contains("\"values\" : [ \"2023-11-14T22:13:20\" ]");
    // A uint64 beyond 2^53 is a decimal string (it was -1).
    assertThat(text).contains("\"values\" : [ \"18446744073709551615\" ]");
    assertThat(text).contains("\"max\" : 1e+20", "\"min\" : 0.1");
    JsonNode inspect = Json.MAPPER.readTree(text);
    assertThat(stats(inspect, "day").get("min").asText()).isEqualTo("2022-01-08");
    assertThat(stats(inspect, "day").get("max").asText()).isEqualTo("2022-01-13");
    assertThat(stats(inspect, "u").get("max").asText()).isEqualTo("18446744073709551615");
    assertThat(stats(inspect, "u").get("max").isTextual()).isTrue();
    assertThat(stats(inspect, "dec").get("min").isTextual()).isTrue();
    assertThat(stats(inspect, "dec").get("min").asText()).isEqualTo("0.25");
    // The bounds are values as scan prints them.
    List<String> rows = Cli.ok("scan", file, "--columns", "day,u,dec").outLines();
    assertThat(rows.get(0))
        .isEqualTo("{\"day\":\"2022-01-08\",\"u\":\"18446744073709551615\",\"dec\":\"0.25\"}");
  }

  /** A value as scan prints it is a --where literal that matches it. */
  @Test
  void whereTakesValuesAsScanPrintsThem() {
    assertThat(where("fcat = 1e+20")).containsExactly(0L, 2L, 4L);
    assertThat(where("day = '2022-01-09'")).containsExactly(1L);
    assertThat(where("dec = '0.25'")).containsExactly(0L);
    assertThat(where("u = 18446744073709551615")).containsExactly(0L);
    assertThat(where("tcat = '2023-11-14T22:13:20'")).hasSize(DOUBLES.length);
    // Below the column's unit (microseconds) the literal stays exact: the value is smaller.
    assertThat(where("tcat < '2023-11-14T22:13:20.0000005'")).hasSize(DOUBLES.length);
    assertThat(where("tcat = '2023-11-14T22:13:20.0000005'")).isEmpty();
  }

  private static List<Long> where(String filter) {
    List<Long> rows = new java.util.ArrayList<>();
    for (String line : Cli.ok("scan", file, "--with-row-id", "--where", filter).outLines()) {
      rows.add(Long.parseLong(line.substring("{\"_row\":".length(), line.indexOf(','))));
    }
    return rows;
  }

  /** Text output: counts with thousands separators, sizes and rates in binary units (README). */
  @Test
  void textCountsAndRatesInTheCommonUnits() {
    String ds = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", ds, "--rows", "3000", "--seed", "1");
    List<String> split =
        Cli.ok("split", ds, "--name", "train", "--fraction", "0.9", "--seed", "1", "--rest", "t")
            .outLines();
    assertThat(split.get(2)).matches("  train +2,[0-9]{3}");
    String pq = dir.resolve("ds.parquet").toString();
    Cli.ok("export", "parquet", ds, pq);
    assertThat(Cli.ok("convert", "parquet", pq, dir.resolve("back").toString()).out())
        .contains(" from 1 file (")
        .containsPattern(" [0-9.]+ (B|KiB|MiB)/s of input\n$");
  }

  private static JsonNode stats(JsonNode inspect, String field) {
    for (JsonNode c : inspect.get("columns")) {
      if (c.has("stats") && c.get("stats").has(field)) {
        return c.get("stats").get(field);
      }
    }
    throw new AssertionError("no statistics for " + field);
  }
}
