package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.convert.h5ad.BufferMeter;
import dev.riffle.convert.h5ad.H5adConverter;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ConvertOptions#withAppend}: a converted input becomes the next version of the dataset
 * there, and one that does not fit fails before writing, naming what differs.
 */
class AppendTest {
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

  private ConvertResult parquet(Path in, Path out, boolean append) throws IOException {
    try (LocalStorage s = new LocalStorage(out)) {
      return ParquetConverter.convert(
          List.of(SourceFile.local(in)),
          s,
          allocator,
          ConvertOptions.defaults().withAppend(append));
    }
  }

  private ConvertResult h5ad(Path in, Path out, boolean append) throws IOException {
    try (LocalStorage s = new LocalStorage(out)) {
      return H5adConverter.convert(
          SourceFile.local(in),
          s,
          allocator,
          ConvertOptions.defaults().withAppend(append).withBatchRows(7),
          new BufferMeter());
    }
  }

  private List<List<Object>> rows(Path ds) throws IOException {
    try (LocalStorage s = new LocalStorage(ds)) {
      return DatasetRows.read(s, allocator);
    }
  }

  private static List<String> files(Path ds) throws IOException {
    try (Stream<Path> all = Files.walk(ds)) {
      return all.filter(Files::isRegularFile)
          .map(p -> ds.relativize(p).toString())
          .sorted()
          .toList();
    }
  }

  @Test
  void parquetAppendsAVersionAndRefusesAnotherSchema() throws IOException {
    Path a = dir.resolve("a.parquet");
    Path b = dir.resolve("b.parquet");
    List<List<Object>> first =
        ParquetFixtures.writeAllTypes(a, 300, 1, CompressionCodecName.SNAPPY, 1 << 20);
    List<List<Object>> second =
        ParquetFixtures.writeAllTypes(b, 200, 2, CompressionCodecName.ZSTD, 1 << 20);
    Path ds = dir.resolve("ds");
    parquet(a, ds, false);
    ConvertResult r = parquet(b, ds, true);
    assertThat(r.rows()).isEqualTo(200);
    assertThat(r.manifest().version()).isEqualTo(2);
    assertThat(r.manifest().totalRows()).isEqualTo(500);
    assertThat(r.manifest().provenance().sources().get(0).uri()).endsWith("b.parquet");
    List<List<Object>> all = new ArrayList<>(first);
    all.addAll(second);
    assertThat(rows(ds)).isEqualTo(all);

    // Without append, the dataset there is refused; with it, another schema is, naming the field.
    assertThatThrownBy(() -> parquet(b, ds, false))
        .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    Path other = dir.resolve("other.parquet");
    ParquetFixtures.writeAllTypes(
        other, 10, 3, CompressionCodecName.SNAPPY, 1 << 20, java.util.Set.of("str"));
    List<String> before = files(ds);
    assertThatThrownBy(() -> parquet(other, ds, true))
        .isInstanceOf(InputException.class)
        .hasMessageStartingWith(other + ": cannot append to ")
        .hasMessageEndingWith("version 2: the schema differs in field 'str' is missing");
    assertThat(files(ds)).as("nothing written").isEqualTo(before);
    try (LocalStorage s = new LocalStorage(ds)) {
      assertThat(Dataset.versions(s)).containsExactly(1L, 2L);
    }
  }

  @Test
  void appendingToNothingFailsNamingTheLocation() throws IOException {
    Path a = dir.resolve("a.parquet");
    ParquetFixtures.writeNested(a, 10, 1, 1 << 20);
    assertThatThrownBy(() -> parquet(a, dir.resolve("none"), true))
        .isInstanceOf(java.nio.file.NoSuchFileException.class)
        .hasMessageContaining("no Riffle dataset there");
  }

  @Test
  void h5adAppendsCellsThatShareTheGenes() throws IOException {
    Path fixtures = H5adConverterTest.FIXTURES;
    Path ds = dir.resolve("cells");
    h5ad(fixtures.resolve("csr.h5ad"), ds, false);
    Map<String, List<Object>> one = H5adRows.dataset(ds, allocator);
    List<String> tables;
    try (Stream<Path> t = Files.list(ds.resolve("tables"))) {
      tables = t.map(p -> p.getFileName().toString()).sorted().toList();
    }
    // Same cells and genes, stored as CSC: the same rows again.
    ConvertResult r = h5ad(fixtures.resolve("csc.h5ad"), ds, true);
    Manifest m = r.manifest();
    assertThat(m.version()).isEqualTo(2);
    assertThat(m.totalRows()).isEqualTo(80);
    assertThat(m.metadata())
        .containsEntry("anndata.shape", "[80, 25]")
        .containsEntry("riffle.table.var", "tables/var.riffle");
    Map<String, List<Object>> both = H5adRows.dataset(ds, allocator);
    assertThat(both.keySet()).isEqualTo(one.keySet());
    for (String column : one.keySet()) {
      List<Object> twice = new ArrayList<>(one.get(column));
      twice.addAll(one.get(column));
      assertThat(both.get(column)).as(column).isEqualTo(twice);
    }
    try (Stream<Path> t = Files.list(ds.resolve("tables"))) {
      assertThat(t.map(p -> p.getFileName().toString()).sorted().toList())
          .as("no second copy of a side table")
          .isEqualTo(tables);
    }

    // Other genes: refused before anything is written.
    Path other = dir.resolve("other.h5ad");
    SyntheticH5ad.write(other, 30, 40, 3, false);
    List<String> before = files(ds);
    assertThatThrownBy(() -> h5ad(other, ds, true))
        .isInstanceOf(InputException.class)
        .hasMessageStartingWith(other + ": cannot append to ")
        .hasMessageContaining("this file has 40 genes (var), the dataset's shape is [80, 25]");
    assertThat(files(ds)).isEqualTo(before);
  }
}
