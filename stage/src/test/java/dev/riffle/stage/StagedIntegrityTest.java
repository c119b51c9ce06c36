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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A staged view at rest (issue 21, items 1 and 2): a byte flipped in a staged blob is an error on
 * read, not a value; {@code verify} finds and repairs it; a re-stage never marks complete a blob it
 * did not hash; a complete view serves without the store; leases of dead processes go.
 */
class StagedIntegrityTest {
  @TempDir Path dir;
  Path source;
  Path cache;
  Manifest manifest;

  @BeforeEach
  void stageOnce() throws IOException {
    source = dir.resolve("source");
    cache = dir.resolve("cache");
    manifest = TestDatasets.write(new LocalStorage(source), 1_200_000, 400_000, 42);
    new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS).stage(new LocalStorage(source), 1);
  }

  private Path view() {
    return SnapshotStager.completeView(cache, manifest.datasetId(), 1).orElseThrow();
  }

  /** Flips one bit in the middle of the blob of data file {@code i} (as root or bit rot could). */
  private Manifest.DataFile flip(int i) throws IOException {
    Manifest.DataFile f = manifest.files().get(i);
    Path blob = cache.resolve("blobs/" + f.sha256());
    blob.toFile().setWritable(true);
    try (RandomAccessFile raf = new RandomAccessFile(blob.toFile(), "rw")) {
      raf.seek(f.byteLength() / 2);
      int b = raf.read();
      raf.seek(f.byteLength() / 2);
      raf.write(b ^ 0x10);
    }
    blob.toFile().setReadOnly();
    return f;
  }

  /** Every row of every column, as text: what a user would read. */
  private static List<String> readAll(Path root) throws IOException {
    List<String> rows = new ArrayList<>();
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(new LocalStorage(root), a)) {
      long[] all = LongStream.range(0, d.totalRows()).toArray();
      try (VectorSchemaRoot batch = d.take(all, null)) {
        for (int r = 0; r < batch.getRowCount(); r++) {
          StringBuilder sb = new StringBuilder();
          for (var v : batch.getFieldVectors()) {
            Object o = v.getObject(r);
            sb.append(o instanceof byte[] b ? java.util.Arrays.toString(b) : String.valueOf(o));
            sb.append('|');
          }
          rows.add(sb.toString());
        }
      }
    }
    return rows;
  }

  @Test
  void flippedByteInAStagedBlobIsAnErrorOnTakeThenVerifyRepairsIt() throws Exception {
    List<String> expected = readAll(source);
    Manifest.DataFile bad = flip(1);

    // Reads of the staged view check per-record / per-sector CRCs: an error naming the file.
    assertThatThrownBy(() -> readAll(view()))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining(bad.path());

    // A plain re-stage costs no reads, so a same-length flip passes it...
    SnapshotStager plain = new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS);
    assertThat(plain.stage(new LocalStorage(source), 1).alreadyComplete()).isTrue();

    // ... and --verify hashes every blob, finds it and fetches it again.
    List<String> notes = new ArrayList<>();
    StageListener listener =
        new StageListener() {
          @Override
          public synchronized void note(String line) {
            notes.add(line);
          }
        };
    SnapshotStager verifying =
        new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS.withVerify(true));
    StageReport r = verifying.stage(new LocalStorage(source), 1, listener);
    assertThat(r.alreadyComplete()).isFalse();
    assertThat(r.filesRepaired()).isEqualTo(1);
    assertThat(r.filesDownloaded()).isEqualTo(1);
    assertThat(r.bytesDownloaded()).isEqualTo(bad.byteLength());
    assertThat(String.join("\n", notes)).contains(bad.sha256()).contains("damaged");
    CacheChecks.assertNothingCorrupt(cache);
    assertThat(Files.isSameFile(view().resolve(bad.path()), cache.resolve("blobs/" + bad.sha256())))
        .isTrue();
    assertThat(readAll(view())).isEqualTo(expected);

    // Sound now: --verify hashes everything again and repairs nothing.
    StageReport again = verifying.stage(new LocalStorage(source), 1);
    assertThat(again.alreadyComplete()).isTrue();
    assertThat(again.filesVerified()).isEqualTo(manifest.files().size());
    assertThat(again.filesRepaired()).isZero();
  }

  @Test
  void restageWithoutTheMarkerNeverBlessesADamagedBlob() throws Exception {
    Manifest.DataFile bad = flip(0);
    Files.delete(view().resolve(CacheLayout.COMPLETE));
    StageReport r =
        new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS)
            .stage(new LocalStorage(source), 1);
    // Every reused blob was hashed; the damaged one was fetched again.
    assertThat(r.filesVerified()).isEqualTo(manifest.files().size());
    assertThat(r.filesRepaired()).isEqualTo(1);
    assertThat(r.filesReused()).isEqualTo(manifest.files().size() - 1);
    assertThat(r.bytesDownloaded()).isEqualTo(bad.byteLength());
    CacheChecks.assertNothingCorrupt(cache);
    try (BufferAllocator a = new RootAllocator()) {
      assertThat(DatasetValidator.validate(new LocalStorage(r.view()), 1, true, a, null).problems())
          .isEmpty();
    }
  }

  @Test
  void damageSeenWithoutReadingMakesTheViewIncompleteAndRestageRepairsIt() throws Exception {
    // The blob deleted: the view's hard link would keep the old inode alive unvouched for.
    Manifest.DataFile gone = manifest.files().get(2);
    Path blob = cache.resolve("blobs/" + gone.sha256());
    Files.delete(blob);
    StageReport r =
        new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS)
            .stage(new LocalStorage(source), 1);
    assertThat(r.alreadyComplete()).isFalse();
    assertThat(r.filesDownloaded()).isEqualTo(1);
    assertThat(Files.isSameFile(r.view().resolve(gone.path()), blob)).isTrue();

    // A view file truncated (written through the link): the same.
    Manifest.DataFile cut = manifest.files().get(0);
    Path cutBlob = cache.resolve("blobs/" + cut.sha256());
    cutBlob.toFile().setWritable(true);
    try (RandomAccessFile raf = new RandomAccessFile(cutBlob.toFile(), "rw")) {
      raf.setLength(cut.byteLength() - 1000);
    }
    StageReport r2 =
        new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS)
            .stage(new LocalStorage(source), 1);
    assertThat(r2.alreadyComplete()).isFalse();
    assertThat(r2.filesRepaired()).isEqualTo(1);
    CacheChecks.assertNothingCorrupt(cache);
  }

  @Test
  void completeViewIsStagedFromTheCacheAloneAndSaysWhereItCameFrom() throws Exception {
    String uri = new LocalStorage(source).uri();
    SnapshotStager stager = new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS);
    Optional<StageReport> r = stager.stageFromCache(uri, 1L, StageListener.NONE);
    assertThat(r).isPresent();
    assertThat(r.get().alreadyComplete()).isTrue();
    assertThat(r.get().view()).isEqualTo(view());
    // Without a version: the newest complete one of that source.
    assertThat(stager.stageFromCache(uri, null, StageListener.NONE)).isPresent();
    assertThat(stager.stageFromCache(uri, 2L, StageListener.NONE)).isEmpty();
    assertThat(stager.stageFromCache("s3a://elsewhere/x", 1L, StageListener.NONE)).isEmpty();
    // With verify, the cache alone is hashed too; a damaged view is no longer served.
    flip(1);
    SnapshotStager verifying =
        new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS.withVerify(true));
    assertThat(verifying.stageFromCache(uri, 1L, StageListener.NONE)).isEmpty();
    assertThat(SnapshotStager.completeView(cache, manifest.datasetId(), 1)).isEmpty();
    // The view still says where it came from, for the "stage it again" advice.
    assertThat(Files.readString(view(cache).resolve(CacheLayout.SOURCE)))
        .contains("source=" + uri.replace(":", "\\:"))
        .contains("version=1");
  }

  private Path view(Path cacheDir) throws IOException {
    return cacheDir.toRealPath().resolve("snapshots/" + manifest.datasetId() + "/1");
  }

  @Test
  void leasesOfDeadProcessesAreDeletedByTheNextStage() throws Exception {
    Path lease = cache.resolve("leases/" + SnapshotStagerTest.deadPid() + ".00ab.lease");
    Files.writeString(lease, manifest.files().get(0).sha256());
    Files.delete(view().resolve(CacheLayout.COMPLETE));
    new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS).stage(new LocalStorage(source), 1);
    assertThat(lease).doesNotExist();

    Files.writeString(lease, manifest.files().get(0).sha256());
    // Pinning a view (what load and take do) sweeps them too.
    try (CacheLease pin = CacheLease.pinView(view()).orElseThrow()) {
      assertThat(lease).doesNotExist();
    }
  }
}
