package dev.riffle.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetVersions;
import dev.riffle.format.CorruptFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Manifests that parse but cannot be right (issue #15 item 7): row ids of 2^63 and more, which
 * Roaring bitmaps order as unsigned; row counts that overflow; and one damaged manifest among
 * healthy versions.
 */
class ManifestChecksTest {
  @TempDir Path dir;
  BufferAllocator allocator;
  LocalStorage storage;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    storage = new LocalStorage(dir);
    TestDatasets.write(storage, allocator, 3, 100);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** {5, 2^64 - 1}: first() is 5 and last() is -1 as signed longs. */
  private static String withTopId(long... ids) {
    Roaring64Bitmap rows = Roaring64Bitmap.bitmapOf(ids);
    rows.add(-1L);
    return RowSets.encode(rows);
  }

  @Test
  void deletionsAtOrAbove2To63AreCorruption() throws Exception {
    TestDatasets.editManifest(storage, 1, m -> m.put("deletions", withTopId(5)));
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("00000000000000000001.manifest.json")
        .hasMessageContaining("deletions names row 18446744073709551615, outside [0, 300)");
    DatasetValidator.Report report = DatasetValidator.validate(storage, 1, false, allocator, null);
    assertThat(report.ok()).isFalse();
    assertThat(report.problems()).singleElement().asString().contains("deletions names row");
    // The smallest such id, 2^63, too.
    TestDatasets.editManifest(
        storage, 1, m -> m.put("deletions", RowSets.encode(Roaring64Bitmap.bitmapOf(1L << 63))));
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .hasMessageContaining("deletions names row 9223372036854775808");
  }

  @Test
  void splitsAtOrAbove2To63AreCorruption() throws Exception {
    TestDatasets.editManifest(
        storage, 1, m -> m.putObject("splits").put("train", withTopId(0, 1, 2)));
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("split train names row 18446744073709551615");
    assertThat(DatasetValidator.validate(storage, 1, false, allocator, null).ok()).isFalse();
  }

  @Test
  void subsetsAndNewSplitsAbove2To63AreRefused() throws Exception {
    Roaring64Bitmap rows = Roaring64Bitmap.bitmapOf(5, -1L);
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThatThrownBy(() -> ds.view(rows))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("outside [0, 300)");
    }
    assertThatThrownBy(() -> DatasetVersions.setSplit(storage, "bad", rows))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DatasetVersions.deleteRows(storage, rows))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Dataset.versions(storage)).containsExactly(1L);
  }

  @Test
  void rowCountsThatOverflowAreCorruptionNamingTheField() throws Exception {
    TestDatasets.editManifest(
        storage, 1, m -> TestDatasets.file(m, 2).put("rowCount", Long.MAX_VALUE));
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("rowCount 9223372036854775807")
        .hasMessageContaining("2^63 - 1");
    DatasetValidator.Report report = DatasetValidator.validate(storage, 1, true, allocator, null);
    assertThat(report.problems()).singleElement().asString().contains("rowCount");

    TestDatasets.editManifest(storage, 1, m -> TestDatasets.file(m, 2).put("rowCount", -4));
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("negative rowCount -4");

    TestDatasets.editManifest(
        storage,
        1,
        m -> {
          TestDatasets.file(m, 2).put("rowCount", 100);
          TestDatasets.file(m, 1).put("firstRow", 7);
        });
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("has firstRow 7, but the rowCounts before it add up to 100");
  }

  @Test
  void byteLengthsThatOverflowAreCorruption() throws Exception {
    TestDatasets.editManifest(
        storage,
        1,
        m -> {
          TestDatasets.file(m, 0).put("byteLength", Long.MAX_VALUE);
          TestDatasets.file(m, 1).put("byteLength", Long.MAX_VALUE);
        });
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("2^63 - 1");
  }

  @Test
  void aDamagedOldManifestLeavesAHealthyVersionIntact() throws Exception {
    DatasetVersions.setSplit(storage, "train", Roaring64Bitmap.bitmapOf(1, 2, 3));
    DatasetVersions.setSplit(storage, "test", Roaring64Bitmap.bitmapOf(4));
    Files.writeString(dir.resolve(Manifest.path(2)), "garbage");

    DatasetValidator.Report healthy = DatasetValidator.validate(storage, 3, true, allocator, null);
    assertThat(healthy.ok()).as("%s", healthy.problems()).isTrue();
    assertThat(healthy.notes())
        .singleElement()
        .asString()
        .contains("00000000000000000002.manifest.json", "not a valid manifest");

    DatasetValidator.Report damaged = DatasetValidator.validate(storage, 2, false, allocator, null);
    assertThat(damaged.ok()).isFalse();
    assertThat(damaged.problems()).singleElement().asString().contains("not a valid manifest");
    try (Dataset ds = Dataset.open(storage, 3, allocator)) {
      assertThat(ds.split("train").rowCount()).isEqualTo(3);
    }
  }

  @Test
  void aManifestThatDoesNotParseIsNamedInItsOwnTermsNotJacksons() throws Exception {
    Path path = dir.resolve(Manifest.path(1));
    String[][] cases = {
      {
        "{\"manifestVersion\": 1, \"files\": 5}",
        "not a valid manifest: field 'files' must be a list"
      },
      {"{\"version\": \"x\"}", "not a valid manifest: field 'version' must be a number"},
      {"{\"files\": [{\"rowCount\": []}]}", "field 'files[0].rowCount' must be a number"},
      {"[]", "not a valid manifest: the manifest must be an object"},
      {"", "not a valid manifest: the file is empty"},
      {"{", "not a valid manifest: Unexpected end-of-input: expected close marker for Object"},
    };
    for (String[] c : cases) {
      Files.writeString(path, c[0]);
      assertThatThrownBy(() -> Dataset.open(storage, 1, allocator))
          .as(c[0])
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining("00000000000000000001.manifest.json")
          .hasMessageContaining(c[1])
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .doesNotContain("dev.riffle", "java.util", "Source", "`", "\n"));
    }
  }
}
