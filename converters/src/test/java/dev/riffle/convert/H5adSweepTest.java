package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.riffle.convert.h5ad.BufferMeter;
import dev.riffle.convert.h5ad.H5adConverter;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files of kinds that users have and the first fixtures lacked, written by the real anndata and
 * h5py (h5ad-writers/sweep.py, one case per run), each checked against what anndata reads back.
 */
class H5adSweepTest {
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

  private JsonNode write(String kase) throws Exception {
    AnnDataPython.run(
        dir, Files.readString(H5adWritersTest.SCRIPTS.resolve("sweep.py")), new String[] {kase});
    Path expected = dir.resolve("expected.json");
    return new ObjectMapper().readTree(expected.toFile());
  }

  private Path convert() throws IOException {
    Path out = dir.resolve("out");
    try (LocalStorage storage = new LocalStorage(out)) {
      H5adConverter.convert(
          SourceFile.local(dir.resolve("x.h5ad")),
          storage,
          allocator,
          ConvertOptions.defaults().withBatchRows(5),
          new BufferMeter());
    }
    return out;
  }

  private ArrowType type(Path out, String field) throws IOException {
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      return d.arrowSchema().findField(field).getType();
    }
  }

  /** numpy bool X was stored as the strings "TRUE" (jhdf's reading of an HDF5 enum). */
  @ParameterizedTest
  @ValueSource(strings = {"bool-dense", "bool-csr"})
  void boolXStaysBool(String kase) throws Exception {
    JsonNode want = write(kase);
    Path out = convert();
    try (LocalStorage storage = new LocalStorage(out);
        Dataset d = Dataset.open(storage, allocator)) {
      assertThat(d.arrowSchema().findField("values").getChildren().get(0).getType())
          .isEqualTo(ArrowType.Bool.INSTANCE);
      assertThat(d.manifest().metadata()).containsEntry(H5adConverter.X_DTYPE_KEY, "bool");
    }
    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    JsonNode rows = want.get("rows");
    for (int i = 0; i < rows.size(); i++) {
      List<Object> idx = new ArrayList<>();
      rows.get(i).forEach(x -> idx.add(x.asLong()));
      assertThat(cols.get("indices").get(i)).as("row " + i).isEqualTo(idx);
      assertThat(cols.get("values").get(i))
          .as("row " + i)
          .isEqualTo(Collections.nCopies(idx.size(), true));
    }
  }

  /** uint64 obs columns failed ("unsupported type FixedPoint"); smaller ones lost their dtype. */
  @Test
  void unsignedObsColumnsKeepTheirDtypeAndValues() throws Exception {
    JsonNode want = write("unsigned");
    Path out = convert();
    Map<String, List<Object>> cols = H5adRows.dataset(out, allocator);
    for (String c : List.of("uint8", "uint16", "uint32", "uint64", "UInt64")) {
      int bits = c.equals("UInt64") ? 64 : Integer.parseInt(c.substring(4));
      assertThat(type(out, c)).as(c).isEqualTo(new ArrowType.Int(bits, false));
      JsonNode w = want.get(c).get("values");
      for (int i = 0; i < w.size(); i++) {
        Object got = cols.get(c).get(i);
        String s = got == null ? null : Long.toUnsignedString((Long) got);
        assertThat(s).as(c + " row " + i).isEqualTo(w.get(i).isNull() ? null : w.get(i).asText());
      }
    }
  }

  /** h5py stores a column "a/b" as a/b; the converter said it was listed but missing. */
  @Test
  void columnNamesWithASlashAreRead() throws Exception {
    JsonNode want = write("slash");
    Map<String, List<Object>> cols = H5adRows.dataset(convert(), allocator);
    List<Object> values = new ArrayList<>();
    want.get("a/b").forEach(x -> values.add(x.asDouble()));
    assertThat(cols.get("a/b")).isEqualTo(values);
  }

  /** pandas' string dtype, as anndata >= 0.11 writes it. */
  @Test
  void nullableStringArraysKeepTheirMissingValues() throws Exception {
    JsonNode want = write("nullable-string");
    Path out = convert();
    assertThat(type(out, "s")).isEqualTo(ArrowType.Utf8.INSTANCE);
    List<Object> values = new ArrayList<>();
    want.get("s").forEach(x -> values.add(x.isNull() ? null : x.asText()));
    assertThat(H5adRows.dataset(out, allocator).get("s")).isEqualTo(values);
  }

  /** Boolean categories were "TRUE"/"FALSE" (jhdf's enum names), not pandas' True/False. */
  @Test
  void booleanCategoriesReadAsPandasShowsThem() throws Exception {
    JsonNode want = write("categories-bool");
    List<Object> values = new ArrayList<>();
    want.get("b").forEach(x -> values.add(x.isNull() ? null : x.asText()));
    assertThat(H5adRows.dataset(convert(), allocator).get("b")).isEqualTo(values);
  }

  /** It failed part way with jhdf's "Requested slice exceeds dataset", naming no column. */
  @Test
  void aColumnShorterThanTheIndexFailsNamingItAndLeavesNothing() throws Exception {
    write("short-column");
    Path in = dir.resolve("x.h5ad");
    assertThatThrownBy(this::convert)
        .isInstanceOf(InputException.class)
        .hasMessage(in + ": obs/v has 9 values, but the frame's index has 12");
    assertThat(dir.resolve("out")).doesNotExist();
  }

  /** uint64 in uns came back negative, and an empty array failed the conversion with an NPE. */
  @Test
  void unsKeepsUint64AndEmptyArrays() throws Exception {
    JsonNode want = write("uns");
    Path out = convert();
    String uns;
    try (LocalStorage storage = new LocalStorage(out)) {
      uns = Dataset.readManifest(storage, 1).metadata().get(H5adConverter.UNS_KEY);
    }
    JsonNode got = new ObjectMapper().readTree(uns);
    assertThat(got.get("big").bigIntegerValue().toString()).isEqualTo(want.get("big").asText());
    assertThat(got.get("bigs").get(0).bigIntegerValue().toString())
        .isEqualTo(want.get("bigs").get(0).asText());
    assertThat(got.get("bigs").get(1).asLong()).isEqualTo(1);
    assertThat(got.at("/nested/half").bigIntegerValue().toString())
        .isEqualTo(want.at("/nested/half").asText());
    assertThat(got.get("empty").isArray()).isTrue();
    assertThat(got.get("empty")).isEmpty();
  }

  /** Without X the shape said 0 genes; anndata reports var's length. */
  @Test
  void withoutXTheShapeCountsVar() throws Exception {
    JsonNode want = write("no-x");
    Path out = convert();
    try (LocalStorage storage = new LocalStorage(out)) {
      assertThat(Dataset.readManifest(storage, 1).metadata())
          .containsEntry("anndata.shape", want.get("shape").toString().replace(",", ", "));
    }
  }
}
