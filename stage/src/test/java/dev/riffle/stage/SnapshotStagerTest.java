package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SnapshotStager} from a local dataset (no server needed): layout, verification, resume,
 * single-flight between threads, retries, and the failure cases that must leave nothing corrupt.
 */
class SnapshotStagerTest {
  static final StageOptions SMALL_PARTS =
      StageOptions.defaults().withPartBytes(64 << 10).withThreads(4).withRetries(5, 1, 20);

  @TempDir Path dir;
  Path source;
  Path cache;
  Manifest manifest;
  long totalBytes;

  @BeforeEach
  void writeDataset() throws IOException {
    source = dir.resolve("source");
    cache = dir.resolve("cache");
    manifest = TestDatasets.write(new LocalStorage(source), 1_200_000, 400_000, 42);
    totalBytes = manifest.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    assertThat(manifest.files()).hasSizeGreaterThanOrEqualTo(3);
  }

  @Test
  void stagedViewOpensAsTheSameDataset() throws Exception {
    SnapshotStager stager = new SnapshotStager(cache, SMALL_PARTS);
    List<Long> seen = new ArrayList<>();
    StageReport r =
        stager.stage(
            new LocalStorage(source),
            1,
            new StageListener() {
              @Override
              public synchronized void progressed(long bytesDone) {
                seen.add(bytesDone);
              }
            });

    assertThat(r.files()).isEqualTo(manifest.files().size());
    assertThat(r.filesDownloaded()).isEqualTo(manifest.files().size());
    assertThat(r.filesReused()).isZero();
    assertThat(r.bytes()).isEqualTo(totalBytes);
    assertThat(r.bytesDownloaded()).isEqualTo(totalBytes);
    assertThat(r.retries()).isZero();
    assertThat(r.alreadyComplete()).isFalse();
    assertThat(seen).isNotEmpty().last().isEqualTo(totalBytes);
    assertThat(r.view())
        .isEqualTo(cache.toRealPath().resolve("snapshots/" + r.snapshotId() + "/1"));
    assertThat(r.snapshotId()).isEqualTo(manifest.datasetId());
    assertThat(SnapshotStager.completeView(cache, r.snapshotId(), 1)).contains(r.view());

    assertThat(CacheChecks.blobNames(cache))
        .containsExactlyInAnyOrderElementsOf(
            manifest.files().stream().map(Manifest.DataFile::sha256).toList());
    CacheChecks.assertNothingCorrupt(cache);
    for (Manifest.DataFile f : manifest.files()) {
      // Hard links: the view costs no space.
      assertThat(Files.isSameFile(r.view().resolve(f.path()), cache.resolve("blobs/" + f.sha256())))
          .isTrue();
    }
    try (BufferAllocator a = new RootAllocator()) {
      LocalStorage staged = new LocalStorage(r.view());
      assertThat(Files.readAllBytes(r.view().resolve(Manifest.path(1))))
          .isEqualTo(Files.readAllBytes(source.resolve(Manifest.path(1))));
      DatasetValidator.Report v = DatasetValidator.validate(staged, 1, true, a, null);
      assertThat(v.problems()).isEmpty();
      try (Dataset d = Dataset.open(staged, a)) {
        assertThat(d.rowCount()).isEqualTo(manifest.totalRows());
      }
    }
  }

  @Test
  void restageReusesAndResumesWithoutRefetching() throws Exception {
    SnapshotStager stager = new SnapshotStager(cache, SMALL_PARTS);
    FaultyStorage counting = new FaultyStorage(new LocalStorage(source));
    StageReport first = stager.stage(counting, 1);
    assertThat(counting.bytesRead.get()).isEqualTo(totalBytes);

    StageReport again = stager.stage(counting, 1);
    assertThat(again.alreadyComplete()).isTrue();
    assertThat(again.bytesDownloaded()).isZero();
    assertThat(counting.bytesRead.get()).isEqualTo(totalBytes);

    // An interrupted stage: the marker was never written and one blob never arrived; a
    // half-written temporary file of a process that died is lying in tmp/.
    Manifest.DataFile lost = manifest.files().get(1);
    Files.delete(first.view().resolve(CacheLayout.COMPLETE));
    Files.delete(first.view().resolve(lost.path()));
    Path blob = cache.resolve("blobs/" + lost.sha256());
    blob.toFile().setWritable(true);
    Files.delete(blob);
    long deadPid = deadPid();
    Path deadTemp = cache.resolve("tmp/" + lost.sha256() + "." + deadPid + ".00ff.part");
    Files.write(deadTemp, new byte[1000]);
    assertThat(SnapshotStager.completeView(cache, first.snapshotId(), 1)).isEmpty();

    StageReport resumed = stager.stage(counting, 1);
    assertThat(resumed.alreadyComplete()).isFalse();
    assertThat(resumed.filesDownloaded()).isEqualTo(1);
    assertThat(resumed.filesReused()).isEqualTo(manifest.files().size() - 1);
    assertThat(resumed.bytesDownloaded()).isEqualTo(lost.byteLength());
    assertThat(counting.bytesRead.get()).isEqualTo(totalBytes + lost.byteLength());
    assertThat(deadTemp).doesNotExist();
    CacheChecks.assertNothingCorrupt(cache);
    try (BufferAllocator a = new RootAllocator()) {
      assertThat(
              DatasetValidator.validate(new LocalStorage(resumed.view()), 1, true, a, null)
                  .problems())
          .isEmpty();
    }
  }

  @Test
  void laterVersionsShareBlobs() throws Exception {
    Manifest v2 = TestDatasets.write(new LocalStorage(source), 300_000, 400_000, 7);
    assertThat(v2.version()).isEqualTo(2);
    SnapshotStager stager = new SnapshotStager(cache, SMALL_PARTS);
    stager.stage(new LocalStorage(source), 1);
    StageReport r2 = stager.stage(new LocalStorage(source), 2);
    int added = v2.files().size() - manifest.files().size();
    assertThat(r2.filesDownloaded()).isEqualTo(added);
    assertThat(r2.filesReused()).isEqualTo(manifest.files().size());
    assertThat(CacheChecks.blobNames(cache)).hasSize(v2.files().size());
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(new LocalStorage(r2.view()), a)) {
      assertThat(d.version()).isEqualTo(2);
      assertThat(d.rowCount()).isEqualTo(v2.totalRows());
    }
  }

  @Test
  void threadsStagingOneSnapshotDownloadEachBlobOnce() throws Exception {
    FaultyStorage counting = new FaultyStorage(new LocalStorage(source));
    counting.delayMillis = 2;
    int stagers = 4;
    ExecutorService pool = Executors.newFixedThreadPool(stagers);
    try {
      List<Future<StageReport>> futures = new ArrayList<>();
      for (int i = 0; i < stagers; i++) {
        // Separate instances, as separate components of one process would have.
        SnapshotStager s = new SnapshotStager(cache, SMALL_PARTS);
        futures.add(pool.submit(() -> s.stage(counting, 1)));
      }
      long downloaded = 0;
      int files = 0;
      for (Future<StageReport> f : futures) {
        StageReport r = f.get();
        downloaded += r.bytesDownloaded();
        files += r.filesDownloaded();
      }
      assertThat(files).isEqualTo(manifest.files().size());
      assertThat(downloaded).isEqualTo(totalBytes);
      assertThat(counting.bytesRead.get()).isEqualTo(totalBytes);
    } finally {
      pool.shutdownNow();
    }
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void transientErrorsAreRetriedAndCounted() throws Exception {
    FaultyStorage flaky = new FaultyStorage(new LocalStorage(source));
    flaky.failEvery = 3;
    // Every third read of any thread fails, so one part can lose several tries in a row: enough
    // tries that giving up is not a matter of thread timing.
    StageReport r = new SnapshotStager(cache, SMALL_PARTS.withRetries(12, 1, 20)).stage(flaky, 1);
    assertThat(flaky.failures.get()).isPositive();
    assertThat(r.retries()).isEqualTo(flaky.failures.get());
    assertThat(r.bytesRefetched()).isPositive();
    assertThat(r.bytesDownloaded()).isEqualTo(totalBytes);
    CacheChecks.assertNothingCorrupt(cache);
    assertThat(CacheChecks.blobNames(cache)).hasSize(manifest.files().size());
  }

  @Test
  void persistentErrorsGiveUpWithAClearError() throws Exception {
    FaultyStorage broken = new FaultyStorage(new LocalStorage(source));
    broken.alwaysFail = true;
    assertThatThrownBy(() -> new SnapshotStager(cache, SMALL_PARTS).stage(broken, 1))
        .isInstanceOf(IOException.class)
        .hasMessageMatching("(?s)part [0-9]+ of [0-9]+ of .*")
        .hasMessageContaining("gave up after 5 attempts")
        .hasMessageContaining("connection reset");
    assertThat(CacheChecks.blobNames(cache)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void flippedByteIsRejectedAndNothingOfItIsCached() throws Exception {
    Manifest.DataFile bad = manifest.files().get(1);
    try (RandomAccessFile f = new RandomAccessFile(source.resolve(bad.path()).toFile(), "rw")) {
      f.seek(bad.byteLength() / 2);
      int b = f.read();
      f.seek(bad.byteLength() / 2);
      f.write(b ^ 0x01);
    }
    assertThatThrownBy(
            () -> new SnapshotStager(cache, SMALL_PARTS).stage(new LocalStorage(source), 1))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining(bad.path())
        .hasMessageContaining("SHA-256")
        .hasMessageContaining(bad.sha256())
        .hasMessageContaining("nothing was cached");
    assertThat(CacheChecks.blobNames(cache)).doesNotContain(bad.sha256());
    assertThat(SnapshotStager.completeView(cache, manifest.datasetId(), 1)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void truncatedObjectIsAClearError() throws Exception {
    Manifest.DataFile bad = manifest.files().get(0);
    try (RandomAccessFile f = new RandomAccessFile(source.resolve(bad.path()).toFile(), "rw")) {
      f.setLength(bad.byteLength() - 100);
    }
    assertThatThrownBy(
            () -> new SnapshotStager(cache, SMALL_PARTS).stage(new LocalStorage(source), 1))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining(bad.path())
        .hasMessageContaining("(truncated)")
        .hasMessageContaining("says " + bad.byteLength());
    assertThat(CacheChecks.blobNames(cache)).doesNotContain(bad.sha256());
    assertThat(SnapshotStager.completeView(cache, manifest.datasetId(), 1)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void missingObjectIsNamed() throws Exception {
    Manifest.DataFile gone = manifest.files().get(2);
    Files.delete(source.resolve(gone.path()));
    assertThatThrownBy(
            () -> new SnapshotStager(cache, SMALL_PARTS).stage(new LocalStorage(source), 1))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(gone.path())
        .hasMessageContaining("missing: the manifest of version 1 names it");
    assertThat(SnapshotStager.completeView(cache, manifest.datasetId(), 1)).isEmpty();
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void missingVersionListsTheVersions() throws Exception {
    assertThatThrownBy(
            () -> new SnapshotStager(cache, SMALL_PARTS).stage(new LocalStorage(source), 9))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("version 9 does not exist")
        .hasMessageContaining("[1]");
  }

  @Test
  void freeSpaceFloorFailsFastBeforeDownloading() throws Exception {
    long free = Files.getFileStore(dir).getUsableSpace();
    FaultyStorage counting = new FaultyStorage(new LocalStorage(source));
    StageOptions floor = SMALL_PARTS.withFreeSpaceFloor(free + (1L << 30));
    assertThatThrownBy(() -> new SnapshotStager(cache, floor).stage(counting, 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cache disk full")
        .hasMessageContaining("free-space floor");
    assertThat(counting.bytesRead.get()).isZero();
    CacheChecks.assertNothingCorrupt(cache);
  }

  /** The pid of a process that has exited. */
  static long deadPid() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    return p.pid();
  }
}
