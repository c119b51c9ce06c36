package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.convert.h5ad.BufferMeter;
import dev.riffle.convert.h5ad.H5adConverter;
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
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
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
    return JSON.readTree(dir.resolve("expected.json").toFile());
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
