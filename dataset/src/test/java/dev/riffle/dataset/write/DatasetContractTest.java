package dev.riffle.dataset.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.WriterOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * What every storage must do for datasets: multi-file round trips, global takes equal to per-file
 * takes, splits, deletions, version history, concurrent publishers, validation of damaged or
 * missing files, and nothing published on any failure. Subclasses give the storage (local directory
 * here; Hadoop file:// and s3a:// in the s3 module).
 */
@ExtendWith(SeedExtension.class)
public abstract class DatasetContractTest {
  protected BufferAllocator allocator;
  protected long seed;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  static final DictionaryEncoding PLATE =
      new DictionaryEncoding(3, false, new ArrowType.Int(16, true));
  static final Schema SCHEMA =
      new Schema(
          List.of(
              TypeCase.f("id", new ArrowType.Int(64, false)),
              new Field("plate", new FieldType(true, new ArrowType.Int(16, true), PLATE), null),
              TypeCase.f(
                  "indices",
                  ArrowType.List.INSTANCE,
                  TypeCase.notNull("item", new ArrowType.Int(32, true))),
              TypeCase.f("name", ArrowType.Utf8.INSTANCE)));

  /** A fresh, empty dataset location. */
  protected abstract Storage newStorage() throws IOException;

  /**
   * The batch sizes the scan test checks every view with. A store with a round trip per read (S3)
   * may leave out the single-row batches, whose thousands of one-row takes cost minutes there and
   * test nothing the local run does not.
   */
  protected int[] scanBatchSizes() {
    return new int[] {1, 7, 333, 5000};
  }

  @BeforeEach
  void setUpAllocator(@Seed long seed) {
    allocator = new RootAllocator();
    this.seed = seed;
  }

  @AfterEach
  void tearDownAllocator() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    allocator.close();
  }

  /** Rows [first, first + n) of a deterministic table, and its dictionary. */
  final class Rows implements AutoCloseable {
    final VectorSchemaRoot root;
    final VarCharVector dictionary;
    final DictionaryProvider.MapDictionaryProvider provider;

    Rows(long first, int n, long dictSeed) {
      dictionary = RandomData.dictionary("plate", dictSeed, allocator);
      provider = new DictionaryProvider.MapDictionaryProvider(new Dictionary(dictionary, PLATE));
      root = RandomData.generate(SCHEMA, n, seed + first, 0.1, allocator);
    }

    @Override
    public void close() {
      root.close();
      dictionary.close();
    }
  }

  /** Writes a version with {@code batches} batches of {@code rows} rows, one file per batch. */
  Manifest write(Storage storage, boolean append, int batches, int rows, long dictSeed)
      throws IOException {
    DatasetOptions o =
        DatasetOptions.defaults()
            .withTargetFileBytes(1)
            .withFileOptions(WriterOptions.defaults().withPageBytes(8192))
            .withLicense("CC-BY-4.0")
            .withProvenance(
                new Manifest.Provenance(
                    "test",
                    "1",
                    List.of(new Manifest.Source("file:/in.parquet", 10L, "00".repeat(32)))));
    try (Rows first = new Rows(0, 1, dictSeed);
        DatasetWriter w =
            append
                ? DatasetWriter.append(storage, SCHEMA, first.provider, o)
                : DatasetWriter.create(storage, SCHEMA, first.provider, o)) {
      for (int b = 0; b < batches; b++) {
        try (Rows batch = new Rows(b * 1000L, rows, dictSeed)) {
          w.write(batch.root);
        }
      }
      return w.publish();
    }
  }

  @Test
  public void multiFileRoundTripAndGlobalTakes() throws Exception {
    Storage storage = newStorage();
    Manifest m = write(storage, false, 4, 700, 1);
    assertThat(m.files().size()).isGreaterThan(2);
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThat(ds.totalRows()).isEqualTo(2800);
      assertThat(ds.version()).isEqualTo(1);
      // Scan everything and compare with what was written, batch by batch.
      DatasetView.Cursor cursor = ds.all().scan(null, 333);
      long at = 0;
      VectorSchemaRoot got;
      DictionaryProvider dicts = ds.dictionaries();
      while ((got = cursor.next()) != null) {
        try (VectorSchemaRoot g = got) {
          for (int i = 0; i < g.getRowCount(); i++, at++) {
            try (Rows expected = new Rows((at / 700) * 1000, 700, 1)) {
              assertRow(expected, (int) (at % 700), g, i, dicts);
            }
          }
        }
      }
      assertThat(at).isEqualTo(2800);
      // Random global rows across files equal the per-file takes.
      SplittableRandom r = new SplittableRandom(seed);
      long[] rows = r.longs(200, 0, 2800).toArray();
      try (VectorSchemaRoot global = ds.take(rows, List.of("name", "plate", "indices"))) {
        for (int i = 0; i < rows.length; i++) {
          int file = 0;
          while (file + 1 < ds.fileCount() && m.files().get(file + 1).firstRow() <= rows[i]) {
            file++;
          }
          long local = rows[i] - m.files().get(file).firstRow();
          try (VectorSchemaRoot one =
              ds.file(file).take(new long[] {local}, List.of("name", "plate", "indices"))) {
            for (String f : List.of("name", "indices")) {
              assertThat(
                      new RangeEqualsVisitor(one.getVector(f), global.getVector(f))
                          .rangeEquals(new Range(0, i, 1)))
                  .as(
                      "row "
                          + rows[i]
                          + " field "
                          + f
                          + " file "
                          + one.getVector(f).getObject(0)
                          + " global "
                          + global.getVector(f).getObject(i)
                          + " i="
                          + i)
                  .isTrue();
            }
          }
        }
      }
    }
  }

  private static void assertRow(
      Rows expected, int src, VectorSchemaRoot got, int dst, DictionaryProvider dicts) {
    for (FieldVector actual : got.getFieldVectors()) {
      FieldVector e = expected.root.getVector(actual.getName());
      if (actual.getField().getDictionary() != null) {
        Object want =
            e.isNull(src)
                ? null
                : expected.dictionary.getObject((int) ((BaseIntVector) e).getValueAsLong(src));
        Object have =
            actual.isNull(dst)
                ? null
                : dicts
                    .lookup(PLATE.getId())
                    .getVector()
                    .getObject((int) ((BaseIntVector) actual).getValueAsLong(dst));
        assertThat(String.valueOf(have)).isEqualTo(String.valueOf(want));
      } else {
        assertThat(new RangeEqualsVisitor(e, actual).rangeEquals(new Range(src, dst, 1)))
            .as("field " + actual.getName() + " row " + src)
            .isTrue();
      }
    }
  }

  @Test
  public void appendsKeepHistoryAndRemapDictionaries() throws Exception {
    Storage storage = newStorage();
    write(storage, false, 1, 500, 1);
    // A second writer whose dictionary lists the same values in another order.
    Manifest v2 = write(storage, true, 1, 500, 2);
    assertThat(v2.version()).isEqualTo(2);
    assertThat(v2.parentVersion()).isEqualTo(1);
    assertThat(Dataset.versions(storage)).containsExactly(1L, 2L);
    try (Dataset old = Dataset.open(storage, 1, allocator);
        Dataset ds = Dataset.open(storage, allocator)) {
      assertThat(old.totalRows()).isEqualTo(500);
      assertThat(ds.totalRows()).isEqualTo(1000);
      assertThat(ds.manifest().datasetId()).isEqualTo(old.manifest().datasetId());
      DictionaryProvider dicts = ds.dictionaries();
      try (VectorSchemaRoot got = ds.take(new long[] {10, 510, 20, 520}, List.of("plate"));
          Rows a = new Rows(0, 500, 1);
          Rows b = new Rows(0, 500, 2)) {
        assertRow(a, 10, got, 0, dicts);
        assertRow(b, 10, got, 1, dicts);
        assertRow(a, 20, got, 2, dicts);
        assertRow(b, 20, got, 3, dicts);
      }
    }
  }

  @Test
  public void scansOfEveryViewEqualTakesOfItsRows() throws Exception {
    Storage storage = newStorage();
    write(storage, false, 3, 300, 1);
    // Another writer's dictionary: codes are remapped in scans as in takes.
    write(storage, true, 2, 200, 2);
    DatasetVersions.randomSplit(storage, "train", 0.7, seed, "val");
    SplittableRandom r = new SplittableRandom(seed);
    Roaring64Bitmap deleted = new Roaring64Bitmap();
    for (int i = 0; i < 40; i++) {
      deleted.add(r.nextLong(1300));
    }
    DatasetVersions.deleteRows(storage, deleted);
    try (Dataset ds = Dataset.open(storage, allocator)) {
      Roaring64Bitmap subset = new Roaring64Bitmap();
      subset.addRange(250, 320);
      subset.add(1299);
      List<DatasetView> views =
          List.of(
              ds.all(),
              ds.split("train"),
              ds.split("val"),
              ds.view(subset),
              ds.view(new Roaring64Bitmap()));
      for (DatasetView view : views) {
        for (int batch : scanBatchSizes()) {
          String where = view.name() + " batch " + batch;
          List<Long> expected = new ArrayList<>();
          view.rows().forEach(expected::add);
          int at = 0;
          try (DatasetView.Cursor c = view.scan(null, batch)) {
            VectorSchemaRoot got;
            while ((got = c.next()) != null) {
              try (VectorSchemaRoot g = got) {
                assertThat(g.getRowCount()).as(where).isBetween(1, batch);
                long[] ids = new long[g.getRowCount()];
                for (int i = 0; i < ids.length; i++) {
                  ids[i] = expected.get(at + i);
                }
                try (VectorSchemaRoot want = ds.take(ids, null)) {
                  assertThat(g.contentToTSVString())
                      .as(where + " at " + at)
                      .isEqualTo(want.contentToTSVString());
                }
                at += ids.length;
              }
            }
          }
          assertThat(at).as(where).isEqualTo(expected.size());
        }
      }
    }
  }

  @Test
  public void appendWithAnotherSchemaIsRejectedNamingTheFields() throws Exception {
    Storage storage = newStorage();
    write(storage, false, 1, 10, 1);
    Schema other = new Schema(List.of(TypeCase.f("id", new ArrowType.Int(32, true))));
    assertThatThrownBy(() -> DatasetWriter.append(storage, other, null, DatasetOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'id'")
        .hasMessageContaining("'plate' is missing");
    assertThat(Dataset.versions(storage)).containsExactly(1L);
    assertThatThrownBy(() -> write(storage, false, 1, 10, 1))
        .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
  }

  @Test
  public void splitsAndDeletions() throws Exception {
    Storage storage = newStorage();
    write(storage, false, 2, 500, 1);
    Manifest v2 = DatasetVersions.randomSplit(storage, "train", 0.8, 42, "val");
    Roaring64Bitmap deleted = Roaring64Bitmap.bitmapOf(0, 7, 999);
    Manifest v3 = DatasetVersions.deleteRows(storage, deleted);
    assertThat(v3.version()).isEqualTo(3);
    try (Dataset ds = Dataset.open(storage, allocator);
        Dataset before = Dataset.open(storage, v2.version(), allocator)) {
      assertThat(ds.rowCount()).isEqualTo(997);
      assertThat(before.rowCount()).isEqualTo(1000);
      DatasetView train = ds.split("train");
      DatasetView val = ds.split("val");
      assertThat(train.rowCount() + val.rowCount()).isEqualTo(997);
      assertThat(train.rowCount()).isBetween(700L, 900L);
      Roaring64Bitmap both = train.rows();
      both.and(val.rows());
      assertThat(both.isEmpty()).isTrue();
      // The same seed gives the same split.
      assertThat(before.split("train").rows())
          .isEqualTo(Dataset.open(storage, v2.version(), allocator).split("train").rows());
      assertThatThrownBy(() -> ds.take(new long[] {7}, null)).hasMessageContaining("deleted");
      long scanned = 0;
      DatasetView.Cursor c = ds.all().scan(List.of("id"), 100);
      VectorSchemaRoot b;
      while ((b = c.next()) != null) {
        scanned += b.getRowCount();
        b.close();
      }
      assertThat(scanned).isEqualTo(997);
      assertThatThrownBy(() -> ds.split("test")).hasMessageContaining("[train, val]");
    }
  }

  @Test
  public void concurrentPublishersExactlyOneWins() throws Exception {
    Storage storage = newStorage();
    write(storage, false, 1, 100, 1);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Manifest>> results = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        int k = i;
        Callable<Manifest> task =
            () -> DatasetVersions.setSplit(storage, "s" + k, Roaring64Bitmap.bitmapOf(k));
        results.add(pool.submit(task));
      }
      int won = 0;
      int lost = 0;
      for (Future<Manifest> f : results) {
        try {
          f.get();
          won++;
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(ConcurrentPublishException.class);
          lost++;
        }
      }
      // Each version number is won by exactly one publisher.
      assertThat(won + lost).isEqualTo(4);
      assertThat(Dataset.versions(storage)).hasSize(1 + won);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  public void validateNamesDamagedAndMissingFiles() throws Exception {
    Storage storage = newStorage();
    Manifest m = write(storage, false, 2, 500, 1);
    DatasetValidator.Report ok = DatasetValidator.validate(storage, 1, true, allocator, null);
    assertThat(ok.problems()).isEmpty();
    assertThat(ok.orphans()).isEmpty();
    // Flip one byte in the middle of the first file.
    String victim = m.files().get(0).path();
    byte[] bytes = read(storage, victim);
    bytes[bytes.length / 2] ^= 0x40;
    try (OutputStream out = storage.create(victim)) {
      out.write(bytes);
    }
    String missing = m.files().get(1).path();
    storage.delete(missing);
    DatasetValidator.Report bad = DatasetValidator.validate(storage, 1, true, allocator, null);
    assertThat(String.join("\n", bad.problems()))
        .contains(victim)
        .contains("SHA-256")
        .contains(missing)
        .contains("missing");
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThatThrownBy(() -> ds.file(1)).isInstanceOf(NoSuchFileException.class);
    }
  }

  @Test
  public void failuresPublishNothingAndGcRemovesOrphans() throws Exception {
    Storage storage = newStorage();
    write(storage, false, 1, 200, 1);
    // A writer that fails mid-way (a batch with another schema) leaves no version and no files.
    try (Rows rows = new Rows(0, 200, 1);
        DatasetWriter w =
            DatasetWriter.append(
                storage,
                SCHEMA,
                rows.provider,
                DatasetOptions.defaults().withTargetFileBytes(4096))) {
      w.write(rows.root);
      try (VectorSchemaRoot other =
          RandomData.generate(
              new Schema(List.of(TypeCase.f("x", new ArrowType.Int(8, true)))),
              3,
              1,
              0,
              allocator)) {
        assertThatThrownBy(() -> w.write(other)).isInstanceOf(IllegalArgumentException.class);
      }
    }
    assertThat(Dataset.versions(storage)).containsExactly(1L);
    DatasetGc.Options now = DatasetGc.Options.defaults().withGrace(java.time.Duration.ZERO);
    assertThat(DatasetGc.collect(storage, now.withDryRun(true)).deleted()).isEmpty();
    // A writer abandoned without close (a crash of its thread) still holds a fresh lease: gc
    // refuses until forced, and then removes its files and lease.
    Rows rows = new Rows(0, 300, 1);
    closeables.add(rows);
    DatasetWriter abandoned =
        DatasetWriter.append(
            storage, SCHEMA, rows.provider, DatasetOptions.defaults().withTargetFileBytes(4096));
    abandoned.write(rows.root);
    abandoned.write(rows.root);
    List<String> orphans = DatasetValidator.validate(storage, 1, false, allocator, null).orphans();
    assertThat(orphans).isNotEmpty();
    assertThatThrownBy(() -> DatasetGc.collect(storage, now))
        .isInstanceOf(DatasetBusyException.class)
        .hasMessageContaining("_leases/");
    assertThat(storage.list(DatasetLayout.DATA_DIR)).hasSizeGreaterThanOrEqualTo(orphans.size());
    DatasetGc.Report gc = DatasetGc.collect(storage, now.withForce(true));
    assertThat(gc.deleted()).containsExactlyInAnyOrderElementsOf(orphans);
    assertThat(gc.leasesRemoved()).hasSize(1);
    assertThat(storage.list(DatasetLayout.LEASES_DIR)).isEmpty();
    // That writer, alive after all, now refuses to publish: its lease is gone.
    assertThatThrownBy(abandoned::publish)
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("nothing was published");
    assertThat(Dataset.versions(storage)).containsExactly(1L);
    assertThat(DatasetValidator.validate(storage, 1, true, allocator, null).ok()).isTrue();
    assertThat(DatasetValidator.validate(storage, 1, false, allocator, null).orphans()).isEmpty();
  }

  static byte[] read(Storage storage, String path) throws IOException {
    return storage.readAll(path);
  }
}
