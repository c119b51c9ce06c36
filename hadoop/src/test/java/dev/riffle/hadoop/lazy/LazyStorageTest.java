package dev.riffle.hadoop.lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LazyStorage} over Hadoop's {@code file:} scheme (no server needed): reads equal the
 * object's bytes, takes equal those of the plain storage, repeats are served from the chunk cache,
 * damaged chunks are fetched again, and the cache keeps its limit. {@code LazyS3IT} runs the same
 * against the local Ceph RGW.
 */
public class LazyStorageTest {
  /** Small chunks, no gap, and every read by chunks (exact ranges: {@code LazyExactRangesTest}). */
  static final LazyOptions SMALL =
      LazyOptions.defaults().withChunkBytes(64 << 10).withGapBytes(0).withExactRanges(false);

  @TempDir Path dir;
  Path source;
  Manifest manifest;

  @BeforeEach
  void writeDataset() throws IOException {
    source = dir.resolve("source");
    manifest = TestDatasets.write(new LocalStorage(source), 600_000, 300_000, 5);
  }

  LazyStorage lazy(LazyOptions options) throws IOException {
    return new LazyStorage(
        new HadoopStorage(source.toUri().toString(), new Configuration()),
        dir.resolve("chunks"),
        options);
  }

  public static String take(dev.riffle.dataset.storage.Storage s, long[] rows) throws IOException {
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(s, a);
        VectorSchemaRoot r = d.take(rows, null)) {
      return describe(r);
    }
  }

  /** Ids and payload checksums (Arrow prints binary values as array identities). */
  public static String describe(VectorSchemaRoot r) {
    BigIntVector ids = (BigIntVector) r.getVector("id");
    VarBinaryVector payload = (VarBinaryVector) r.getVector("payload");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < r.getRowCount(); i++) {
      CRC32C crc = new CRC32C();
      crc.update(payload.get(i));
      sb.append(ids.get(i)).append(':').append(Long.toHexString(crc.getValue())).append('\n');
    }
    return sb.toString();
  }

  public static long[] randomRows(long total, int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] rows = new long[n];
    for (int i = 0; i < n; i++) {
      rows[i] = r.nextLong(total);
    }
    return rows;
  }

  @Test
  void readsEqualTheObjectAcrossChunkBoundaries() throws Exception {
    Manifest.DataFile f = manifest.files().get(0);
    byte[] expected = Files.readAllBytes(source.resolve(f.path()));
    SplittableRandom r = new SplittableRandom(3);
    try (LazyStorage s = lazy(SMALL.withChunkBytes(4096));
        RandomAccessSource src = s.open(f.path())) {
      assertThat(src.length()).isEqualTo(expected.length);
      for (int i = 0; i < 200; i++) {
        int n = r.nextInt(1, 20_000);
        long off = r.nextLong(expected.length - n + 1);
        ByteBuffer dst = i % 2 == 0 ? ByteBuffer.allocate(n + 3) : ByteBuffer.allocateDirect(n + 3);
        dst.position(3);
        src.readFully(off, dst);
        assertThat(dst.position()).isEqualTo(n + 3);
        byte[] got = new byte[n];
        dst.position(3).get(got);
        assertThat(got).isEqualTo(java.util.Arrays.copyOfRange(expected, (int) off, (int) off + n));
      }
      // The last, short chunk and a read past the end.
      ByteBuffer tail = ByteBuffer.allocate(10);
      src.readFully(expected.length - 10, tail);
      assertThatThrownBy(() -> src.readFully(expected.length - 5, ByteBuffer.allocate(10)))
          .isInstanceOf(java.io.EOFException.class);
      assertThat(s.stats().chunkHits()).isPositive();
      assertThat(s.stats().remoteBytes()).isLessThanOrEqualTo(expected.length * 2L);
    }
  }

  @Test
  void takeEqualsThePlainStorageAndRepeatsHitTheCache() throws Exception {
    long[] rows = randomRows(manifest.totalRows(), 64, 9);
    String expected = take(new LocalStorage(source), rows);
    try (LazyStorage s = lazy(SMALL)) {
      assertThat(take(s, rows)).isEqualTo(expected);
      long requests = s.stats().remoteRequests();
      long bytes = s.stats().remoteBytes();
      assertThat(requests).isPositive();
      assertThat(s.stats().chunkMisses()).isPositive();

      long hits = s.stats().chunkHits();
      assertThat(take(s, rows)).isEqualTo(expected);
      assertThat(s.stats().remoteRequests()).isEqualTo(requests);
      assertThat(s.stats().remoteBytes()).isEqualTo(bytes);
      assertThat(s.stats().chunkHits()).isGreaterThan(hits);
    }
    // A new storage (a new process) on the same directory starts warm.
    try (LazyStorage s = lazy(SMALL)) {
      assertThat(take(s, rows)).isEqualTo(expected);
      assertThat(s.stats().remoteRequests()).isZero();
      assertThat(s.stats().corruptChunks()).isZero();
    }
  }

  @Test
  void coldTakeFetchesEveryMissingChunkOfAFileInOneRound() throws Exception {
    long[] rows = randomRows(manifest.totalRows(), 64, 17);
    String expected = take(new LocalStorage(source), rows);
    try (LazyStorage s = lazy(SMALL.withChunkBytes(4096));
        BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(s, a)) {
      assertThat(manifest.files().size()).isGreaterThan(1);
      assertThat(coldTakeRounds(s, d, rows)).isEqualTo(expected);
    }
  }

  /**
   * Takes {@code rows} after a first take has read every file's metadata, and checks that the
   * chunks it misses were fetched in at most one round per file, at most one request per row.
   */
  static String coldTakeRounds(LazyStorage s, Dataset d, long[] rows) throws IOException {
    long[] firstRows = d.manifest().files().stream().mapToLong(f -> f.firstRow()).toArray();
    d.take(firstRows, null).close();
    long rounds = s.stats().fetchRounds();
    long requests = s.stats().remoteRequests();
    long misses = s.stats().chunkMisses();
    String got;
    try (VectorSchemaRoot r = d.take(rows, null)) {
      got = describe(r);
    }
    assertThat(s.stats().chunkMisses() - misses).isPositive();
    assertThat(s.stats().fetchRounds() - rounds).isLessThanOrEqualTo(d.manifest().files().size());
    assertThat(s.stats().remoteRequests() - requests).isLessThanOrEqualTo(rows.length);
    return got;
  }

  @Test
  void gapCoalescesMissingChunksIntoOneRequest() throws Exception {
    Manifest.DataFile f = manifest.files().get(0);
    try (LazyStorage s = lazy(SMALL.withChunkBytes(4096).withGapBytes(64 << 10));
        RandomAccessSource src = s.open(f.path())) {
      // Warm chunks 1 and 3, then read chunks 0..4: the two holes are fetched as one range.
      src.readFully(4096, ByteBuffer.allocate(10));
      src.readFully(3 * 4096, ByteBuffer.allocate(10));
      long before = s.stats().remoteRequests();
      src.readFully(0, ByteBuffer.allocate(5 * 4096));
      assertThat(s.stats().remoteRequests() - before).isEqualTo(1);
      assertThat(s.stats().vectoredReads()).isZero();
    }
  }

  @Test
  void holesBeyondTheGapGoAsOneVectoredRead() throws Exception {
    Manifest.DataFile f = manifest.files().get(0);
    byte[] expected = Files.readAllBytes(source.resolve(f.path()));
    try (LazyStorage s = lazy(SMALL.withChunkBytes(4096).withGapBytes(0));
        RandomAccessSource src = s.open(f.path())) {
      src.readFully(4096, ByteBuffer.allocate(10));
      src.readFully(3 * 4096, ByteBuffer.allocate(10));
      long before = s.stats().remoteRequests();
      ByteBuffer all = ByteBuffer.allocate(5 * 4096);
      src.readFully(0, all);
      // Chunks 0, 2 and 4 are missing and not adjacent: three ranges in one vectored call.
      assertThat(s.stats().remoteRequests() - before).isEqualTo(3);
      assertThat(s.stats().vectoredReads()).isEqualTo(1);
      assertThat(all.array()).isEqualTo(java.util.Arrays.copyOf(expected, 5 * 4096));
    }
  }

  @Test
  void damagedChunkIsDetectedAndFetchedAgain() throws Exception {
    long[] rows = randomRows(manifest.totalRows(), 16, 11);
    String expected = take(new LocalStorage(source), rows);
    try (LazyStorage s = lazy(SMALL)) {
      assertThat(take(s, rows)).isEqualTo(expected);
    }
    Path chunk;
    try (Stream<Path> files = Files.walk(dir.resolve("chunks"))) {
      chunk = files.filter(p -> p.toString().endsWith(ChunkCache.SUFFIX)).findFirst().orElseThrow();
    }
    try (RandomAccessFile raf = new RandomAccessFile(chunk.toFile(), "rw")) {
      raf.seek(100);
      int b = raf.read();
      raf.seek(100);
      raf.write(b ^ 0xff);
    }
    try (LazyStorage s = lazy(SMALL)) {
      assertThat(take(s, rows)).isEqualTo(expected);
      assertThat(s.stats().corruptChunks()).isEqualTo(1);
      assertThat(s.stats().remoteRequests()).isEqualTo(1);
      assertThat(s.stats().remoteBytes()).isEqualTo(Files.size(chunk) - 4);
    }
  }

  @Test
  void cacheStaysUnderItsLimit() throws Exception {
    long[] rows = randomRows(manifest.totalRows(), 64, 13);
    String expected = take(new LocalStorage(source), rows);
    LazyOptions tight = SMALL.withChunkBytes(4096).withMaxCacheBytes(64 << 10);
    try (LazyStorage s = lazy(tight)) {
      assertThat(take(s, rows)).isEqualTo(expected);
      assertThat(take(s, rows)).isEqualTo(expected);
      assertThat(s.stats().chunksEvicted()).isPositive();
      assertThat(s.cache().usedBytes()).isLessThanOrEqualTo(64 << 10);
    }
    long onDisk;
    try (Stream<Path> files = Files.walk(dir.resolve("chunks"))) {
      onDisk = files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
    assertThat(onDisk).isLessThanOrEqualTo(64 << 10);
  }

  @Test
  void writesAreRefused() throws Exception {
    try (LazyStorage s = lazy(SMALL)) {
      assertThatThrownBy(() -> s.create("data/x")).hasMessageContaining("read-only");
      assertThatThrownBy(() -> s.createIfAbsent("x", new byte[1]))
          .hasMessageContaining("read-only");
      assertThatThrownBy(() -> s.delete(Manifest.path(1))).hasMessageContaining("read-only");
      assertThat(s.exists(Manifest.path(1))).isTrue();
      assertThat(Dataset.versions(s)).containsExactly(1L);
    }
  }
}
