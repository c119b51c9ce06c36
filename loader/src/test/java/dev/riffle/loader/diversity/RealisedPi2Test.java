package dev.riffle.loader.diversity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.testing.Seeds;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.EpochPlan;
import dev.riffle.loader.plan.RollingPool;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Tail;
import dev.riffle.loader.plan.TrueRandom;
import org.junit.jupiter.api.Test;

/** Realised diversity of seeded plans against the exact model (research brief §3). */
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
  void blockShufflePi2WithinFivePercentOfTheModel() {
    long seed = Seeds.seed();
    String again =
        Seeds.reproduce(
            "loader", RealisedPi2Test.class, "blockShufflePi2WithinFivePercentOfTheModel", seed);
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
          .as(again + " b=%d f=%d m=%d model %.5f", b, f, m, model)
          .isCloseTo(model, org.assertj.core.data.Percentage.withPercentage(5));
      double ed = DiversityModel.expectedDistinctBlocks(b, m, f);
      assertThat(d.distinctBlocksMean())
          .as(again + " E[D] b=%d f=%d m=%d", b, f, m)
          .isCloseTo(ed, org.assertj.core.data.Percentage.withPercentage(2));
    }
  }

  @Test
  void jitteredBlocksPi2WithinFivePercentOfTheJitterModel() {
    long seed = Seeds.seed();
    String again =
        Seeds.reproduce(
            "loader",
            RealisedPi2Test.class,
            "jitteredBlocksPi2WithinFivePercentOfTheJitterModel",
            seed);
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
          .as(again + " b=%d f=%d m=%d jitter %.2f model %.5f", b, f, m, jitter, model)
          .isCloseTo(model, org.assertj.core.data.Percentage.withPercentage(5));
      // The jitter raises π₂ above the fixed-length model by the length bias E[L²]/b − b.
      assertThat(model).isGreaterThan(DiversityModel.pi2(b, m, f) * 0.99);
    }
  }

  @Test
  void dealModeGivesTheDeterministicFloor() {
    // b ≤ f: no two rows of a batch share a block, every batch has m distinct blocks.
    BatchDiversity d = measure(new BlockShuffle(8, 16, 0, true), 65_536, 64, 11, 1000);
    assertThat(d.pi2()).isZero();
    assertThat(d.distinctBlocksMean()).isEqualTo(64.0);
  }

  @Test
  void rollingPoolHalvesPi2AtEqualWindow() {
    long seed = Seeds.seed();
    int b = 16;
    long r = 1024;
    BatchDiversity d = measure(new RollingPool(b, r, 4, 0), 262_144, 64, seed, 3000);
    assertThat(d.pi2())
        .as(
            Seeds.reproduce(
                "loader", RealisedPi2Test.class, "rollingPoolHalvesPi2AtEqualWindow", seed))
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
