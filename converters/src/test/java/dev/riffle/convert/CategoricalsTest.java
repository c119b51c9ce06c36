package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.read.FileReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * String columns made categorical at conversion: one dictionary, sorted by code point, for the
 * whole input and every data file, whatever the file order and the threads; nulls stay null;
 * refusals name the column.
 */
class CategoricalsTest {
  static final Path FIXTURES = DuckDbParquetTest.FIXTURES;
  static final List<String> DUCKDB_FILES = List.of("labels-0", "labels-1", "labels-2");

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

  private ConvertResult convert(List<Path> files, Path out, ConvertOptions options)
      throws IOException {
    List<SourceFile> in = new ArrayList<>();
    for (Path f : files) {
      in.add(SourceFile.local(f));
    }
    try (LocalStorage storage = new LocalStorage(out)) {
      return ParquetConverter.convert(in, storage, allocator, options);
    }
  }

  private static ConvertOptions options(String... categorical) {
    return ConvertOptions.defaults().withCategorical(List.of(categorical));
  }

  /** A dictionary's values as strings, in code order. */
  static List<String> values(Dictionary d) {
    VariableWidthFieldVector v = (VariableWidthFieldVector) d.getVector();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < v.getValueCount(); i++) {
      out.add(new String(v.get(i), StandardCharsets.UTF_8));
    }
    return out;
  }

  static Dictionary dictionary(Schema schema, DictionaryProvider p, String field) {
    DictionaryEncoding e = schema.findField(field).getDictionary();
    assertThat(e).as(field + " is dictionary-encoded").isNotNull();
    return p.lookup(e.getId());
  }

  private List<List<String>> rows(Path out, List<String> fields) throws IOException {
    return rows(out, fields, allocator);
  }

  /** Every row of {@code fields}, categoricals decoded through the dataset's dictionaries. */
  static List<List<String>> rows(Path out, List<String> fields, BufferAllocator allocator)
      throws IOException {
    List<List<String>> rows = new ArrayList<>();
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      DatasetView.Cursor c = d.all().scan(fields, 97);
      while (true) {
        try (VectorSchemaRoot b = c.next()) {
          if (b == null) {
            break;
          }
          for (int i = 0; i < b.getRowCount(); i++) {
            List<String> row = new ArrayList<>();
            for (String f : fields) {
              FieldVector v = b.getVector(f);
              if (v.isNull(i)) {
                row.add(null);
              } else if (v.getField().getDictionary() != null) {
                int code = (int) ((BaseIntVector) v).getValueAsLong(i);
                row.add(values(dictionary(d.arrowSchema(), d.dictionaries(), f)).get(code));
              } else if (v instanceof DateDayVector day) {
                row.add(LocalDate.ofEpochDay(day.get(i)).toString());
              } else {
                row.add(String.valueOf(v.getObject(i)));
              }
            }
            rows.add(row);
          }
        }
      }
    }
    return rows;
  }

  private static List<List<String>> duckDbRows(List<String> files) throws IOException {
    JsonNode all = new ObjectMapper().readTree(FIXTURES.resolve("labels.json").toFile());
    List<List<String>> out = new ArrayList<>();
    for (String f : files) {
      for (JsonNode r : all.get(f)) {
        List<String> row = new ArrayList<>();
        r.forEach(v -> row.add(v.isNull() ? null : v.asText()));
        out.add(row);
      }
    }
    return out;
  }

  private static List<Path> duckDbPaths(List<String> files) {
    return files.stream().map(f -> FIXTURES.resolve(f + ".parquet")).toList();
  }

  /**
   * DuckDB's plain utf8 columns, three files of different values (a dictionary-encoded column and a
   * plain one): one sorted dictionary, in code point order (U+FF3A before U+1F600, which UTF-16
   * order would swap), in the dataset and in each of its data files, whatever the threads.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void duckDbFilesShareOneSortedDictionary(int threads) throws IOException {
    Path out = dir.resolve("ds");
    ConvertOptions o =
        options("cell_type", "donor")
            .withThreads(threads)
            .withBatchRows(50)
            .withDataset(
                ConvertOptions.defaults().dataset().withTargetFileRows(90)); // several files
    convert(duckDbPaths(DUCKDB_FILES), out, o);
    List<String> sorted =
        List.of(
            "",
            "B cell",
            "NK cell",
            "T cell",
            "a lower",
            "monocyte",
            "Ünïcode",
            "Ｚ fullwidth",
            "😀 emoji");
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      Field f = d.arrowSchema().findField("cell_type");
      assertThat(f.getDictionary().getIndexType()).isEqualTo(new ArrowType.Int(8, true));
      assertThat(f.isNullable()).isTrue();
      assertThat(values(dictionary(d.arrowSchema(), d.dictionaries(), "cell_type")))
          .containsExactlyElementsOf(sorted);
      List<String> donors = values(dictionary(d.arrowSchema(), d.dictionaries(), "donor"));
      assertThat(donors).isSortedAccordingTo(String::compareTo).doesNotHaveDuplicates();
      assertThat(d.fileCount()).isGreaterThan(3);
      for (int i = 0; i < d.fileCount(); i++) {
        FileReader file = d.file(i);
        assertThat(values(dictionary(file.arrowSchema(), file.dictionaries(), "cell_type")))
            .as("data file " + i)
            .containsExactlyElementsOf(sorted);
        assertThat(values(dictionary(file.arrowSchema(), file.dictionaries(), "donor")))
            .as("data file " + i)
            .containsExactlyElementsOf(donors);
      }
    }
    assertThat(rows(out, List.of("id", "cell_type", "donor"))).isEqualTo(duckDbRows(DUCKDB_FILES));
  }

  /** The files in another order: other rows first, the same dictionary. */
  @Test
  void theDictionaryDoesNotDependOnTheFileOrder() throws IOException {
    List<String> reversed = new ArrayList<>(DUCKDB_FILES);
    Collections.reverse(reversed);
    convert(duckDbPaths(DUCKDB_FILES), dir.resolve("a"), options("cell_type"));
    convert(duckDbPaths(reversed), dir.resolve("b"), options("cell_type").withThreads(2));
    try (LocalStorage sa = new LocalStorage(dir.resolve("a"));
        LocalStorage sb = new LocalStorage(dir.resolve("b"));
        Dataset a = Dataset.open(sa, allocator);
        Dataset b = Dataset.open(sb, allocator)) {
      assertThat(values(dictionary(b.arrowSchema(), b.dictionaries(), "cell_type")))
          .isEqualTo(values(dictionary(a.arrowSchema(), a.dictionaries(), "cell_type")));
    }
    assertThat(rows(dir.resolve("b"), List.of("id", "cell_type", "donor")))
        .isEqualTo(duckDbRows(reversed));
  }

  private static final MessageType LABELS =
      MessageTypeParser.parseMessageType(
          "message m { required int32 id; optional binary label (STRING); }");

  /** A parquet-mr file of labels drawn from {@code pool} (null 1 in 10), as expected rows. */
  private static List<List<String>> writeLabels(
      Path file, int first, int rows, List<String> pool, long seed, boolean dictionaryPages)
      throws IOException {
    Random r = new Random(seed);
    List<List<String>> expected = new ArrayList<>();
    try (var w =
        org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(
                new org.apache.parquet.io.LocalOutputFile(file))
            .withType(LABELS)
            .withConf(new org.apache.parquet.conf.PlainParquetConfiguration())
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withRowGroupSize(8 << 10)
            .withPageRowCountLimit(100)
            .withDictionaryEncoding(dictionaryPages)
            .build()) {
      for (int i = 0; i < rows; i++) {
        SimpleGroup g = new SimpleGroup(LABELS);
        g.add("id", first + i);
        String label = r.nextInt(10) == 0 ? null : pool.get(r.nextInt(pool.size()));
        if (label != null) {
          g.add("label", label);
        }
        w.write(g);
        expected.add(Arrays.asList(String.valueOf(first + i), label));
      }
    }
    return expected;
  }

  /**
   * Twelve files, each with its own subset of 200 labels (so int16 codes), some with dictionary
   * pages and some plain, several row groups: the same codes with 1 and 4 threads and any file
   * order, and every row decodes to its label.
   */
  @Test
  void manyFilesAndThreadsGiveTheSameCodes() throws IOException {
    List<String> pool = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      pool.add("type-" + (i * 37 % 200));
    }
    List<Path> files = new ArrayList<>();
    List<List<String>> expected = new ArrayList<>();
    TreeSet<String> seen = new TreeSet<>();
    for (int f = 0; f < 12; f++) {
      Path p = dir.resolve("part-" + f + ".parquet");
      List<String> subset = pool.subList(f * 13, f * 13 + 40);
      expected.addAll(writeLabels(p, f * 1000, 700, subset, f, f % 2 == 0));
      files.add(p);
    }
    expected.stream().map(row -> row.get(1)).filter(l -> l != null).forEach(seen::add);
    convert(files, dir.resolve("one"), options("label").withThreads(1).withBatchRows(128));
    convert(files, dir.resolve("four"), options("label").withThreads(4).withBatchRows(128));
    List<Path> shuffled = new ArrayList<>(files);
    Collections.shuffle(shuffled, new Random(7));
    convert(shuffled, dir.resolve("shuffled"), options("label").withThreads(4));
    for (String ds : List.of("one", "four", "shuffled")) {
      try (LocalStorage s = new LocalStorage(dir.resolve(ds));
          Dataset d = Dataset.open(s, allocator)) {
        assertThat(values(dictionary(d.arrowSchema(), d.dictionaries(), "label")))
            .as(ds)
            .containsExactlyElementsOf(seen);
        assertThat(d.arrowSchema().findField("label").getDictionary().getIndexType())
            .isEqualTo(new ArrowType.Int(16, true));
      }
    }
    assertThat(rows(dir.resolve("one"), List.of("id", "label"))).isEqualTo(expected);
    assertThat(rows(dir.resolve("four"), List.of("id", "label"))).isEqualTo(expected);
  }

  @Test
  void aColumnThatIsNoneOrNotAStringIsRefusedNamingItAndNothingIsWritten() {
    List<Path> in = duckDbPaths(DUCKDB_FILES);
    Path out = dir.resolve("ds");
    String first = in.get(0).toString();
    assertThatThrownBy(() -> convert(in, out, options("cell_type", "celltype")))
        .isInstanceOf(InputException.class)
        .hasMessage(
            first
                + ": --categorical names no column 'celltype' (the top-level columns are id,"
                + " cell_type, donor)");
    assertThat(out).doesNotExist();
    assertThatThrownBy(() -> convert(in, out, options("id")))
        .isInstanceOf(InputException.class)
        .hasMessage(
            first
                + ": --categorical column 'id' is int32, not a string column (utf8 or large_utf8)");
    assertThat(out).doesNotExist();
  }

  @Test
  void tooManyDistinctValuesAreRefusedNamingTheColumnAndTheLimit() {
    Categoricals.Distinct d = new Categoricals.Distinct("cell_id", 3, Long.MAX_VALUE);
    for (String s : List.of("a", "b", "a", "c", "b")) {
      d.add(s.getBytes(StandardCharsets.UTF_8));
    }
    assertThatThrownBy(() -> d.add("d".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "categorical column 'cell_id' has more than 3 distinct values, the most a categorical"
                + " holds; leave it a string column");
    Categoricals.Distinct merged = new Categoricals.Distinct("cell_id", 3, Long.MAX_VALUE);
    merged.add("x".getBytes(StandardCharsets.UTF_8));
    Categoricals.Distinct other = new Categoricals.Distinct("cell_id", 3, Long.MAX_VALUE);
    for (String s : List.of("a", "b", "c")) {
      other.add(s.getBytes(StandardCharsets.UTF_8));
    }
    assertThatThrownBy(() -> merged.addAll(other)).hasMessageContaining("more than 3 distinct");
    assertThat(Categoricals.MAX_VALUES).isEqualTo(1 << 24);

    // Long distinct values (ids, free text) are refused by the heap they take, before an
    // OutOfMemoryError: here 10 values of 1 KiB against a budget of 8 KiB.
    Categoricals.Distinct ids = new Categoricals.Distinct("cell_id", 1 << 24, 8 << 10);
    byte[] value = new byte[1024];
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < 10; i++) {
                value[0] = (byte) i;
                ids.add(value.clone());
              }
            })
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("categorical column 'cell_id' has over 8 distinct values (0 MiB")
        .hasMessageEndingWith(
            "more than this process's heap can hold as a dictionary; leave it a string column, or"
                + " give Java more heap (RIFFLE_JAVA_OPTS=-Xmx...)");
    assertThat(Categoricals.Distinct.HEAP).isEqualTo(Runtime.getRuntime().maxMemory() / 8);
  }

  /**
   * Appending keeps the dataset's dictionary and codes and adds the new values after them, sorted;
   * past what its index type holds the append is refused, and nothing is published.
   */
  @Test
  void appendKeepsTheDatasetsCodesAndAddsNewValuesSorted() throws IOException {
    Path a = dir.resolve("a.parquet");
    Path b = dir.resolve("b.parquet");
    Path c = dir.resolve("c.parquet");
    List<List<String>> expected =
        new ArrayList<>(writeLabels(a, 0, 300, List.of("z", "m"), 1, true));
    expected.addAll(writeLabels(b, 300, 300, List.of("q", "m", "a"), 2, true));
    Path out = dir.resolve("ds");
    convert(List.of(a), out, options("label"));
    convert(List.of(b), out, options("label").withAppend(true));
    try (LocalStorage s = new LocalStorage(out);
        Dataset d = Dataset.open(s, allocator)) {
      assertThat(d.version()).isEqualTo(2);
      assertThat(values(dictionary(d.arrowSchema(), d.dictionaries(), "label")))
          .containsExactly("m", "z", "a", "q");
    }
    assertThat(rows(out, List.of("id", "label"))).isEqualTo(expected);

    List<String> many = new ArrayList<>();
    for (int i = 0; i < 130; i++) {
      many.add("new-" + i);
    }
    writeLabels(c, 600, 2000, many, 3, true);
    assertThatThrownBy(() -> convert(List.of(c), out, options("label").withAppend(true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("categorical column 'label' would have 1")
        .hasMessageEndingWith(
            " values with the new input, more than the dataset's int8 codes hold; convert the data"
                + " into a new dataset");
    try (LocalStorage s = new LocalStorage(out)) {
      assertThat(Dataset.versions(s)).containsExactly(1L, 2L);
    }
  }

  /**
   * An append takes the dataset's schema: a string column that the dataset holds as a categorical
   * of strings is encoded with the dataset's codes without --categorical being given again.
   */
  @Test
  void appendWithoutTheOptionEncodesTheDatasetsCategoricals() throws IOException {
    Path a = dir.resolve("a.parquet");
    Path b = dir.resolve("b.parquet");
    List<List<String>> expected =
        new ArrayList<>(writeLabels(a, 0, 300, List.of("z", "m"), 1, true));
    expected.addAll(writeLabels(b, 300, 300, List.of("q", "m", "a"), 2, true));
    Path out = dir.resolve("ds");
    convert(List.of(a), out, options("label"));
    convert(List.of(b), out, ConvertOptions.defaults().withAppend(true));
    try (LocalStorage s = new LocalStorage(out);
        Dataset d = Dataset.open(s, allocator)) {
      assertThat(d.version()).isEqualTo(2);
      assertThat(values(dictionary(d.arrowSchema(), d.dictionaries(), "label")))
          .containsExactly("m", "z", "a", "q");
    }
    assertThat(rows(out, List.of("id", "label"))).isEqualTo(expected);

    // A dataset whose column is a plain string takes plain strings: nothing is inferred.
    Path plain = dir.resolve("plain");
    convert(List.of(a), plain, ConvertOptions.defaults());
    convert(List.of(b), plain, ConvertOptions.defaults().withAppend(true));
    try (LocalStorage s = new LocalStorage(plain);
        Dataset d = Dataset.open(s, allocator)) {
      assertThat(d.arrowSchema().findField("label").getDictionary()).isNull();
    }
    assertThat(rows(plain, List.of("id", "label"))).isEqualTo(expected);
  }

  /**
   * Arrow IPC: utf8 and large_utf8 columns, values that differ from batch to batch, become sorted
   * categoricals; a column that is dictionary-encoded already keeps its own dictionary.
   */
  @Test
  void arrowStringColumnsBecomeCategoricalAndCategoricalsStay() throws IOException {
    Path file = dir.resolve("in.arrow");
    DictionaryEncoding enc = new DictionaryEncoding(5, false, new ArrowType.Int(8, true));
    Field idF = Field.notNullable("id", new ArrowType.Int(32, true));
    Field labelF = Field.nullable("label", ArrowType.Utf8.INSTANCE);
    Field bigF = Field.notNullable("big", ArrowType.LargeUtf8.INSTANCE);
    Field catF = new Field("cat", new FieldType(true, new ArrowType.Int(8, true), enc), null);
    Schema schema = new Schema(List.of(idF, labelF, bigF, catF));
    String[][] labels = {{"pear", null, "apple"}, {"fig", "pear", "Éclair"}};
    List<List<String>> expected = new ArrayList<>();
    try (VarCharVector catValues = new VarCharVector("cat", allocator);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      catValues.allocateNew();
      catValues.setSafe(0, "zulu".getBytes(StandardCharsets.UTF_8));
      catValues.setSafe(1, "alpha".getBytes(StandardCharsets.UTF_8));
      catValues.setValueCount(2);
      var provider = new DictionaryProvider.MapDictionaryProvider();
      provider.put(new Dictionary(catValues, enc));
      try (var ch =
              Files.newByteChannel(
                  file,
                  java.nio.file.StandardOpenOption.CREATE_NEW,
                  java.nio.file.StandardOpenOption.WRITE);
          ArrowFileWriter w = new ArrowFileWriter(root, provider, ch)) {
        w.start();
        int id = 0;
        for (String[] batch : labels) {
          root.allocateNew();
          for (int i = 0; i < batch.length; i++, id++) {
            ((IntVector) root.getVector("id")).setSafe(i, id);
            if (batch[i] != null) {
              ((VarCharVector) root.getVector("label"))
                  .setSafe(i, batch[i].getBytes(StandardCharsets.UTF_8));
            }
            String big = "big-" + (id % 2);
            ((LargeVarCharVector) root.getVector("big"))
                .setSafe(i, big.getBytes(StandardCharsets.UTF_8));
            ((TinyIntVector) root.getVector("cat")).setSafe(i, id % 2);
            expected.add(
                Arrays.asList(String.valueOf(id), batch[i], big, id % 2 == 0 ? "zulu" : "alpha"));
          }
          root.setRowCount(batch.length);
          w.writeBatch();
        }
        w.end();
      }
    }
    Path out = dir.resolve("ds");
    java.util.concurrent.atomic.AtomicLong reported = new java.util.concurrent.atomic.AtomicLong();
    try (LocalStorage storage = new LocalStorage(out)) {
      ArrowIpcConverter.convert(
          SourceFile.local(file),
          storage,
          allocator,
          options("label", "big", "cat", "label").withProgress(reported::addAndGet));
    }
    // The first pass reads the whole file too, and reports it: progress covers both passes.
    java.util.concurrent.atomic.AtomicLong once = new java.util.concurrent.atomic.AtomicLong();
    try (LocalStorage storage = new LocalStorage(dir.resolve("plain"))) {
      ArrowIpcConverter.convert(
          SourceFile.local(file),
          storage,
          allocator,
          ConvertOptions.defaults().withProgress(once::addAndGet));
    }
    assertThat(once.get()).isPositive();
    assertThat(reported.get()).isEqualTo(2 * once.get());
    try (LocalStorage s = new LocalStorage(out);
        Dataset d = Dataset.open(s, allocator)) {
      Schema got = d.arrowSchema();
      assertThat(values(dictionary(got, d.dictionaries(), "label")))
          .containsExactly("apple", "fig", "pear", "Éclair");
      assertThat(values(dictionary(got, d.dictionaries(), "big")))
          .containsExactly("big-0", "big-1");
      assertThat(got.findField("big").isNullable()).isFalse();
      assertThat(dictionary(got, d.dictionaries(), "big").getVector())
          .isInstanceOf(LargeVarCharVector.class);
      assertThat(values(dictionary(got, d.dictionaries(), "cat"))).containsExactly("zulu", "alpha");
    }
    assertThat(rows(out, List.of("id", "label", "big", "cat"))).isEqualTo(expected);
  }
}
