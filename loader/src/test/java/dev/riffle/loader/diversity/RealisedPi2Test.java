package dev.riffle.loader.diversity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.loader.plan.BalancedBlocks;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.EpochPlan;
import dev.riffle.loader.plan.RollingPool;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Tail;
import dev.riffle.loader.plan.TrueRandom;
import dev.riffle.loader.plan.WeightedBlocks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Realised diversity of seeded plans against the exact model (research brief §3). */
@ExtendWith(SeedExtension.class)
class RealisedPi2Test {

  /** Realised diversity over whole epochs until at least {@code batches} batches. */
  static BatchDiversity measure(Sampler s, long n, int m, long seed, long batches) {
    BatchDiversity d = new BatchDiversity(null);
    for (long epoch = 0; d.batches() < batches; epoch++) {
      EpochPlan plan = EpochPlan.create(s, n, m, seed, epoch, Tail.DROP);
      long[] batch = new long[m];
      for (long t = 0; t < plan.batchCount(); t++) {
        plan.slice(t, 0, 1, batch);
        d.add(batch, m, plan.order()::blockOf, null);
      }
    }
    return d;
  }

  @Test
  void blockShufflePi2WithinFivePercentOfTheModel(@Seed long seed) {
    int[][] cases = {{16, 16, 64}, {64, 16, 64}, {16, 64, 64}, {4, 8, 32}, {32, 4, 128}};
    for (int[] c : cases) {
      int b = c[0];
      int f = c[1];
      int m = c[2];
      double model = DiversityModel.pi2(b, m, f);
      // Enough batches for a standard error under 1% of π₂.
      long batches = (long) Math.ceil(40 / (model * m * m / 100.0));
      BatchDiversity d = measure(BlockShuffle.of(b, f), 200_000, m, seed, Math.max(500, batches));
      assertThat(d.pi2())
          .as("b=%d f=%d m=%d model %.5f", b, f, m, model)
          .isCloseTo(model, org.assertj.core.data.Percentage.withPercentage(5));
      double ed = DiversityModel.expectedDistinctBlocks(b, m, f);
      assertThat(d.distinctBlocksMean())
          .as("E[D] b=%d f=%d m=%d", b, f, m)
          .isCloseTo(ed, org.assertj.core.data.Percentage.withPercentage(2));
    }
  }

  @Test
  void anEpochEndingInAPartialWindowMatchesTheEpochModel(@Seed long seed) {
    // The demo's shape: 20,000 rows, windows of 16,384, a last window of 3,616 rows.
    int b = 16;
    int f = 256;
    int m = 64;
    long n = 20_000;
    long perEpoch = n / m;
    double full = DiversityModel.pi2(b, m, f);
    double epoch = DiversityModel.pi2Epoch(b, 0, m, f, n, perEpoch);
    assertThat(epoch).isGreaterThan(full * 1.4);
    BatchDiversity d = measure(BlockShuffle.of(b, f), n, m, seed, 200 * perEpoch);
    assertThat(d.pi2())
        .as("epoch model %.5f, full windows %.5f", epoch, full)
        .isCloseTo(epoch, org.assertj.core.data.Percentage.withPercentage(5));
    // Whole windows only: the epoch model is the window model.
    assertThat(DiversityModel.pi2Epoch(b, 0, m, f, 4 * 16_384, 4 * 256)).isEqualTo(full);
  }

  @Test
  void jitteredBlocksPi2WithinFivePercentOfTheJitterModel(@Seed long seed) {
    // {b, f, m, jitter in percent}
    int[][] cases = {{16, 16, 64, 25}, {32, 8, 64, 50}, {16, 64, 64, 25}, {8, 4, 32, 75}};
    for (int[] c : cases) {
      int b = c[0];
      int f = c[1];
      int m = c[2];
      double jitter = c[3] / 100.0;
      int spread = (int) Math.floor(b * jitter);
      double model = DiversityModel.pi2(b, spread, m, f);
      long batches = (long) Math.ceil(40 / (model * m * m / 100.0));
      BatchDiversity d =
          measure(new BlockShuffle(b, f, jitter, false), 200_000, m, seed, Math.max(500, batches));
      assertThat(d.pi2())
          .as("b=%d f=%d m=%d jitter %.2f model %.5f", b, f, m, jitter, model)
          .isCloseTo(model, org.assertj.core.data.Percentage.withPercentage(5));
      // The jitter raises π₂ above the fixed-length model by the length bias E[L²]/b − b.
      assertThat(model).isGreaterThan(DiversityModel.pi2(b, m, f) * 0.99);
    }
  }

  @Test
  void weightedPi2WithinFivePercentOfItsModel(@Seed long seed) {
    int n = 100_000;
    double[] even = new double[n];
    double[] skewed = new double[n];
    for (int i = 0; i < n; i++) {
      even[i] = 1;
      // A tenth of the rows carry 20 times the weight: their blocks are drawn far more often.
      skewed[i] = i < n / 10 ? 20 : 1;
    }
    // {b, f, m}
    int[][] cases = {{16, 16, 64}, {32, 8, 64}, {8, 64, 32}};
    for (double[] w : new double[][] {even, skewed}) {
      for (int[] c : cases) {
        int b = c[0];
        int f = c[1];
        int m = c[2];
        WeightedBlocks s = new WeightedBlocks(b, f, 0.25, "w", w);
        BatchDiversity d = measure(s, n, m, seed, 4000);
        // The model of each epoch measured (whole epochs of n/m batches), averaged.
        long epochs = (4000 + n / m - 1) / (n / m);
        double model = 0;
        for (long epoch = 0; epoch < epochs; epoch++) {
          model += DiversityModel.pi2Weighted(b, m, f, s.blockCollision(seed, epoch)) / epochs;
        }
        assertThat(d.pi2())
            .as("%s b=%d f=%d m=%d model %.5f", w == even ? "even" : "skewed", b, f, m, model)
            .isCloseTo(model, org.assertj.core.data.Percentage.withPercentage(5));
        // The repeated draws of heavy blocks show: above block shuffling's π₂.
        assertThat(model).isGreaterThan(DiversityModel.pi2(b, m, f));
      }
    }
  }

  @Test
  void balancedPi2WithinFivePercentOfTheBlockModel(@Seed long seed) {
    int n = 200_000;
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      // Five classes of unequal size, grouped like plates: 10%, 15%, 20%, 25%, 30% of the rows.
      double u = (double) i / n;
      labels[i] = u < 0.10 ? 0 : u < 0.25 ? 1 : u < 0.45 ? 2 : u < 0.70 ? 3 : 4;
    }
    int[][] cases = {{16, 16, 64}, {16, 64, 64}, {32, 8, 128}};
    for (int[] c : cases) {
      int b = c[0];
      int f = c[1];
      int m = c[2];
      BalancedBlocks s = new BalancedBlocks(b, f, "label", labels);
      assertThat(s.windowBlocksDistinct(m)).isTrue();
      double model = DiversityModel.pi2(b, m, f);
      long batches = (long) Math.ceil(40 / (model * m * m / 100.0));
      BatchDiversity d = measure(s, n, m, seed, Math.max(500, batches));
      assertThat(d.pi2())
          .as("b=%d f=%d m=%d model %.5f", b, f, m, model)
          .isCloseTo(model, org.assertj.core.data.Percentage.withPercentage(5));
    }
    // A class of 40 rows cannot fill its share of a 4096-row window without repeating blocks.
    int[] tiny = labels.clone();
    for (int i = 0; i < 40; i++) {
      tiny[i] = 5;
    }
    assertThat(new BalancedBlocks(16, 64, "label", tiny).windowBlocksDistinct(64)).isFalse();
  }

  @Test
  void dealModeGivesTheDeterministicFloor() {
    // b ≤ f: no two rows of a batch share a block, every batch has m distinct blocks.
    BatchDiversity d = measure(new BlockShuffle(8, 16, 0, true), 65_536, 64, 11, 1000);
    assertThat(d.pi2()).isZero();
    assertThat(d.distinctBlocksMean()).isEqualTo(64.0);
  }

  @Test
  void rollingPoolHalvesPi2AtEqualWindow(@Seed long seed) {
    int b = 16;
    long r = 1024;
    BatchDiversity d = measure(new RollingPool(b, r, 4, 0), 262_144, 64, seed, 3000);
    assertThat(d.pi2())
        .isCloseTo(
            DiversityModel.pi2Pool(b, r), org.assertj.core.data.Percentage.withPercentage(8));
  }

  @Test
  void trueRandomIsNearZero() {
    BatchDiversity d = measure(new TrueRandom(4, 16), 1 << 20, 64, 3, 2000);
    assertThat(d.pi2()).isLessThan(0.0005);
    assertThat(d.meffOverM(64)).isGreaterThan(0.97);
  }

  @Test
  void labelEntropyAndTvOfAUniformBatch() {
    BatchDiversity d = new BatchDiversity(new double[] {0.5, 0.5});
    d.add(new long[] {0, 1, 2, 3}, 4, p -> p, new int[] {0, 1, 0, 1});
    d.add(new long[] {0, 1, 2, 3}, 4, p -> p / 4, new int[] {0, 0, 0, 0});
    assertThat(d.labelEntropyMean()).isEqualTo(0.5);
    assertThat(d.tvMean()).isEqualTo(0.25);
    assertThat(d.pi2()).isEqualTo(12.0 / 24);
    assertThat(d.distinctBlocksMean()).isEqualTo(2.5);
  }
}
