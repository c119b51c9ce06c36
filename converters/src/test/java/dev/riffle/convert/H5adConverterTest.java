package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.convert.h5ad.BufferMeter;
import dev.riffle.convert.h5ad.H5adConverter;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Converts the .h5ad files that anndata 0.8 wrote (src/test/resources/h5ad, see make_fixtures.py)
 * and checks every value against expected.json, which anndata dumped from the same objects.
 */
class H5adConverterTest {
  static final Path FIXTURES = Path.of("src/test/resources/h5ad");
  static final ObjectMapper JSON = new ObjectMapper();
  static JsonNode expected;

  @TempDir Path dir;
  BufferAllocator allocator;

  @BeforeAll
  static void load() throws IOException {
    expected = JSON.readTree(FIXTURES.resolve("expected.json").toFile());
  }

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private ConvertResult convert(Path in, Path out, ConvertOptions options, BufferMeter meter)
      throws IOException {
    try (LocalStorage storage = new LocalStorage(out)) {
      return H5adConverter.convert(SourceFile.local(in), storage, allocator, options, meter);
    }
  }

  /**
   * Small batches (at most 7 rows, and a few hundred bytes) and so small CSC buckets: every fixture
   * spans several batches and a CSC transpose several buckets.
   */
  private static ConvertOptions small() {
    return ConvertOptions.defaults().withBatchRows(7).withBatchBytes(600);
  }

  @ParameterizedTest
  @ValueSource(strings = {"csr", "csc", "dense", "gzip", "lzf", "legacy"})
  void convertsEveryValue(String fixture) throws IOException {
    Path in = FIXTURES.resolve(fixture + ".h5ad");
    Path out = dir.resolve("out");
    ConvertResult r = convert(in, out, small(), new BufferMeter());
    int n = expected.get("n_obs").asInt();
    assertThat(r.rows()).isEqualTo(n);

    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    assertThat(cols.keySet())
        .startsWith("obs_names", "indices", "values")
        .contains(
            "cell_type",
            "n_genes",
            "is_doublet",
            "barcode",
            "qc_pass",
            "obsm_X_pca",
            "obsm_X_umap",
            "layer_counts_indices",
            "layer_counts_values",
            "raw_indices",
            "raw_values");
    assertThat(cols.get("obs_names")).isEqualTo(texts(expected.at("/obs/index")));
    checkSparse(cols, "indices", "values", expected.get("X"), n);
    checkSparse(
        cols, "layer_counts_indices", "layer_counts_values", expected.at("/layers/counts"), n);
    checkSparse(cols, "raw_indices", "raw_values", expected.at("/raw/X"), n);
    checkColumns(cols, expected.at("/obs/columns"), "");
    Iterator<Map.Entry<String, JsonNode>> obsm = expected.get("obsm").fields();
    while (obsm.hasNext()) {
      Map.Entry<String, JsonNode> e = obsm.next();
      checkValues(cols.get("obsm_" + e.getKey()), e.getValue(), "obsm/" + e.getKey());
    }

    Manifest m;
    try (LocalStorage storage = new LocalStorage(out)) {
      m = Dataset.readManifest(storage, 1);
    }
    Map<String, String> meta = m.metadata();
    assertThat(meta).containsEntry("riffle.table.var", "tables/var.riffle");
    assertThat(meta.get("riffle.table.var.sha256"))
        .isEqualTo(sha(out.resolve("tables/var.riffle")));
    Map<String, List<Object>> var = H5adRows.file(out.resolve("tables/var.riffle"), allocator);
    assertThat(var.get("var_names")).isEqualTo(texts(expected.at("/var/index")));
    checkColumns(var, expected.at("/var/columns"), "var/");
    checkValues(var.get("varm_PCs"), expected.at("/varm/PCs"), "varm/PCs");
    Map<String, List<Object>> rawVar =
        H5adRows.file(out.resolve(meta.get("riffle.table.raw_var")), allocator);
    assertThat(rawVar.get("var_names")).isEqualTo(texts(expected.at("/raw/var/index")));
    checkColumns(rawVar, expected.at("/raw/var/columns"), "raw/var/");
    assertThat(meta.get("riffle.table.raw_var.sha256"))
        .isEqualTo(sha(out.resolve(meta.get("riffle.table.raw_var"))));

    assertThat(JSON.readTree(meta.get(H5adConverter.UNS_KEY))).isEqualTo(expected.get("uns"));
    assertThat(meta).containsEntry("anndata.shape", "[40, 25]");
    assertThat(m.provenance().tool()).isEqualTo(H5adConverter.TOOL);
    assertThat(m.provenance().sources().get(0).sha256()).isEqualTo(sha(in));
    assertThat(m.provenance().sources().get(0).byteLength()).isEqualTo(Files.size(in));
  }

  @Test
  void keepsTheSourceEncodingAndIntegerCounts() throws IOException {
    Path out = dir.resolve("out");
    convert(FIXTURES.resolve("csc.h5ad"), out, small(), new BufferMeter());
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      assertThat(d.manifest().metadata()).containsEntry("anndata.X", "csc");
      var fields = d.arrowSchema();
      assertThat(fields.findField("values").getChildren().get(0).getType().toString())
          .isEqualTo("FloatingPoint(SINGLE)");
      assertThat(fields.findField("layer_counts_values").getChildren().get(0).getType().toString())
          .isEqualTo("Int(32, true)");
      assertThat(fields.findField("cell_type").getDictionary()).isNotNull();
      assertThat(fields.findField("n_genes").getType().toString()).isEqualTo("Int(64, true)");
      assertThat(fields.findField("n_genes").isNullable()).isTrue();
    }
  }

  @Test
  void refusesAFileThatIsNotHdf5() throws IOException {
    Path in = dir.resolve("notes.h5ad");
    Files.writeString(in, "just text, not HDF5\n".repeat(100));
    Path out = dir.resolve("out");
    assertThatThrownBy(() -> convert(in, out, small(), new BufferMeter()))
        .isInstanceOf(InputException.class)
        .hasMessageStartingWith(in.toString() + ": ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(filesUnder(out)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {2000, 30000, 60000})
  void refusesATruncatedFileAndPublishesNothing(int keep) throws IOException {
    byte[] all = Files.readAllBytes(FIXTURES.resolve("csr.h5ad"));
    Path in = dir.resolve("cut.h5ad");
    Files.write(in, java.util.Arrays.copyOf(all, keep));
    Path out = dir.resolve("out");
    assertThatThrownBy(() -> convert(in, out, small(), new BufferMeter()))
        .isInstanceOf(InputException.class)
        .hasMessageStartingWith(in.toString() + ": ")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(filesUnder(out)).isEmpty();
  }

  @Test
  void refusesAnHdf5FileThatIsNotAnnData() throws IOException {
    Path in = dir.resolve("plain.h5");
    try (var w = io.jhdf.HdfFile.write(in)) {
      w.putDataset("numbers", new int[] {1, 2, 3});
    }
    assertThatThrownBy(() -> convert(in, dir.resolve("out"), small(), new BufferMeter()))
        .isInstanceOf(InputException.class)
        .hasMessage(in + ": not an AnnData file (no obs group)");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void memoryStaysBoundedOnALargerMatrix(boolean csc) throws IOException {
    Path in = dir.resolve("big.h5ad");
    int cells = 20_000;
    SyntheticH5ad.write(in, cells, 2_000, 30, csc);
    long budget = 64 << 10;
    BufferMeter meter = new BufferMeter();
    ConvertOptions options = ConvertOptions.defaults().withBatchRows(4096).withBatchBytes(budget);
    ConvertResult r = convert(in, dir.resolve("out"), options, meter);
    assertThat(r.rows()).isEqualTo(cells);
    assertThat(meter.peakBatchRows()).isLessThanOrEqualTo(4096).isGreaterThan(100);
    assertThat(meter.peakBatchBytes()).isLessThanOrEqualTo(budget);
    // A transpose holds its file slices and then either its spill buffers or one bucket.
    assertThat(meter.peakTransposeBytes()).isLessThanOrEqualTo(csc ? budget : 0);
    if (csc) {
      assertThat(meter.peakTransposeBytes()).isGreaterThan(budget / 2);
    }
    Map<String, List<Object>> cols = H5adRows.dataset(dir.resolve("out"), allocator);
    for (int i : new int[] {0, 1, 777, cells - 1}) {
      assertThat(cols.get("indices").get(i)).isEqualTo(SyntheticH5ad.rowIndices(i, 2_000, 30));
      assertThat(cols.get("values").get(i)).isEqualTo(SyntheticH5ad.rowValues(i, 30));
    }
  }

  // --- checks ---

  private static void checkSparse(
      Map<String, List<Object>> cols, String indices, String values, JsonNode csr, int n) {
    JsonNode ptr = csr.get("indptr");
    JsonNode idx = csr.get("indices");
    JsonNode data = csr.get("data");
    for (int i = 0; i < n; i++) {
      List<Object> wantIdx = new ArrayList<>();
      List<JsonNode> wantVal = new ArrayList<>();
      for (int k = ptr.get(i).asInt(); k < ptr.get(i + 1).asInt(); k++) {
        wantIdx.add(idx.get(k).asLong());
        wantVal.add(data.get(k));
      }
      assertThat(cols.get(indices).get(i)).as(indices + " row " + i).isEqualTo(wantIdx);
      List<?> got = (List<?>) cols.get(values).get(i);
      assertThat(got).as(values + " row " + i).hasSize(wantVal.size());
      for (int k = 0; k < got.size(); k++) {
        checkValue(got.get(k), wantVal.get(k), values + " row " + i);
      }
    }
  }

  private static void checkColumns(Map<String, List<Object>> cols, JsonNode want, String where) {
    Iterator<Map.Entry<String, JsonNode>> it = want.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      assertThat(cols).as(where + e.getKey()).containsKey(e.getKey());
      checkValues(cols.get(e.getKey()), e.getValue(), where + e.getKey());
    }
  }

  private static void checkValues(List<Object> got, JsonNode want, String where) {
    assertThat(got).as(where).hasSize(want.size());
    for (int i = 0; i < want.size(); i++) {
      checkValue(got.get(i), want.get(i), where + "[" + i + "]");
    }
  }

  /** Exact: float32 values went through JSON as the doubles they widen to. */
  private static void checkValue(Object got, JsonNode want, String where) {
    if (want.isNull()) {
      assertThat(got).as(where).isNull();
    } else if (want.isArray()) {
      assertThat(got).as(where).isInstanceOf(List.class);
      checkValues(castList(got), want, where);
    } else if (want.isBoolean()) {
      assertThat(got).as(where).isEqualTo(want.asBoolean());
    } else if (want.isIntegralNumber()) {
      assertThat(((Number) got).longValue()).as(where).isEqualTo(want.asLong());
    } else if (want.isNumber()) {
      assertThat(((Number) got).doubleValue()).as(where).isEqualTo(want.asDouble());
    } else {
      assertThat(got).as(where).isEqualTo(want.asText());
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Object> castList(Object o) {
    return (List<Object>) o;
  }

  private static List<Object> texts(JsonNode a) {
    List<Object> out = new ArrayList<>();
    a.forEach(x -> out.add(x.asText()));
    return out;
  }

  static String sha(Path p) throws IOException {
    return SourceFile.local(p).sha256();
  }

  static List<Path> filesUnder(Path root) throws IOException {
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }

  /**
   * CSR rows with int32 indices go in whole when every row ascends, and row by row otherwise (an
   * unsorted row is sorted); either way an index outside the columns fails naming it and its row.
   */
  @Test
  void csrIndicesAreCheckedAndUnsortedRowsSorted() throws IOException {
    int[] indptr = {0, 3, 3, 6};
    float[] data = {1, 2, 3, 4, 5, 6};
    Path sorted = dir.resolve("sorted.h5ad");
    SyntheticH5ad.write(sorted, 3, 10, false, indptr, new int[] {0, 4, 9, 1, 2, 3}, data, 2);
    Path unsorted = dir.resolve("unsorted.h5ad");
    SyntheticH5ad.write(unsorted, 3, 10, false, indptr, new int[] {9, 0, 4, 3, 1, 2}, data, 2);
    Map<String, List<Object>> a = convertedX(sorted, "a");
    assertThat(a.get("indices"))
        .containsExactly(List.of(0L, 4L, 9L), List.of(), List.of(1L, 2L, 3L));
    assertThat(a.get("values"))
        .containsExactly(List.of(1f, 2f, 3f), List.of(), List.of(4f, 5f, 6f));
    Map<String, List<Object>> b = convertedX(unsorted, "b");
    assertThat(b.get("indices")).isEqualTo(a.get("indices"));
    assertThat(b.get("values"))
        .containsExactly(List.of(2f, 3f, 1f), List.of(), List.of(5f, 6f, 4f));
    for (int[] bad : new int[][] {{0, 4, 10, 1, 2, 3}, {0, 4, 9, 1, -2, 3}, {9, 0, 4, 3, 1, 12}}) {
      Path f = dir.resolve("bad" + bad[2] + bad[4] + bad[5] + ".h5ad");
      SyntheticH5ad.write(f, 3, 10, false, indptr, bad, data, 2);
      int at = bad[2] == 10 ? 2 : bad[4] == -2 ? 4 : 5;
      assertThatThrownBy(() -> convertedX(f, "out-" + f.getFileName()))
          .isInstanceOf(InputException.class)
          .hasMessage(
              f
                  + ": X/indices["
                  + at
                  + "] = "
                  + bad[at]
                  + " (row "
                  + (at < 3 ? 0 : 2)
                  + ") is outside the 10 columns");
    }
  }

  private Map<String, List<Object>> convertedX(Path in, String name) throws IOException {
    Path out = dir.resolve(name);
    convert(in, out, ConvertOptions.defaults(), new BufferMeter());
    return H5adRows.dataset(out, allocator);
  }
}
