package dev.riffle.loader.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetVersions;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.EpochPlan;
import dev.riffle.loader.plan.LoaderState;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Sequential;
import dev.riffle.loader.plan.Tail;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/** The files a rank reads next, against a brute-force walk of every row of its slices. */
class FileOrderTest {
  static final long ROWS = 20_000;

  @TempDir Path dir;
  BufferAllocator allocator;
  LocalStorage storage;
  Dataset dataset;

  @BeforeEach
  void setUp() throws IOException {
    allocator = new RootAllocator();
    // Files of 1500 rows: 14 files, the last one shorter; batches straddle file boundaries.
    storage =
        TestDatasets.write(
            dir, ROWS, DatasetOptions.defaults().withTargetFileRows(1500), allocator);
    dataset = Dataset.open(storage, allocator);
    assertThat(dataset.fileCount()).isEqualTo(14);
  }

  @AfterEach
  void tearDown() throws IOException {
    dataset.close();
    allocator.close();
  }

  /** Every row of the rank's slices from {@code fromBatch}, through the view's own lookups. */
  static int[] bruteForce(EpochPlan plan, DatasetView view, int rank, int world, long fromBatch) {
    List<Manifest.DataFile> files = view.dataset().manifest().files();
    LinkedHashSet<Integer> order = new LinkedHashSet<>();
    for (long t = fromBatch; t < plan.batchCount(); t++) {
      for (long pos : plan.slice(t, rank, world)) {
        long row = view.globalRow(pos);
        for (int i = 0; i < files.size(); i++) {
          Manifest.DataFile f = files.get(i);
          if (row >= f.firstRow() && row < f.firstRow() + f.rowCount()) {
            order.add(i);
          }
        }
      }
    }
    return order.stream().mapToInt(Integer::intValue).toArray();
  }

  static EpochPlan plan(Sampler s, DatasetView view, int batch, long epoch) {
    return EpochPlan.create(s, view.rowCount(), batch, 7, epoch, Tail.PAD);
  }

  @Test
  void aSequentialPlanReadsTheFilesInOrderFromTheBatchOn() {
    DatasetView view = dataset.all();
    FileOrder order = FileOrder.of(view);
    EpochPlan p = plan(new Sequential(4, 16), view, 64, 0);
    int files = dataset.fileCount();
    assertThat(order.filesInView()).isEqualTo(files);
    assertThat(order.upcoming(p, 0, 1, 0)).containsExactly(IntStream.range(0, files).toArray());

    // From a batch in the middle of file k: k first, then the later ones, then file 0 again for
    // the padding of the last batch (20000 rows are not a multiple of 64; padding wraps around).
    Manifest.DataFile mid = dataset.manifest().files().get(files / 2);
    long t = (mid.firstRow() + mid.rowCount() / 2) / 64;
    assertThat(order.upcoming(p, 0, 1, t))
        .containsExactly(IntStream.rangeClosed(files / 2, files).map(i -> i % files).toArray())
        .containsExactly(bruteForce(p, view, 0, 1, t));
    // Rank 1 of 2 reads the second half of each batch: the same files here.
    assertThat(order.upcoming(p, 1, 2, t)).containsExactly(bruteForce(p, view, 1, 2, t));
    assertThat(order.upcoming(p, 0, 1, p.batchCount())).isEmpty();
  }

  @Test
  void aBlockShufflePlanMatchesTheBruteForceWalk() {
    DatasetView view = dataset.all();
    FileOrder order = FileOrder.of(view);
    for (Sampler s :
        List.<Sampler>of(new BlockShuffle(8, 4, 0.25, false), new BlockShuffle(64, 2, 0, true))) {
      for (long epoch = 0; epoch < 2; epoch++) {
        EpochPlan p = plan(s, view, 32, epoch);
        for (int[] rw : new int[][] {{0, 1}, {0, 4}, {3, 4}}) {
          for (long t : new long[] {0, 1, p.batchCount() / 2, p.batchCount() - 3}) {
            int[] got = order.upcoming(p, rw[0], rw[1], t);
            assertThat(got)
                .as("%s epoch %d rank %d/%d from batch %d", s.describe(), epoch, rw[0], rw[1], t)
                .containsExactly(bruteForce(p, view, rw[0], rw[1], t));
          }
        }
        // Shuffled: every file comes up early in the epoch, not in file order.
        int[] all = order.upcoming(p, 0, 1, 0);
        assertThat(all).hasSize(dataset.fileCount());
        assertThat(all).isNotEqualTo(IntStream.range(0, dataset.fileCount()).toArray());
      }
    }
  }

  @Test
  void aSplitWithHolesMapsPositionsToTheRightFiles() throws IOException {
    // Train is the rows of the first and last files only, minus every 10th row.
    List<Manifest.DataFile> files = dataset.manifest().files();
    Manifest.DataFile first = files.get(0);
    Manifest.DataFile last = files.get(files.size() - 1);
    Roaring64Bitmap train = new Roaring64Bitmap();
    train.addRange(first.firstRow(), first.firstRow() + first.rowCount());
    train.addRange(last.firstRow(), last.firstRow() + last.rowCount());
    DatasetVersions.setSplit(storage, "train", train);
    Roaring64Bitmap gone = new Roaring64Bitmap();
    for (long r = 0; r < ROWS; r += 10) {
      gone.add(r);
    }
    DatasetVersions.deleteRows(storage, gone);
    try (Dataset v3 = Dataset.open(storage, allocator)) {
      DatasetView view = v3.split("train");
      FileOrder order = FileOrder.of(view);
      assertThat(order.filesInView()).isEqualTo(2);
      EpochPlan seq = plan(new Sequential(2, 8), view, 16, 0);
      assertThat(order.upcoming(seq, 0, 1, 0)).containsExactly(0, files.size() - 1);
      EpochPlan shuffled = plan(new BlockShuffle(8, 4, 0.25, false), view, 16, 1);
      assertThat(order.upcoming(shuffled, 1, 2, 3))
          .containsExactly(bruteForce(shuffled, view, 1, 2, 3));
      assertThatThrownBy(() -> order.upcoming(plan(new Sequential(2, 8), v3.all(), 16, 0), 0, 1, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("the view has " + view.rowCount());
    }
  }

  @Test
  void theLoaderReportsTheFilesOfItsComingBatchesAcrossEpochs() throws IOException {
    DatasetView view = dataset.all();
    LoaderOptions o = LoaderOptions.of(new BlockShuffle(8, 4, 0.25, false), 64, 3).withEpochs(2);
    try (Loader loader = Loader.open(view, o, allocator)) {
      long perEpoch = loader.plan().batchCount();
      assertThat(loader.upcomingFiles()).containsExactly(bruteForce(loader.plan(), view, 0, 1, 0));
      for (long b = 0; b < perEpoch + 2; b++) {
        try (VectorSchemaRoot batch = loader.next()) {
          assertThat(batch).isNotNull();
        }
        LoaderState s = loader.state();
        EpochPlan p = EpochPlan.create(o.sampler(), view.rowCount(), 64, 3, s.epoch(), Tail.PAD);
        int[] expected = bruteForce(p, view, 0, 1, s.batchCursor());
        assertThat(loader.upcomingFiles()).as("after batch %d", b).containsExactly(expected);
        if (b == perEpoch - 1) {
          // At the end of epoch 0 the next batch is epoch 1's first: all its files again.
          assertThat(s.epoch()).isEqualTo(1);
          assertThat(s.batchCursor()).isZero();
          assertThat(expected).hasSize(dataset.fileCount());
        }
      }
    }
  }
}
