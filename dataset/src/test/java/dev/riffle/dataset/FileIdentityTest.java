package dev.riffle.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.read.FileReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data file is the file its manifest names (issue #15 item 3): the manifest records each file's
 * footer CRC32C, and a file swapped with another of equal length and row count fails to open. The
 * files here have equal layouts, so only the path each file's schema records tells their footers
 * apart (their SECTORS pages even have equal page CRCs, by the CRC residue of checksummed sectors).
 */
class FileIdentityTest {
  @TempDir Path dir;
  BufferAllocator allocator;
  LocalStorage storage;
  Manifest manifest;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    storage = new LocalStorage(dir);
    manifest = TestDatasets.write(storage, allocator, 3, 100);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void theWriterRecordsEachFilesFooterCrc() throws Exception {
    for (Manifest.DataFile f : manifest.files()) {
      assertThat(f.footerCrc32c()).matches("[0-9a-f]{8}");
      try (FileReader r = FileReader.open(dir.resolve(f.path()), allocator)) {
        assertThat(f.footerCrc32c()).isEqualTo(Manifest.DataFile.crcHex(r.footerCrc32c()));
        // What makes footers differ: rows of equal layout would give equal footers.
        assertThat(r.arrowSchema().getCustomMetadata())
            .containsEntry(DatasetLayout.FILE_PATH_KEY, f.path());
      }
    }
    // Every file's footer differs.
    assertThat(manifest.files().stream().map(Manifest.DataFile::footerCrc32c).distinct())
        .hasSize(3);
    String json = Files.readString(dir.resolve(Manifest.path(1)), StandardCharsets.UTF_8);
    assertThat(json).contains("\"footerCrc32c\" : \"" + manifest.files().get(0).footerCrc32c());
    // Deterministic: the same manifest has the same bytes, read back or not.
    byte[] bytes = Files.readAllBytes(dir.resolve(Manifest.path(1)));
    assertThat(ManifestCodec.write(ManifestCodec.read(bytes, "m", 1))).isEqualTo(bytes);
  }

  @Test
  void swappedFilesOfEqualSizeFailToOpen() throws Exception {
    String a = manifest.files().get(0).path();
    String b = manifest.files().get(1).path();
    assertThat(Files.size(dir.resolve(a))).isEqualTo(Files.size(dir.resolve(b)));
    swap(a, b);
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThatThrownBy(() -> ds.take(new long[] {0}, null))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining(dir.resolve(a).toString())
          .hasMessageContaining(
              a
                  + " is not the file version 1 names (footer CRC 0x"
                  + manifest.files().get(1).footerCrc32c()
                  + ", manifest says 0x"
                  + manifest.files().get(0).footerCrc32c()
                  + "): files were swapped or replaced");
      assertThatThrownBy(() -> ds.all().scan(null, 64).next())
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining("files were swapped or replaced");
      // The third file is untouched and still reads.
      try (VectorSchemaRoot r = ds.take(new long[] {250}, List.of("id"))) {
        assertThat(((BigIntVector) r.getVector("id")).get(0)).isEqualTo(250);
      }
    }
    DatasetValidator.Report report = DatasetValidator.validate(storage, 1, true, allocator, null);
    assertThat(report.problems()).hasSize(2).allMatch(p -> p.contains("SHA-256"));
  }

  @Test
  void aFileReplacedByACopyOfAnotherFailsToOpen() throws Exception {
    String a = manifest.files().get(0).path();
    String b = manifest.files().get(1).path();
    Files.copy(dir.resolve(b), dir.resolve(a), StandardCopyOption.REPLACE_EXISTING);
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThatThrownBy(() -> ds.take(new long[] {5}, null))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining("files were swapped or replaced");
    }
  }

  @Test
  void manifestsWithoutTheFieldStayReadableUnchecked() throws Exception {
    TestDatasets.editManifest(
        storage,
        1,
        m -> {
          for (int i = 0; i < 3; i++) {
            TestDatasets.file(m, i).remove("footerCrc32c");
          }
        });
    Manifest old = Dataset.readManifest(storage, 1);
    assertThat(old.files()).allMatch(f -> f.footerCrc32c() == null);
    // Written back without the field, not with a null.
    assertThat(new String(ManifestCodec.write(old), StandardCharsets.UTF_8))
        .doesNotContain("footerCrc32c");
    swap(manifest.files().get(0).path(), manifest.files().get(1).path());
    try (Dataset ds = Dataset.open(storage, allocator);
        VectorSchemaRoot r = ds.take(new long[] {0}, List.of("id"))) {
      // Without the field nothing tells the files apart: the other file's first row.
      assertThat(((BigIntVector) r.getVector("id")).get(0)).isEqualTo(100);
    }
  }

  @Test
  void aMalformedFooterCrcIsCorruption() throws Exception {
    TestDatasets.editManifest(
        storage, 1, m -> TestDatasets.file(m, 1).put("footerCrc32c", "0xABCDEF12"));
    assertThatThrownBy(() -> Dataset.open(storage, allocator))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("footerCrc32c '0xABCDEF12', not 8 lower-case hex digits");
  }

  private void swap(String a, String b) throws Exception {
    Path tmp = dir.resolve("swap.tmp");
    Files.move(dir.resolve(a), tmp);
    Files.move(dir.resolve(b), dir.resolve(a));
    Files.move(tmp, dir.resolve(b));
  }
}
