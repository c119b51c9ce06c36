package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.testing.FloatBits;
import dev.riffle.format.write.WriterOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DuckDB's float columns of every kind of value (src/test/resources/duckdb, see make-floats.mjs:
 * decimals at scales 0 to 12 computed several ways, integers at the edges of exact representation,
 * NaNs with payloads, -0.0, infinities, subnormals, random bits, dictionary pages; PLAIN and
 * BYTE_STREAM_SPLIT pages): every value converted, read back by a scan and by a take, has exactly
 * the bits that DuckDB itself read back from the Parquet file.
 */
class DuckDbFloatsTest {
  static JsonNode expected;

  @org.junit.jupiter.api.io.TempDir Path dir;
  BufferAllocator allocator;

  @BeforeAll
  static void load() throws IOException {
    Path file = DuckDbParquetTest.FIXTURES.resolve("floats-expected.json.gz");
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      expected = new ObjectMapper().readTree(in);
    }
  }

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"floats", "floats-v2"})
  void everyFloatHasDuckDbsBits(String name) throws IOException {
    JsonNode columns = expected.get("columns");
    JsonNode rows = expected.get("rows");
    // Small pages, so that runs of decimals fill pages of their own (packed items).
    ConvertOptions options =
        ConvertOptions.defaults()
            .withBatchRows(100)
            .withDataset(
                DatasetOptions.defaults()
                    .withFileOptions(WriterOptions.defaults().withPageBytes(6144)));
    try (LocalStorage storage = new LocalStorage(dir.resolve(name))) {
      ParquetConverter.convert(
          List.of(SourceFile.local(DuckDbParquetTest.FIXTURES.resolve(name + ".parquet"))),
          storage,
          allocator,
          options);
      try (Dataset d = Dataset.open(storage, allocator)) {
        assertThat(d.rowCount()).isEqualTo(rows.size());
        long row = 0;
        try (DatasetView.Cursor c = d.all().scan(null, 128)) {
          VectorSchemaRoot batch;
          while ((batch = c.next()) != null) {
            try (VectorSchemaRoot b = batch) {
              for (int i = 0; i < b.getRowCount(); i++, row++) {
                assertRow(name + " scan", b, i, rows.get((int) row), columns);
              }
            }
          }
        }
        assertThat(row).isEqualTo(rows.size());
        SplittableRandom r = new SplittableRandom(rows.size());
        long[] take = new long[rows.size()];
        for (int i = 0; i < take.length; i++) {
          take[i] = r.nextInt(rows.size());
        }
        try (VectorSchemaRoot got = d.take(take, null)) {
          for (int i = 0; i < take.length; i++) {
            assertRow(name + " take", got, i, rows.get((int) take[i]), columns);
          }
        }
        // The converted file uses the 1.4 float encodings: decimals runs as packed items.
        FileReader f = d.file(0);
        for (String list : List.of("f32", "f64")) {
          int col = f.schema().columnOf(f.schema().fieldIndex(list));
          assertThat(f.recordCensus(col).packedItemSectors()).as(list).isPositive();
        }
      }
    }
  }

  /** Row {@code i} of {@code got} against DuckDB's row: id, then every float column's bits. */
  private static void assertRow(
      String what, VectorSchemaRoot got, int i, JsonNode want, JsonNode columns) {
    long id = want.get(0).asLong();
    assertThat(((Number) got.getVector("id").getObject(i)).longValue()).as(what).isEqualTo(id);
    for (int c = 1; c < columns.size(); c++) {
      String column = columns.get(c).asText();
      check(what + " id " + id + " " + column, got.getVector(column), i, want.get(c));
    }
  }

  /** Value {@code i} of {@code v} is {@code want}: null, the hex of a float's bits, or a list. */
  private static void check(String where, FieldVector v, int i, JsonNode want) {
    assertThat(v.isNull(i)).as(where + " is null").isEqualTo(want.isNull());
    if (want.isNull()) {
      return;
    }
    if (v instanceof Float4Vector || v instanceof Float8Vector) {
      String bits = FloatBits.describe(FloatBits.bits(v, i), v instanceof Float4Vector);
      String wanted =
          FloatBits.describe(Long.parseUnsignedLong(want.asText(), 16), v instanceof Float4Vector);
      assertThat(bits).as(where).isEqualTo(wanted);
      return;
    }
    long start = FloatBits.start(v, i);
    long n = FloatBits.end(v, i) - start;
    assertThat(n).as(where + " items").isEqualTo(want.size());
    for (int t = 0; t < n; t++) {
      check(
          String.format(Locale.ROOT, "%s[%d]", where, t),
          FloatBits.items(v),
          Math.toIntExact(start + t),
          want.get(t));
    }
  }
}
