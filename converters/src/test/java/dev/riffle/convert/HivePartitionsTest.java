package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partitioned input (key=value directories, as DuckDB, Spark and Hive write it): the keys become
 * columns with the values DuckDB itself reads back, never lost without a word.
 */
class HivePartitionsTest {
  static final Path PARTITIONED = DuckDbParquetTest.FIXTURES.resolve("partitioned");

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

  private void convert(List<String> specs, Path out, boolean append) throws IOException {
    try (LocalStorage storage = new LocalStorage(out)) {
      ParquetConverter.convert(
          SourceFiles.expand(specs, Map.of()),
          storage,
          allocator,
          ConvertOptions.defaults().withAppend(append));
    }
  }

  /** Rows as text, categoricals decoded, ordered by the first column. */
  private List<List<String>> rows(Path out, List<String> fields) throws IOException {
    List<List<String>> rows = new ArrayList<>(CategoricalsTest.rows(out, fields, allocator));
    rows.sort(Comparator.comparing(r -> Integer.parseInt(r.get(0))));
    return rows;
  }

  private static List<List<String>> duckDbRows() throws IOException {
    return duckDbRows("partitioned.json");
  }

  private static List<List<String>> duckDbRows(String json) throws IOException {
    JsonNode all = new ObjectMapper().readTree(DuckDbParquetTest.FIXTURES.resolve(json).toFile());
    List<List<String>> out = new ArrayList<>();
    for (JsonNode r : all) {
      List<String> row = new ArrayList<>();
      r.forEach(v -> row.add(v.isNull() ? null : v.asText()));
      out.add(row);
    }
    return out;
  }

  /**
   * DuckDB's PARTITION_BY output (escaped values, a null partition, digits that stay text): the
   * directory keys come back as DuckDB reads them, cell_type a categorical, plate an int64.
   */
  @Test
  void duckDbPartitionDirectoriesBecomeColumns() throws IOException {
    Path out = dir.resolve("ds");
    convert(List.of(PARTITIONED.toString()), out, false);
    try (LocalStorage s = new LocalStorage(out);
        Dataset d = Dataset.open(s, allocator)) {
      Schema schema = d.arrowSchema();
      assertThat(schema.getFields().stream().map(Field::getName))
          .containsExactly("id", "x", "cell_type", "plate");
      assertThat(schema.findField("cell_type").getDictionary()).isNotNull();
      assertThat(d.manifest().metadata())
          .containsEntry(ParquetConverter.PARTITION_COLUMNS_KEY, "cell_type,plate");
      assertThat(schema.findField("plate").getType()).isEqualTo(new ArrowType.Int(64, true));
      // One dictionary, sorted by code point, the null partition a null.
      assertThat(
              CategoricalsTest.values(
                  CategoricalsTest.dictionary(schema, d.dictionaries(), "cell_type")))
          .containsExactly("007", "T cell", "a/b", "x=y %", "Ünïcode");
    }
    assertThat(rows(out, List.of("id", "x", "cell_type", "plate"))).isEqualTo(duckDbRows());
  }

  /**
   * DuckDB's date partitions (and a null one) come back as dates, as DuckDB reads them; text that
   * only looks like a date ({@code 2023-02-29}, no such day) stays text, as DuckDB keeps it.
   */
  @Test
  void datePartitionsBecomeDates() throws IOException {
    Path out = dir.resolve("ds");
    convert(
        List.of(DuckDbParquetTest.FIXTURES.resolve("partitioned-dates").toString()), out, false);
    try (LocalStorage s = new LocalStorage(out);
        Dataset d = Dataset.open(s, allocator)) {
      Schema schema = d.arrowSchema();
      assertThat(schema.findField("day").getType())
          .isEqualTo(new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY));
      assertThat(schema.findField("batch").getDictionary()).isNotNull();
    }
    assertThat(rows(out, List.of("id", "day", "batch")))
        .isEqualTo(duckDbRows("partitioned-dates.json"));
  }

  /** A glob counts directories below its base; an append continues the dataset's codes. */
  @Test
  void globsAndAppendsKeepThePartitionColumns() throws IOException {
    Path out = dir.resolve("ds");
    convert(List.of(PARTITIONED + "/cell_type=[0T]*/*/*.parquet"), out, false);
    convert(List.of(PARTITIONED + "/cell_type=[!0T]*/*/*.parquet"), out, true);
    assertThat(rows(out, List.of("id", "x", "cell_type", "plate"))).isEqualTo(duckDbRows());
  }

  @Test
  void filesBelowOtherKeysOrHoldingAKeyAreRefusedNamingTheFile() throws IOException {
    Path one = Files.list(PARTITIONED.resolve("cell_type=007/plate=1")).findFirst().orElseThrow();
    Path mixed = dir.resolve("mixed");
    Files.createDirectories(mixed.resolve("plate=1"));
    Files.copy(one, mixed.resolve("plate=1/a.parquet"));
    Files.copy(one, mixed.resolve("b.parquet"));
    assertThatThrownBy(() -> convert(List.of(mixed.toString()), dir.resolve("o1"), false))
        .isInstanceOf(InputException.class)
        .hasMessageContaining(
            "plate=1/a.parquet: its partition directories give the columns [plate], but ")
        .hasMessageContaining("b.parquet gives []");

    Path clash = dir.resolve("clash");
    Files.createDirectories(clash.resolve("id=1"));
    Files.copy(one, clash.resolve("id=1/a.parquet"));
    assertThatThrownBy(() -> convert(List.of(clash.toString()), dir.resolve("o2"), false))
        .isInstanceOf(InputException.class)
        .hasMessageContaining("column 'id' is in the file and in its partition directories");
    for (Path o : List.of(dir.resolve("o1"), dir.resolve("o2"))) {
      try (Stream<Path> s = Files.exists(o) ? Files.list(o) : Stream.empty()) {
        assertThat(s).as("nothing written at " + o).isEmpty();
      }
    }
  }

  @Test
  void valuesAreUnescapedAndTypedOnlyWhenTheTextSurvives() throws InputException {
    assertThat(HivePartitions.decode("a%2Fb%20c")).isEqualTo("a/b c");
    assertThat(HivePartitions.decode("%C3%9Cn")).isEqualTo("Ün");
    assertThat(HivePartitions.decode("100%")).isEqualTo("100%");
    assertThat(HivePartitions.decode("%zz+1")).isEqualTo("%zz+1");

    assertThat(typeOf("1", "-5", HivePartitions.NULL)).isEqualTo(new ArrowType.Int(64, true));
    assertThat(typeOf("1", "007")).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(typeOf("0.5", "2")).isInstanceOf(ArrowType.FloatingPoint.class);
    assertThat(typeOf("0.50")).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(typeOf("1e3")).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(typeOf("NaN")).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(typeOf("99999999999999999999")).isEqualTo(ArrowType.Utf8.INSTANCE);
    ArrowType day = new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY);
    assertThat(typeOf("2024-02-29", "1999-12-31", HivePartitions.NULL)).isEqualTo(day);
    assertThat(typeOf("2024-02-29", "2023-02-29")).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(typeOf("2024-2-29")).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(typeOf("2024-02-29", "late")).isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(typeOf("20240229")).isEqualTo(new ArrowType.Int(64, true));
  }

  private static ArrowType typeOf(String... values) throws InputException {
    List<SourceFile> files = new ArrayList<>();
    for (String v : values) {
      files.add(new SourceFile("f" + files.size(), 0, null, null, null, List.of("k=" + v)));
    }
    return HivePartitions.of(files).extend(new Schema(List.of()), "f0").findField("k").getType();
  }
}
