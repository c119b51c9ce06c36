package dev.riffle.loader.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetVersions;
import dev.riffle.loader.plan.BalancedBlocks;
import dev.riffle.loader.plan.LoaderState;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.WeightedBlocks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/** Weighted and class-balanced sampling through the pipeline, on a split with deletions. */
class WeightedBalancedLoaderTest {
  static final long ROWS = 12_000;

  @TempDir Path dir;
  BufferAllocator allocator;
  LocalStorage storage;

  @BeforeEach
  void setUp() throws IOException {
    allocator = new RootAllocator();
    storage = TestDatasets.write(dir, ROWS, 64 << 10, allocator);
    Roaring64Bitmap train = new Roaring64Bitmap();
    train.addRange(0, ROWS * 3 / 4);
    DatasetVersions.setSplit(storage, "train", train);
    Roaring64Bitmap gone = new Roaring64Bitmap();
    for (long r = 0; r < ROWS; r += 10) {
      gone.add(r);
    }
    DatasetVersions.deleteRows(storage, gone);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
    assertThat(LoaderTest.loaderThreads()).isZero();
  }

  @Test
  void deliverTheirPlansOnASplitWithDeletionsAndResumeWithAnotherWorldSize() throws IOException {
    try (Dataset d = Dataset.open(storage, allocator)) {
      DatasetView view = d.split("train");
      // Weight = id: row 0 never drawn, later rows more often.
      Sampler weighted = new WeightedBlocks(16, 4, 0.25, "id", SamplerColumns.weights(view, "id"));
      Sampler balanced = new BalancedBlocks(16, 4, "plate", SamplerColumns.labels(view, "plate"));
      for (Sampler s : List.of(weighted, balanced)) {
        LoaderOptions o = LoaderOptions.of(s, 64, 5).withLabel("plate").withEpochs(2);
        List<String> reference = new ArrayList<>();
        int[] perPlate = new int[14];
        try (Loader loader = Loader.open(view, o, allocator)) {
          for (long[] rows : LoaderTest.drain(loader, Integer.MAX_VALUE)) {
            reference.add(LoaderTest.sha256(rows));
            for (long r : rows) {
              assertThat(r % 10).as(s.describe()).isNotZero();
              assertThat(r).as(s.describe()).isLessThan(ROWS * 3 / 4);
              perPlate[(int) (r * 14 / ROWS)]++;
            }
          }
          assertThat(loader.metrics().coverageExact()).isFalse();
        }
        assertThat(reference).hasSize(2 * (int) ((view.rowCount() + 63) / 64));
        if (s == balanced) {
          // The split holds plates 0..10 (11 plates, the last one partly): equal shares.
          int total = java.util.Arrays.stream(perPlate).sum();
          for (int p = 0; p <= 10; p++) {
            assertThat(perPlate[p]).as("plate %d", p).isCloseTo(total / 11, withinPercent(3));
          }
        } else {
          // Weights grow with the row id: the last plate of the split outweighs the first.
          assertThat(perPlate[9]).isGreaterThan(3 * perPlate[1]);
        }
        // Kill after 7 batches, resume on 4 ranks.
        String saved;
        List<String> resumed = new ArrayList<>();
        try (Loader loader = Loader.open(view, o, allocator)) {
          LoaderTest.drain(loader, 7).forEach(b -> resumed.add(LoaderTest.sha256(b)));
          saved = loader.state().toJson();
        }
        LoaderState st = LoaderState.fromJson(saved);
        List<Loader> ranks = new ArrayList<>();
        try {
          for (int r = 0; r < 4; r++) {
            ranks.add(Loader.resume(view, o.withRank(r, 4), st, allocator));
          }
          while (true) {
            long[] global = new long[64];
            int filled = 0;
            for (Loader l : ranks) {
              List<long[]> one = LoaderTest.drain(l, 1);
              if (one.isEmpty()) {
                break;
              }
              System.arraycopy(one.get(0), 0, global, filled, 16);
              filled += 16;
            }
            if (filled == 0) {
              break;
            }
            resumed.add(LoaderTest.sha256(global));
          }
        } finally {
          for (Loader l : ranks) {
            l.close();
          }
        }
        assertThat(resumed).as(s.describe()).isEqualTo(reference);
      }
    }
  }

  private static org.assertj.core.data.Percentage withinPercent(int p) {
    return org.assertj.core.data.Percentage.withPercentage(p);
  }
}
