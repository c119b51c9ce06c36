package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.dataset.storage.LocalStorage;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Parquet written by a second writer, DuckDB (src/test/resources/duckdb, see make.mjs): every value
 * converted is checked against what DuckDB itself read back when it wrote the files.
 */
class DuckDbParquetTest {
  static final Path FIXTURES = Path.of("src/test/resources/duckdb");
  static JsonNode expected;

  @TempDir Path dir;
  BufferAllocator allocator;

  @BeforeAll
  static void load() throws IOException {
    expected = new ObjectMapper().readTree(FIXTURES.resolve("expected.json").toFile());
  }

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private List<List<Object>> convert(String name) throws IOException {
    Path out = dir.resolve(name);
    try (LocalStorage storage = new LocalStorage(out)) {
      ParquetConverter.convert(
          List.of(SourceFile.local(FIXTURES.resolve(name + ".parquet"))),
          storage,
          allocator,
          ConvertOptions.defaults().withBatchRows(100));
      return DatasetRows.read(storage, allocator);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"types", "nested"})
  void convertsEveryValue(String name) throws IOException {
    List<List<Object>> rows = convert(name);
    JsonNode want = expected.get(name).get("rows");
    JsonNode columns = expected.get(name).get("columns");
    assertThat(rows).hasSize(want.size());
    for (int i = 0; i < want.size(); i++) {
      for (int c = 0; c < columns.size(); c++) {
        check(rows.get(i).get(c), want.get(i).get(c), name + " row " + i + " " + columns.get(c));
      }
    }
  }

  @Test
  void readsDictionaryPagesAndSeveralRowGroups() throws IOException {
    try (ParquetFileReader r =
        ParquetFileReader.open(new LocalInputFile(FIXTURES.resolve("groups.parquet")))) {
      List<BlockMetaData> blocks = r.getFooter().getBlocks();
      assertThat(blocks).hasSize(expected.at("/groups/row_groups").size()).hasSizeGreaterThan(1);
      ColumnChunkMetaData name = blocks.get(0).getColumns().get(1);
      assertThat(name.getPath().toDotString()).isEqualTo("name");
      assertThat(name.hasDictionaryPage()).isTrue();
    }
    List<List<Object>> rows = convert("groups");
    assertThat(rows).hasSize(5000);
    String[] names = {"alpha", "beta", "gamma", "delta"};
    String[] colors = {"red", "green", "blue"};
    for (int i = 0; i < rows.size(); i++) {
      List<Object> tags = new ArrayList<>();
      for (int x = 0; x < i % 3; x++) {
        tags.add(colors[(i + x) % 3]);
      }
      assertThat(rows.get(i))
          .as("row " + i)
          .isEqualTo(Arrays.asList((long) i, names[i % 4], i % 7 == 0 ? null : i * 0.5, tags));
    }
  }

  /**
   * DuckDB's float arrays (items declared nullable, as Spark's; make-embeddings.mjs): the converted
   * values are the formulas' floats bit for bit, by scan and by take, and the lists without a null
   * item go to LISTS sectors — three-decimal floats and integer counts with their items packed as
   * decimals, full-precision floats plain.
   */
  @Test
  void floatArraysConvertToListSectors() throws IOException {
    List<List<Object>> rows = convert("embeddings");
    assertThat(rows).hasSize(6000);
    for (int i = 0; i < rows.size(); i++) {
      List<Object> emb = null;
      if (i % 97 != 5) {
        emb = new ArrayList<>();
        for (int k = 0; i % 101 != 7 && k < 16; k++) {
          boolean isNull = i % 500 == 250 && k == 3;
          emb.add(isNull ? null : (float) (((i * 7919L + k * 104729L) % 2001 - 1000) / 1000.0));
        }
      }
      List<Object> counts = new ArrayList<>();
      for (int k = 0; k < i % 9; k++) {
        counts.add((double) ((i + k) % 13));
      }
      assertThat(rows.get(i).subList(0, 3))
          .as("row " + i)
          .isEqualTo(Arrays.asList((long) i, emb, counts));
      // DuckDB's sin and Java's may differ in the last bit of a double: compare the floats closely.
      List<?> noise = (List<?>) rows.get(i).get(3);
      for (int k = 0; k < 8; k++) {
        assertThat((Float) noise.get(k))
            .as("row " + i + " noise " + k)
            .isCloseTo((float) Math.sin(i * 8 + k), org.assertj.core.data.Offset.offset(1e-6f));
      }
    }
    try (LocalStorage storage = new LocalStorage(dir.resolve("embeddings"));
        dev.riffle.dataset.Dataset d = dev.riffle.dataset.Dataset.open(storage, allocator)) {
      long[] some = {5999, 250, 0, 4321, 5, 7, 3000};
      try (org.apache.arrow.vector.VectorSchemaRoot taken = d.take(some, null)) {
        List<List<Object>> got = ArrowValues.rows(taken);
        for (int j = 0; j < some.length; j++) {
          assertThat(got.get(j)).as("take of row " + some[j]).isEqualTo(rows.get((int) some[j]));
        }
      }
      dev.riffle.format.read.FileReader f = d.file(0);
      int emb = f.schema().columnOf(f.schema().fieldIndex("emb"));
      int counts = f.schema().columnOf(f.schema().fieldIndex("counts"));
      int noise = f.schema().columnOf(f.schema().fieldIndex("noise"));
      assertThat(f.recordCensus(emb).packedItemSectors()).as("emb").isPositive();
      assertThat(f.recordCensus(counts).packedItemSectors()).as("counts").isPositive();
      dev.riffle.format.read.RecordCensus n = f.recordCensus(noise);
      assertThat(n.sectors()[3]).as("noise: LISTS sectors").isPositive();
      assertThat(n.packedItemSectors()).as("noise").isZero();
    }
  }

  /** DuckDB's JSON gives 64-bit integers and decimals as strings, other numbers as numbers. */
  private static void check(Object got, JsonNode want, String where) {
    if (want.isNull()) {
      assertThat(got).as(where).isNull();
    } else if (want.isArray()) {
      assertThat(got).as(where).isInstanceOf(List.class);
      List<?> list = (List<?>) got;
      assertThat(list).as(where).hasSize(want.size());
      for (int i = 0; i < want.size(); i++) {
        check(list.get(i), want.get(i), where + "[" + i + "]");
      }
    } else if (want.isObject()) {
      assertThat(got).as(where).isInstanceOf(Map.class);
      List<Object> values = new ArrayList<>(((Map<?, ?>) got).values());
      List<JsonNode> wanted = new ArrayList<>();
      want.elements().forEachRemaining(wanted::add);
      assertThat(values).as(where).hasSize(wanted.size());
      for (int i = 0; i < wanted.size(); i++) {
        check(values.get(i), wanted.get(i), where + "." + i);
      }
    } else if (want.isBoolean()) {
      assertThat(got).as(where).isEqualTo(want.asBoolean());
    } else if (want.isNumber()) {
      assertThat(((Number) got).doubleValue()).as(where).isEqualTo(want.asDouble());
    } else if (got instanceof BigDecimal) {
      assertThat(((BigDecimal) got).toPlainString()).as(where).isEqualTo(want.asText());
    } else {
      assertThat(String.valueOf(got)).as(where).isEqualTo(want.asText());
    }
  }
}
