package dev.riffle.dataset.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.TypeCase;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/** Files written by several writers, published once by a coordinator. */
class DatasetCommitTest {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              TypeCase.f("id", new ArrowType.Int(64, true)),
              TypeCase.f("name", ArrowType.Utf8.INSTANCE)));
  static final Schema OTHER = new Schema(List.of(TypeCase.f("x", new ArrowType.Int(32, true))));
  static final DatasetOptions OPTIONS = DatasetOptions.defaults().withTargetFileRows(100);

  @TempDir Path dir;
  BufferAllocator allocator;
  Storage storage;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    storage = new LocalStorage(dir);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** What one task writes: {@code rows} rows of SCHEMA generated from {@code seed}. */
  List<Manifest.DataFile> task(Schema schema, int rows, long seed) throws Exception {
    try (VectorSchemaRoot batch = RandomData.generate(schema, rows, seed, 0.1, allocator);
        DatasetWriter w = DatasetWriter.forFiles(storage, schema, null, OPTIONS, "job1-")) {
      w.write(batch);
      return w.finishFiles();
    }
  }

  List<Object> ids(Dataset ds, long from, long to) throws Exception {
    long[] rows = new long[(int) (to - from)];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = from + i;
    }
    List<Object> out = new ArrayList<>();
    try (VectorSchemaRoot got = ds.take(rows, List.of("id"))) {
      for (int i = 0; i < rows.length; i++) {
        out.add(got.getVector("id").getObject(i));
      }
    }
    return out;
  }

  List<Object> expectedIds(int rows, long seed) {
    List<Object> out = new ArrayList<>();
    try (VectorSchemaRoot batch = RandomData.generate(SCHEMA, rows, seed, 0.1, allocator)) {
      for (int i = 0; i < rows; i++) {
        out.add(batch.getVector("id").getObject(i));
      }
    }
    return out;
  }

  @Test
  void tasksBecomeOneVersionInTheGivenOrder() throws Exception {
    List<Manifest.DataFile> a = task(SCHEMA, 250, 1);
    List<Manifest.DataFile> b = task(SCHEMA, 30, 2);
    assertThat(a).extracting(Manifest.DataFile::firstRow).containsExactly(0L, 100L, 200L);
    assertThat(b).extracting(Manifest.DataFile::firstRow).containsExactly(0L);
    assertThat(Dataset.versions(storage)).isEmpty();

    List<Manifest.DataFile> files = new ArrayList<>(b);
    files.addAll(a);
    Manifest m =
        DatasetCommit.publish(
            storage, DatasetCommit.Mode.CREATE, SCHEMA, null, OPTIONS.withLicense("MIT"), files);
    assertThat(m.version()).isEqualTo(1);
    assertThat(m.files())
        .extracting(Manifest.DataFile::firstRow)
        .containsExactly(0L, 30L, 130L, 230L);
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThat(ds.totalRows()).isEqualTo(280);
      assertThat(ids(ds, 0, 30)).isEqualTo(expectedIds(30, 2));
      assertThat(ids(ds, 30, 280)).isEqualTo(expectedIds(250, 1));
    }

    assertThatThrownBy(
            () ->
                DatasetCommit.publish(
                    storage, DatasetCommit.Mode.CREATE, SCHEMA, null, OPTIONS, task(SCHEMA, 5, 3)))
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining("latest version 1");
  }

  @Test
  void appendKeepsRowsAndSplitsOverwriteStartsOverWithoutDeleting() throws Exception {
    DatasetCommit.publish(
        storage,
        DatasetCommit.Mode.CREATE,
        SCHEMA,
        null,
        OPTIONS.withLicense("MIT").withMetadata(Map.of("k", "v")),
        task(SCHEMA, 120, 1));
    Roaring64Bitmap first = new Roaring64Bitmap();
    first.addRange(0, 10);
    DatasetVersions.setSplit(storage, "head", first);

    Manifest appended =
        DatasetCommit.publish(
            storage, DatasetCommit.Mode.APPEND, SCHEMA, null, OPTIONS, task(SCHEMA, 40, 2));
    assertThat(appended.version()).isEqualTo(3);
    assertThat(appended.totalRows()).isEqualTo(160);
    assertThat(appended.splits()).containsKey("head");
    assertThat(appended.license()).isEqualTo("MIT");
    try (Dataset ds = Dataset.open(storage, allocator)) {
      assertThat(ids(ds, 120, 160)).isEqualTo(expectedIds(40, 2));
      assertThat(ids(ds, 0, 120)).isEqualTo(expectedIds(120, 1));
    }

    assertThatThrownBy(
            () ->
                DatasetCommit.publish(
                    storage, DatasetCommit.Mode.APPEND, OTHER, null, OPTIONS, task(OTHER, 5, 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'x' is new");

    Manifest over =
        DatasetCommit.publish(
            storage, DatasetCommit.Mode.OVERWRITE, OTHER, null, OPTIONS, task(OTHER, 7, 4));
    assertThat(over.version()).isEqualTo(4);
    assertThat(over.parentVersion()).isEqualTo(3);
    assertThat(over.totalRows()).isEqualTo(7);
    assertThat(over.splits()).isEmpty();
    assertThat(over.license()).isEqualTo("MIT");
    assertThat(over.metadata()).containsEntry("k", "v");
    try (Dataset now = Dataset.open(storage, allocator);
        Dataset old = Dataset.open(storage, 3, allocator)) {
      assertThat(now.arrowSchema()).isEqualTo(OTHER);
      assertThat(now.manifest().datasetId()).isEqualTo(old.manifest().datasetId());
      assertThat(ids(old, 0, 120)).isEqualTo(expectedIds(120, 1));
    }
  }

  @Test
  void appendNeedsADatasetAndOverwriteCreatesOne() throws Exception {
    assertThatThrownBy(
            () ->
                DatasetCommit.publish(
                    storage, DatasetCommit.Mode.APPEND, SCHEMA, null, OPTIONS, task(SCHEMA, 5, 1)))
        .isInstanceOf(NoSuchFileException.class);
    Manifest m =
        DatasetCommit.publish(
            storage, DatasetCommit.Mode.OVERWRITE, SCHEMA, null, OPTIONS, task(SCHEMA, 5, 1));
    assertThat(m.version()).isEqualTo(1);
    assertThat(m.parentVersion()).isNull();
  }

  @Test
  void handedOverFilesSurviveCloseUntilDiscarded() throws Exception {
    List<Manifest.DataFile> files = task(SCHEMA, 150, 1);
    for (Manifest.DataFile f : files) {
      assertThat(storage.exists(f.path())).isTrue();
      assertThat(f.path()).startsWith(DatasetLayout.DATA_DIR + "/job1-");
    }
    assertThatThrownBy(() -> DatasetWriter.forFiles(storage, SCHEMA, null, OPTIONS, "../x"))
        .isInstanceOf(IllegalArgumentException.class);
    DatasetCommit.discard(storage, files);
    assertThat(storage.list(DatasetLayout.DATA_DIR)).isEmpty();

    try (VectorSchemaRoot batch = RandomData.generate(SCHEMA, 150, 1, 0.1, allocator);
        DatasetWriter w = DatasetWriter.forFiles(storage, SCHEMA, null, OPTIONS, "")) {
      w.write(batch);
      assertThatThrownBy(w::publish).isInstanceOf(IllegalStateException.class);
      assertThat(storage.list(DatasetLayout.DATA_DIR)).hasSize(2);
    }
    // Closed without finishFiles: what it wrote is gone.
    assertThat(storage.list(DatasetLayout.DATA_DIR)).isEmpty();
    assertThat(Files.exists(dir.resolve(DatasetLayout.VERSIONS_DIR))).isFalse();
  }
}
