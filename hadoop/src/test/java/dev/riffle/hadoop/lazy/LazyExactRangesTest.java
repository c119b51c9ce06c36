package dev.riffle.hadoop.lazy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact ranges for lazy takes (issue 21, item 4): a cold random take through {@link LazyStorage}
 * with default options fetches at most twice the bytes the same take reads from a local copy, in
 * one round of GETs per file touched, and a repeat is served from cached ranges. {@code LazyS3IT}
 * runs {@link #assertExactTake} against the Ceph RGW.
 */
public class LazyExactRangesTest {
  @TempDir Path dir;

  /** What {@link #assertExactTake} measured, for messages and benchmarks. */
  public record Measured(
      long localBytes, long fetchedBytes, long gets, long rounds, int filesTouched) {}

  /**
   * Takes {@code n} random rows (seed {@code seed}) from {@code local} and through {@code lazy}
   * (cold), after both opened the files the take touches and loaded their columns' metadata, as
   * {@code riffle take --stats} counts; checks the rows are equal, the bytes fetched at most twice
   * those read locally, one fetch round per file touched, and a repeat fetches nothing.
   */
  public static Measured assertExactTake(Storage local, LazyStorage lazy, int n, long seed)
      throws IOException {
    System.out.println(
        "exact take: " + n + " random rows, seed " + seed + " (reproduce with this seed)");
    try (BufferAllocator a = new RootAllocator();
        Dataset ld = Dataset.open(local, a);
        Dataset zd = Dataset.open(lazy, a)) {
      long[] rows = LazyStorageTest.randomRows(ld.totalRows(), n, seed);
      SortedSet<Integer> files = new TreeSet<>();
      for (long r : rows) {
        files.add(ld.fileOf(r));
      }
      for (int f : files) {
        ld.file(f).loadColumns(null);
        zd.file(f).loadColumns(null);
      }
      ld.stats().reset();
      String expected;
      try (VectorSchemaRoot r = ld.take(rows, null)) {
        expected = LazyStorageTest.describe(r);
      }
      long localBytes = ld.stats().bytesRead();
      LazyStats s = lazy.stats();
      long bytes0 = s.remoteBytes();
      long gets0 = s.remoteRequests();
      long rounds0 = s.fetchRounds();
      try (VectorSchemaRoot r = zd.take(rows, null)) {
        assertThat(LazyStorageTest.describe(r)).isEqualTo(expected);
      }
      Measured m =
          new Measured(
              localBytes,
              s.remoteBytes() - bytes0,
              s.remoteRequests() - gets0,
              s.fetchRounds() - rounds0,
              files.size());
      assertThat(m.fetchedBytes()).as(m.toString()).isLessThanOrEqualTo(2 * localBytes);
      assertThat(m.rounds()).as(m.toString()).isLessThanOrEqualTo(files.size());
      assertThat(m.gets()).as(m.toString()).isLessThanOrEqualTo(rows.length + files.size());
      // Again: every read hits a cached range.
      long gets1 = s.remoteRequests();
      try (VectorSchemaRoot r = zd.take(rows, null)) {
        assertThat(LazyStorageTest.describe(r)).isEqualTo(expected);
      }
      assertThat(s.remoteRequests()).isEqualTo(gets1);
      assertThat(s.rangeHits()).isPositive();
      return m;
    }
  }

  @Test
  void randomTakeFetchesAboutWhatALocalTakeReads() throws Exception {
    Path source = dir.resolve("source");
    Manifest m = TestDatasets.write(new LocalStorage(source), 24_000_000, 6_000_000, 3);
    assertThat(m.files()).hasSizeGreaterThan(2);
    try (LazyStorage lazy =
        new LazyStorage(
            new HadoopStorage(source.toUri().toString(), new Configuration()),
            dir.resolve("chunks"))) {
      Measured r = assertExactTake(new LocalStorage(source), lazy, 256, 7);
      System.out.println("exact take over file: " + r);
    }
  }

  @Test
  void chunksStillServeScansAndTakesReuseThem() throws Exception {
    Path source = dir.resolve("source");
    Manifest m = TestDatasets.write(new LocalStorage(source), 3_000_000, 1_000_000, 4);
    Manifest.DataFile f = m.files().get(0);
    try (LazyStorage lazy =
            new LazyStorage(
                new HadoopStorage(source.toUri().toString(), new Configuration()),
                dir.resolve("chunks"));
        var src = lazy.open(f.path())) {
      // A large read goes by whole chunks...
      java.nio.ByteBuffer big = java.nio.ByteBuffer.allocate(600_000);
      src.readFully(0, big);
      long chunkBytes = lazy.stats().remoteBytes();
      assertThat(chunkBytes).isEqualTo(Math.min(f.byteLength(), 1 << 20));
      // ... and a small random read inside them is a cache hit, not a fetch.
      java.nio.ByteBuffer small = java.nio.ByteBuffer.allocate(5000);
      src.readFully(300_000, small);
      assertThat(lazy.stats().remoteBytes()).isEqualTo(chunkBytes);
      assertThat(Arrays.copyOfRange(big.array(), 300_000, 305_000)).isEqualTo(small.array());
      // A small read elsewhere is fetched exactly.
      if (f.byteLength() > (3 << 20)) {
        src.readFully(2 << 20, java.nio.ByteBuffer.allocate(5000));
        assertThat(lazy.stats().remoteBytes()).isEqualTo(chunkBytes + 5000);
      }
    }
  }
}
