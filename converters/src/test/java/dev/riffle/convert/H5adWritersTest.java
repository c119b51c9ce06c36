package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.convert.h5ad.BufferMeter;
import dev.riffle.convert.h5ad.H5adConverter;
import dev.riffle.convert.h5ad.XDtype;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.read.FileReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Converts .h5ad files that the real anndata and h5py write while the test runs (the scripts in
 * src/test/resources/h5ad-writers), and checks every value against what anndata reads back.
 */
class H5adWritersTest {
  static final Path SCRIPTS = Path.of("src/test/resources/h5ad-writers");
  static final ObjectMapper JSON = new ObjectMapper();

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

  private JsonNode write(String script, String... args) throws Exception {
    AnnDataPython.run(dir, Files.readString(SCRIPTS.resolve(script)), args);
    Path expected = dir.resolve("expected.json");
    return Files.exists(expected) ? JSON.readTree(expected.toFile()) : null;
  }

  private ConvertResult convert(Path in, Path out, ConvertOptions options) throws IOException {
    try (LocalStorage storage = new LocalStorage(out)) {
      return H5adConverter.convert(
          SourceFile.local(in), storage, allocator, options, new BufferMeter());
    }
  }

  /** Small batches, so that slices start and end inside chunks. */
  private static ConvertOptions small() {
    return ConvertOptions.defaults().withBatchRows(7).withBatchBytes(600);
  }

  @ParameterizedTest
  @ValueSource(strings = {"earliest", "latest"})
  void readsLzfChunksThatWereStoredUnfiltered(String libver) throws Exception {
    JsonNode want = write("lzf.py", libver);
    // The file really has both kinds of chunk, or this test would prove nothing.
    for (String p : List.of("obsm/X_pca", "X/data")) {
      assertThat(want.at("/chunks/" + p.replace("/", "~1") + "/0").asInt()).as(p).isPositive();
      assertThat(want.at("/chunks/" + p.replace("/", "~1") + "/1").asInt()).as(p).isPositive();
    }
    assertThat(want.at("/chunks/var~1feature_types~1categories/1").asInt()).isEqualTo(1);

    Path out = dir.resolve("out");
    ConvertResult r = convert(dir.resolve("lzf.h5ad"), out, small());
    assertThat(r.rows()).isEqualTo(50);
    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    assertThat(cols.get("obs_names")).isEqualTo(texts(want.get("obs_names")));
    assertThat(cols.get("ct")).isEqualTo(texts(want.get("ct")));
    JsonNode ptr = want.get("indptr");
    for (int i = 0; i < 50; i++) {
      List<Object> idx = new ArrayList<>();
      List<Object> val = new ArrayList<>();
      for (int k = ptr.get(i).asInt(); k < ptr.get(i + 1).asInt(); k++) {
        idx.add(want.get("indices").get(k).asLong());
        val.add(want.get("data").get(k).asDouble());
      }
      assertThat(cols.get("indices").get(i)).as("indices row " + i).isEqualTo(idx);
      assertThat(doubles(cols.get("values").get(i))).as("values row " + i).isEqualTo(val);
      assertThat(doubles(cols.get("obsm_X_pca").get(i)))
          .as("X_pca row " + i)
          .isEqualTo(doubles(JSON.convertValue(want.get("X_pca").get(i), List.class)));
    }
    Map<String, List<Object>> var = H5adRows.file(out.resolve("tables/var.riffle"), allocator);
    assertThat(var.get("feature_types")).isEqualTo(texts(want.get("feature_types")));
  }

  @ParameterizedTest
  @CsvSource({"earliest,chunked", "latest,chunked", "earliest,contiguous", "latest,bigendian"})
  void readsUnfilteredXStraightIntoTheVectors(String libver, String layout) throws Exception {
    JsonNode want = write("raw.py", libver, layout);
    assertThat(want.get("filters").asInt()).isZero();
    // Two chunks were never written (they read as zeros), or this would prove less.
    assertThat(want.get("chunks").asInt())
        .isEqualTo(layout.equals("chunked") ? 41 : layout.equals("contiguous") ? 0 : 43);
    Path out = dir.resolve("out");
    ConvertResult r = convert(dir.resolve("raw.h5ad"), out, small());
    assertThat(r.rows()).isEqualTo(50);
    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    JsonNode ptr = want.get("indptr");
    for (int i = 0; i < 50; i++) {
      List<Object> idx = new ArrayList<>();
      List<Object> val = new ArrayList<>();
      for (int k = ptr.get(i).asInt(); k < ptr.get(i + 1).asInt(); k++) {
        idx.add(want.get("indices").get(k).asLong());
        val.add(want.get("data").get(k).asDouble());
      }
      assertThat(cols.get("indices").get(i)).as("indices row " + i).isEqualTo(idx);
      assertThat(doubles(cols.get("values").get(i))).as("values row " + i).isEqualTo(val);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 40})
  void keepsCategoriesTheirOrderAndTheOrderedFlag(int cells) throws Exception {
    JsonNode want = write("categories.py", Integer.toString(cells));
    Path out = dir.resolve("out");
    convert(dir.resolve("cats.h5ad"), out, small());
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      for (String c : List.of("stage", "tissue", "batch")) {
        checkCategorical(d.arrowSchema().findField(c), d.dictionaries(), want.get("obs/" + c));
      }
    }
    try (FileReader var = FileReader.open(out.resolve("tables/var.riffle"), allocator)) {
      checkCategorical(
          var.arrowSchema().findField("kind"), var.dictionaries(), want.get("var/kind"));
    }
    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    for (String c : List.of("stage", "tissue", "batch")) {
      assertThat(cols.get(c)).as(c).isEqualTo(texts(want.at("/obs~1" + c + "/values")));
    }
  }

  private static void checkCategorical(Field f, DictionaryProvider dictionaries, JsonNode want) {
    DictionaryEncoding enc = f.getDictionary();
    assertThat(enc).as(f.getName()).isNotNull();
    assertThat(enc.isOrdered())
        .as(f.getName() + " ordered")
        .isEqualTo(want.get("ordered").asBoolean());
    VarCharVector v = (VarCharVector) dictionaries.lookup(enc.getId()).getVector();
    List<Object> got = new ArrayList<>();
    for (int i = 0; i < v.getValueCount(); i++) {
      got.add(new String(v.get(i), StandardCharsets.UTF_8));
    }
    assertThat(got).as(f.getName() + " categories").isEqualTo(texts(want.get("categories")));
  }

  @ParameterizedTest
  @CsvSource({
    "float64, csr",
    "float64, csc",
    "float64, dense",
    "float32, csc",
    "int64, csr",
    "int64, csc",
    "int32, csr",
    "uint16, dense",
    "uint16, csc",
    "uint32, csr"
  })
  void keepsXsDtypeAndEveryValue(String dtype, String encoding) throws Exception {
    JsonNode want = write("dtypes.py", dtype, encoding);
    Path out = dir.resolve("out");
    convert(dir.resolve("x.h5ad"), out, small());
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      ArrowType t = d.arrowSchema().findField("values").getChildren().get(0).getType();
      assertThat(t).isEqualTo(arrowType(dtype));
      assertThat(d.manifest().metadata())
          .containsEntry(H5adConverter.X_DTYPE_KEY, dtype)
          .containsEntry(H5adConverter.X_FILE_DTYPE_KEY, dtype);
    }
    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    JsonNode ptr = want.get("indptr");
    for (int i = 0; i + 1 < ptr.size(); i++) {
      List<Object> idx = new ArrayList<>();
      List<Object> val = new ArrayList<>();
      for (int k = ptr.get(i).asInt(); k < ptr.get(i + 1).asInt(); k++) {
        idx.add(want.get("indices").get(k).asLong());
        String v = want.get("data").get(k).asText();
        val.add(dtype.startsWith("float") ? (Object) Double.parseDouble(v) : Long.parseLong(v));
      }
      assertThat(cols.get("indices").get(i)).as("indices row " + i).isEqualTo(idx);
      List<Object> got = new ArrayList<>();
      for (Object o : (List<?>) cols.get("values").get(i)) {
        got.add(o instanceof Float || o instanceof Double ? ((Number) o).doubleValue() : o);
      }
      assertThat(got).as("values row " + i).isEqualTo(val);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"csr", "csc", "dense"})
  void narrowsXToFloat32OnlyWhenAsked(String encoding) throws Exception {
    JsonNode want = write("dtypes.py", "float64", encoding);
    Path out = dir.resolve("out");
    try (LocalStorage storage = new LocalStorage(out)) {
      H5adConverter.convert(
          SourceFile.local(dir.resolve("x.h5ad")),
          storage,
          allocator,
          small(),
          new BufferMeter(),
          XDtype.FLOAT32);
    }
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      assertThat(d.arrowSchema().findField("values").getChildren().get(0).getType())
          .isEqualTo(arrowType("float32"));
      assertThat(d.manifest().metadata())
          .containsEntry(H5adConverter.X_DTYPE_KEY, "float32")
          .containsEntry(H5adConverter.X_FILE_DTYPE_KEY, "float64");
    }
    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    List<Object> first = new ArrayList<>();
    for (int k = 0; k < want.at("/indptr/1").asInt(); k++) {
      first.add((float) Double.parseDouble(want.get("data").get(k).asText()));
    }
    assertThat(cols.get("values").get(0)).isEqualTo(first);
  }

  private static ArrowType arrowType(String dtype) {
    switch (dtype) {
      case "float32":
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case "float64":
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      default:
        boolean signed = !dtype.startsWith("u");
        return new ArrowType.Int(Integer.parseInt(dtype.replaceAll("\\D", "")), signed);
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "csr|indptr-past|X/indptr[30] = 1000000000 runs past the ||(row 29)",
        "csr|indptr-decreasing|X/indptr[20] = |is below the one before|(row 19)",
        "csr|indptr-start|X/indptr[0] is 3, not 0||",
        "csr|indices-high|X/indices[5] = 1000000 (row |outside the 50 columns|",
        "csr|indices-negative|X/indices[6] = -3 (row |outside the 50 columns|",
        "csc|indptr-past|X/indptr[30] = 1000000000 runs past the ||(column 29)",
        "csc|indptr-decreasing|X/indptr[20] = |is below the one before|(column 19)",
        "csc|indices-high|X/indices[5] = 1000000 (column |outside the 200 rows|",
        "csc|indices-negative|X/indices[6] = -3 (column |outside the 200 rows|"
      })
  void refusesAnInconsistentSparseMatrixNamingItAndLeavesNothing(
      String encoding, String how, String says, String alsoSays, String endsWith) throws Exception {
    write("corrupt.py", encoding, how);
    Path in = dir.resolve("bad.h5ad");
    Path out = dir.resolve("out");
    assertThatThrownBy(() -> convert(in, out, small()))
        .isInstanceOf(InputException.class)
        .hasMessageStartingWith(in + ": ")
        .hasMessageContaining(says)
        .hasMessageContaining(alsoSays == null ? "" : alsoSays)
        .hasMessageEndingWith(endsWith == null ? "" : endsWith)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    // A new location is not left behind, not even empty directories.
    assertThat(out).doesNotExist();
  }

  @Test
  void storesPairwiseMatricesAsCoordinateTables() throws Exception {
    JsonNode want = write("obsp.py");
    Path out = dir.resolve("out");
    convert(dir.resolve("graph.h5ad"), out, small());
    Map<String, String> meta;
    try (LocalStorage storage = new LocalStorage(out)) {
      meta = Dataset.readManifest(storage, 1).metadata();
    }
    Map<String, String> types =
        Map.of("obsp_connectivities", "float32", "obsp_distances", "float64", "varp_co", "int64");
    for (Map.Entry<String, String> t : types.entrySet()) {
      String name = t.getKey();
      String path = "tables/" + name + ".riffle";
      assertThat(meta).containsEntry("riffle.table." + name, path);
      assertThat(meta.get("riffle.table." + name + ".sha256"))
          .isEqualTo(H5adConverterTest.sha(out.resolve(path)));
      try (FileReader r = FileReader.open(out.resolve(path), allocator)) {
        assertThat(r.arrowSchema().getFields().stream().map(Field::getName))
            .containsExactly("row", "col", "value");
        assertThat(r.arrowSchema().findField("value").getType()).isEqualTo(arrowType(t.getValue()));
      }
      Map<String, List<Object>> cols = H5adRows.file(out.resolve(path), allocator);
      JsonNode w = want.get(name);
      List<Object> rows = new ArrayList<>();
      w.get("row").forEach(x -> rows.add(x.asLong()));
      List<Object> colsWant = new ArrayList<>();
      w.get("col").forEach(x -> colsWant.add(x.asLong()));
      List<Object> values = new ArrayList<>();
      w.get("value")
          .forEach(
              x ->
                  values.add(
                      t.getValue().startsWith("float")
                          ? (Object) Double.parseDouble(x.asText())
                          : Long.parseLong(x.asText())));
      assertThat(cols.get("row")).as(name + " row").isEqualTo(rows);
      assertThat(cols.get("col")).as(name + " col").isEqualTo(colsWant);
      List<Object> got = new ArrayList<>();
      for (Object o : cols.get("value")) {
        got.add(o instanceof Float ? ((Number) o).doubleValue() : o);
      }
      assertThat(got).as(name + " value").isEqualTo(values);
    }
    assertThat(meta.get(H5adConverter.SKIPPED_KEY)).contains("obsp/dense").doesNotContain("obsp/c");
  }

  static List<Object> texts(JsonNode a) {
    List<Object> out = new ArrayList<>();
    a.forEach(x -> out.add(x.asText()));
    return out;
  }

  static List<Object> doubles(Object list) {
    List<Object> out = new ArrayList<>();
    for (Object o : (List<?>) list) {
      out.add(((Number) o).doubleValue());
    }
    return out;
  }
}
