package dev.riffle.loader.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetVersions;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.LoaderState;
import dev.riffle.loader.plan.RollingPool;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Sequential;
import dev.riffle.loader.plan.TrueRandom;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

@ExtendWith(SeedExtension.class)
class LoaderTest {
  static final long ROWS = 20_000;

  @TempDir Path dir;
  BufferAllocator allocator;
  LocalStorage storage;
  Dataset dataset;

  @BeforeEach
  void setUp() throws IOException {
    allocator = new RootAllocator();
    storage = TestDatasets.write(dir, ROWS, 64 << 10, allocator);
    dataset = Dataset.open(storage, allocator);
  }

  @AfterEach
  void tearDown() throws IOException {
    dataset.close();
    // Leaked buffers fail the test here.
    allocator.close();
    assertThat(loaderThreads()).isZero();
  }

  static long loaderThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("riffle-loader-") && t.isAlive())
        .count();
  }

  /** Checks every batch's data against its rows and returns the per-batch row ids. */
  static List<long[]> drain(Loader loader, int maxBatches) throws IOException {
    List<long[]> out = new ArrayList<>();
    for (int i = 0; i < maxBatches; i++) {
      try (VectorSchemaRoot b = loader.next()) {
        if (b == null) {
          break;
        }
        long[] rows = loader.lastRows();
        BigIntVector id = (BigIntVector) b.getVector("id");
        assertThat(b.getRowCount()).isEqualTo(rows.length);
        SparseRows csr = SparseRows.of(b, "indices", "values");
        for (int k = 0; k < rows.length; k++) {
          assertThat(id.get(k)).isEqualTo(rows[k]);
          int n = csr.indptr()[k + 1] - csr.indptr()[k];
          assertThat(n).isEqualTo(TestDatasets.entries(rows[k]));
          for (int j = 0; j < n; j++) {
            assertThat(csr.indices()[csr.indptr()[k] + j]).isEqualTo((int) (rows[k] + j));
            assertThat(csr.values()[csr.indptr()[k] + j]).isEqualTo(TestDatasets.value(rows[k], j));
          }
        }
        out.add(rows);
      }
    }
    return out;
  }

  /**
   * Rows read in place ({@link Loader#next(Loader.RowsReader)}) are the gathered batches' rows,
   * value for value, with the same ids, padding flags and loader state, over fetches of several
   * parts.
   */
  @Test
  void rowsReadInPlaceAreTheGatheredBatches() throws IOException {
    LoaderOptions o =
        LoaderOptions.of(new BlockShuffle(16, 8, 0.25, false), 64, 7).withThreads(2, 2);
    List<String> want = new ArrayList<>();
    try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
      for (VectorSchemaRoot next = loader.next(); next != null; next = loader.next()) {
        try (VectorSchemaRoot b = next) {
          want.add(
              java.util.Arrays.toString(loader.lastRows())
                  + java.util.Arrays.toString(loader.lastPadding())
                  + b.contentToTSVString()
                  + loader.state());
        }
      }
    }
    List<String> got = new ArrayList<>();
    int[] maxParts = new int[1];
    try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
      while (true) {
        String rows =
            loader.next(
                r -> {
                  maxParts[0] = Math.max(maxParts[0], r.parts().size());
                  long[] ids = new long[r.rowCount()];
                  boolean[] pad = new boolean[r.rowCount()];
                  int[] keep = new int[r.rowCount()];
                  for (int k = 0; k < ids.length; k++) {
                    ids[k] = r.globalRow(k);
                    pad[k] = r.padding(k);
                    keep[k] = k;
                  }
                  // The same rows copied out one by one, through a selection of all of them.
                  BatchRows all = r.select(keep);
                  List<VectorSchemaRoot> parts = all.parts();
                  try (VectorSchemaRoot copy =
                      Gather.gather(parts, partsOf(all), rowsOf(all), 0, ids.length, allocator)) {
                    return java.util.Arrays.toString(ids)
                        + java.util.Arrays.toString(pad)
                        + copy.contentToTSVString();
                  }
                });
        if (rows == null) {
          break;
        }
        got.add(rows + loader.state());
      }
    }
    try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
      assertThatThrownBy(() -> loader.next(r -> null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("rows reader returned null");
    }
    assertThat(maxParts[0]).as("fetches read in several parts").isGreaterThan(1);
    assertThat(got).isEqualTo(want);
  }

  private static int[] partsOf(BatchRows r) {
    int[] p = new int[r.rowCount()];
    for (int k = 0; k < p.length; k++) {
      p[k] = r.part(k);
    }
    return p;
  }

  private static int[] rowsOf(BatchRows r) {
    int[] p = new int[r.rowCount()];
    for (int k = 0; k < p.length; k++) {
      p[k] = r.row(k);
    }
    return p;
  }

  /**
   * Padding rows are flagged by {@link Loader#lastPadding()}: repeats of rows already handed out.
   */
  @Test
  void paddingRowsAreFlaggedAndRepeatEarlierRows() throws IOException {
    LoaderOptions o = LoaderOptions.of(new BlockShuffle(16, 8, 0.25, false), 64, 7);
    try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
      assertThat(loader.plan().paddedRows())
          .as("the view does not fill whole batches")
          .isPositive();
      java.util.Set<Long> seen = new java.util.HashSet<>();
      long flagged = 0;
      VectorSchemaRoot b;
      while ((b = loader.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          boolean[] pad = loader.lastPadding();
          long[] positions = loader.lastPositions();
          assertThat(pad).hasSize(batch.getRowCount());
          for (int k = 0; k < pad.length; k++) {
            if (pad[k]) {
              flagged++;
              assertThat(seen).as("a padding row repeats an earlier row").contains(positions[k]);
            } else {
              assertThat(seen.add(positions[k])).as("a real row comes once").isTrue();
            }
          }
        }
      }
      assertThat(flagged).isEqualTo(loader.plan().paddedRows());
      assertThat(seen).hasSize((int) ROWS);
    }
  }

  @Test
  void everySamplerDeliversItsPlanWithExactlyOnceCoverage() throws IOException {
    List<Sampler> samplers =
        List.of(
            new Sequential(4, 16),
            new TrueRandom(4, 16),
            new BlockShuffle(16, 8, 0.25, false),
            new BlockShuffle(16, 32, 0, true),
            new RollingPool(16, 2048, 4, 0.25));
    for (Sampler s : samplers) {
      LoaderOptions o = LoaderOptions.of(s, 64, 7).withLabel("plate");
      try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
        List<long[]> batches = drain(loader, Integer.MAX_VALUE);
        assertThat(batches).as(s.describe()).hasSize((int) ((ROWS + 63) / 64));
        LoaderMetrics m = loader.metrics();
        assertThat(m.coverageExact()).as(s.describe()).isTrue();
        assertThat(m.paddingRows()).isEqualTo(loader.plan().paddedRows());
        assertThat(m.reads()).isPositive();
        assertThat(m.diversity().labelEntropyMean()).isFinite();
        for (int t = 0; t < batches.size(); t++) {
          long[] planned = loader.plan().batch(t);
          for (int k = 0; k < planned.length; k++) {
            assertThat(batches.get(t)[k]).isEqualTo(planned[k]);
          }
        }
      }
    }
  }

  @Test
  void unionOfRanksCoversTheEpochExactlyOnceWithEqualBatchCounts() throws IOException {
    int world = 4;
    BitSet union = new BitSet();
    long[] counts = new long[world];
    LoaderOptions o = LoaderOptions.of(new BlockShuffle(16, 8, 0.25, false), 64, 9);
    for (int r = 0; r < world; r++) {
      try (Loader loader = Loader.open(dataset.all(), o.withRank(r, world), allocator)) {
        counts[r] = drain(loader, Integer.MAX_VALUE).size();
        assertThat(loader.metrics().coverageExact()).isTrue();
        BitSet seen = loader.metrics().seen();
        assertThat(seen.intersects(union)).isFalse();
        union.or(seen);
      }
    }
    assertThat(counts).containsOnly(counts[0]);
    assertThat(union.cardinality()).isEqualTo((int) ROWS);
  }

  @Test
  void killAtARandomStepAndResumeGivesTheSameGlobalBatchesAlsoWithAnotherWorldSize(@Seed long seed)
      throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    LoaderOptions o =
        LoaderOptions.of(new BlockShuffle(16, 4, 0.25, false), 64, seed).withEpochs(2);
    List<String> reference = new ArrayList<>();
    try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
      drain(loader, Integer.MAX_VALUE).forEach(b -> reference.add(sha256(b)));
    }
    int killAt = 1 + random.nextInt(reference.size() - 1);
    List<String> resumed = new ArrayList<>();
    String saved;
    try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
      drain(loader, killAt).forEach(b -> resumed.add(sha256(b)));
      saved = loader.state().toJson();
      // Killed: close without finishing, with fetches in flight.
    }
    int world = new int[] {1, 2, 4, 8, 16, 32, 64}[random.nextInt(7)];
    LoaderState state = LoaderState.fromJson(saved);
    List<Loader> ranks = new ArrayList<>();
    try {
      for (int r = 0; r < world; r++) {
        ranks.add(Loader.resume(dataset.all(), o.withRank(r, world), state, allocator));
      }
      while (true) {
        long[] global = new long[64];
        int filled = 0;
        for (Loader l : ranks) {
          List<long[]> one = drain(l, 1);
          if (one.isEmpty()) {
            break;
          }
          System.arraycopy(one.get(0), 0, global, filled, one.get(0).length);
          filled += one.get(0).length;
        }
        if (filled == 0) {
          break;
        }
        assertThat(filled).isEqualTo(64);
        resumed.add(sha256(global));
      }
    } finally {
      for (Loader l : ranks) {
        l.close();
      }
    }
    assertThat(resumed).as("killed at " + killAt + ", W=" + world).isEqualTo(reference);
  }

  @Test
  void peakMemoryStaysWithinTheBudget() throws IOException {
    // A fresh allocator for the dataset and the loader together: the takes allocate in the
    // dataset's, the batches in the loader's, and the budget covers both.
    try (BufferAllocator measured = new RootAllocator();
        Dataset d = Dataset.open(storage, measured)) {
      // Open every file's metadata first: it is the dataset's, held whatever the loader does.
      long[] firstOfEachFile = d.manifest().files().stream().mapToLong(f -> f.firstRow()).toArray();
      try (VectorSchemaRoot warm = d.take(firstOfEachFile, null)) {
        assertThat(warm.getRowCount()).isEqualTo(firstOfEachFile.length);
      }
      long baseline = measured.getAllocatedMemory();
      long rowBytes = RowBytes.estimate(d.all(), null, 32);
      long fetchBytes = 4 * 64 * rowBytes;
      long budget = 6 * fetchBytes;
      LoaderOptions o =
          LoaderOptions.of(new BlockShuffle(16, 4, 0, false), 64, 1)
              .withThreads(2, 8)
              .withPrefetchBytes(budget);
      try (Loader loader = Loader.open(d.all(), o, measured)) {
        assertThat(drain(loader, Integer.MAX_VALUE)).isNotEmpty();
      }
      long peak = measured.getPeakMemoryAllocation() - baseline;
      // Budget plus one fetch: a take's rows and the last batch handed out, and the estimate
      // error of row sizes (rows vary from 0 to 6 entries).
      assertThat(peak)
          .as("peak %d, budget %d, fetch about %d", peak, budget, fetchBytes)
          .isLessThanOrEqualTo(budget + fetchBytes);
      assertThat(peak).isGreaterThan(fetchBytes);
    }
  }

  @Test
  void honoursSplitsAndDeletions() throws IOException {
    Roaring64Bitmap train = new Roaring64Bitmap();
    train.addRange(0, ROWS / 2);
    DatasetVersions.setSplit(storage, "train", train);
    Roaring64Bitmap gone = new Roaring64Bitmap();
    for (long r = 0; r < ROWS; r += 10) {
      gone.add(r);
    }
    DatasetVersions.deleteRows(storage, gone);
    try (Dataset v3 = Dataset.open(storage, allocator)) {
      DatasetView view = v3.split("train");
      LoaderOptions o = LoaderOptions.of(new BlockShuffle(8, 4, 0.25, true), 32, 3);
      try (Loader loader = Loader.open(view, o, allocator)) {
        BitSet rows = new BitSet();
        for (long[] b : drain(loader, Integer.MAX_VALUE)) {
          for (long r : b) {
            assertThat(r % 10).isNotZero();
            assertThat(r).isLessThan(ROWS / 2);
            rows.set((int) r);
          }
        }
        assertThat(rows.cardinality()).isEqualTo((int) view.rowCount());
        assertThat(loader.metrics().coverageExact()).isTrue();
      }
      LoaderState st = Loader.startState(view, LoaderOptions.of(BlockShuffle.of(8, 4), 32, 3), 0);
      assertThatThrownBy(
              () ->
                  Loader.resume(
                      v3.all(), LoaderOptions.of(BlockShuffle.of(8, 4), 32, 3), st, allocator))
          .hasMessageContaining("split 'train', not 'all'");
    }
  }

  @Test
  void closeMidRunLeaksNothing() throws IOException {
    LoaderOptions o = LoaderOptions.of(new TrueRandom(2, 16), 32, 5).withThreads(2, 4);
    for (int stopAfter : new int[] {0, 1, 3, 17}) {
      try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
        drain(loader, stopAfter);
      }
    }
    // tearDown checks buffers and threads.
  }

  @Test
  void denseRowsMatchCsr() throws IOException {
    try (VectorSchemaRoot b =
        dataset.all().take(new long[] {6, 13, 3}, List.of("indices", "values"))) {
      SparseRows csr = SparseRows.of(b, "indices", "values");
      assertThat(csr.indptr()).containsExactly(0, 6, 12, 15);
      float[] dense = csr.dense(32);
      assertThat(dense[0 * 32 + 6]).isEqualTo(6f);
      assertThat(dense[1 * 32 + 13 + 5]).isEqualTo(13 + 2.5f);
      assertThat(dense[2 * 32 + 5]).isEqualTo(4f);
      assertThat(dense[2 * 32 + 6]).isZero();
    }
  }

  static String sha256(long[] rows) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      ByteBuffer b = ByteBuffer.allocate(8 * rows.length);
      for (long r : rows) {
        b.putLong(r);
      }
      return HexFormat.of().formatHex(d.digest(b.array()));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
