package dev.riffle.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetVersions;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.ReadStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Dataset scans go through each file's sequential page path (issue #15 item 2): a damaged page
 * fails the scan as it fails a scan of the file, each page is read once, and files without a row of
 * the view are not read.
 */
class ViewScanTest {
  static final int FILES = 3;
  static final int ROWS = 300;

  @TempDir Path dir;
  BufferAllocator allocator;
  LocalStorage storage;
  Manifest manifest;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    storage = new LocalStorage(dir);
    manifest = TestDatasets.write(storage, allocator, FILES, ROWS);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private long scanAll(DatasetView view, List<String> fields, int batch) throws Exception {
    long n = 0;
    try (DatasetView.Cursor c = view.scan(fields, batch)) {
      VectorSchemaRoot next;
      while ((next = c.next()) != null) {
        try (VectorSchemaRoot b = next) {
          BigIntVector id =
              fields == null || fields.contains("id") ? (BigIntVector) b.getVector("id") : null;
          for (int i = 0; id != null && i < b.getRowCount(); i++) {
            assertThat(view.rows().contains(id.get(i))).isTrue();
          }
          n += b.getRowCount();
        }
      }
    }
    return n;
  }

  @Test
  void aDamagedZipFixedPageFailsTheDatasetScanNamingFileAndOffset() throws Exception {
    Path file = dir.resolve(manifest.files().get(1).path());
    PageInfo victim;
    try (FileReader r = FileReader.open(file, allocator)) {
      int vec = r.schema().columnOf(r.schema().fieldIndex("vec"));
      victim = r.pages(vec).get(1);
    }
    assertThat(victim.layout()).isEqualTo(ColumnLayout.LAYOUT_ZIP_FIXED);
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) (victim.offset() + victim.byteLength() / 2)] ^= 0x01;
    Files.write(file, bytes);
    // The manifest's SHA-256 now disagrees, but opening a file does not hash it.
    try (Dataset ds = Dataset.open(storage, allocator)) {
      for (List<String> fields : java.util.Arrays.asList(null, List.of("vec"))) {
        assertThatThrownBy(() -> scanAll(ds.all(), fields, 64))
            .isInstanceOf(CorruptFileException.class)
            .hasMessageContaining(file.toString())
            .hasMessageContaining("at offset " + victim.offset())
            .hasMessageContaining("page 1 of column 'vec' fails its checksum");
      }
      // A view whose rows all lie in the other files does not read the damaged one.
      Roaring64Bitmap others = RowSets.range(ROWS);
      others.addRange(2L * ROWS, 3L * ROWS);
      assertThat(scanAll(ds.view(others), null, 100)).isEqualTo(2L * ROWS);
    }
  }

  @Test
  void aDatasetScanReadsEachPageOnce() throws Exception {
    try (Dataset ds = Dataset.open(storage, allocator)) {
      long pages = 0;
      long vecPages = 0;
      long vecPageBytes = 0;
      long vecSpan = 0;
      for (int f = 0; f < FILES; f++) {
        FileReader r = ds.file(f);
        r.loadColumns(null);
        for (int c = 0; c < r.schema().columns().size(); c++) {
          List<PageInfo> list = r.pages(c);
          pages += list.size();
          if (r.schema().columns().get(c).name().equals("vec")) {
            vecPages += list.size();
            for (PageInfo p : list) {
              vecPageBytes += p.byteLength();
            }
            PageInfo last = list.get(list.size() - 1);
            vecSpan += last.offset() + last.byteLength() - list.get(0).offset();
          }
        }
      }
      assertThat(vecPages).isGreaterThanOrEqualTo(FILES * 3L);
      ReadStats stats = ds.stats();

      stats.reset();
      assertThat(scanAll(ds.all(), List.of("vec"), 50)).isEqualTo(FILES * ROWS);
      // Every page whole, once (consecutive pages in one read), never a read per row.
      assertThat(stats.reads()).isBetween((long) FILES, vecPages);
      assertThat(stats.bytesRead()).isBetween(vecPageBytes, vecSpan);
      assertThat(stats.valuesDecoded()).isEqualTo(FILES * ROWS);

      stats.reset();
      assertThat(scanAll(ds.all(), null, 77)).isEqualTo(FILES * ROWS);
      assertThat(stats.reads()).isBetween((long) FILES, pages);

      // A split: the same pages, each still read once, rows outside it not decoded.
      Roaring64Bitmap every3rd = new Roaring64Bitmap();
      for (long g = 0; g < FILES * ROWS; g += 3) {
        every3rd.add(g);
      }
      DatasetVersions.setSplit(storage, "thirds", every3rd);
    }
    try (Dataset ds = Dataset.open(storage, allocator)) {
      DatasetView thirds = ds.split("thirds");
      ds.stats().reset();
      assertThat(scanAll(thirds, List.of("id", "vec"), 40)).isEqualTo(FILES * ROWS / 3);
      // Only the split's rows are decoded.
      assertThat(ds.stats().valuesDecoded()).isEqualTo(2L * FILES * ROWS / 3);
      long reads = ds.stats().reads();
      ds.stats().reset();
      scanAll(ds.all(), List.of("id", "vec"), 40);
      // Column blocks were loaded by the first scan: the second reads only pages, so at most as
      // many reads as the split's scan, which read pages and blocks.
      assertThat(ds.stats().reads()).isLessThanOrEqualTo(reads);
      assertThat(reads).isLessThan(FILES * ROWS / 3 / 4);
    }
  }

  @Test
  void whereKeepsTheViewsRowsTheFilterMatches() throws Exception {
    Roaring64Bitmap every3rd = new Roaring64Bitmap();
    for (long g = 0; g < FILES * ROWS; g += 3) {
      every3rd.add(g);
    }
    DatasetVersions.setSplit(storage, "thirds", every3rd);
    try (Dataset ds = Dataset.open(storage, allocator)) {
      PageFilter f =
          PageFilter.and(
              PageFilter.ge("id", 100),
              PageFilter.le("id", 700),
              PageFilter.or(
                  PageFilter.lt("id", 200.5), PageFilter.in("id", List.of(650, 651, 699))));
      DatasetView matched = ds.split("thirds").where(f);
      Roaring64Bitmap expected = new Roaring64Bitmap();
      for (long g = 0; g < FILES * ROWS; g += 3) {
        if (g >= 100 && g <= 700 && (g < 200.5 || g == 650 || g == 651 || g == 699)) {
          expected.add(g);
        }
      }
      assertThat(matched.rows()).isEqualTo(expected);
      assertThat(matched.rowCount()).isEqualTo(33 + 2); // 102, 105, …, 198; 651 and 699
      // Its scan returns those rows (the id column holds the global row id).
      assertThat(scanAll(matched, List.of("id", "vec"), 16))
          .isEqualTo(expected.getLongCardinality());

      // Rows of several files, the view being all rows.
      DatasetView first = ds.all().where(PageFilter.lt("id", 250));
      assertThat(first.rowCount()).isEqualTo(250);
      assertThatThrownBy(() -> ds.all().where(PageFilter.eq("nope", 1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no column 'nope'");
    }
  }

  @Test
  void filesWithoutARowOfTheViewAreNotOpened() throws Exception {
    Roaring64Bitmap lastFile = new Roaring64Bitmap();
    lastFile.addRange(2L * ROWS + 10, 2L * ROWS + 20);
    DatasetVersions.setSplit(storage, "tail", lastFile);
    Files.delete(dir.resolve(manifest.files().get(0).path()));
    Files.delete(dir.resolve(manifest.files().get(1).path()));
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThat(scanAll(ds.split("tail"), null, 3)).isEqualTo(10);
      assertThatThrownBy(() -> scanAll(ds.all(), null, 3))
          .isInstanceOf(java.nio.file.NoSuchFileException.class);
    }
  }
}
