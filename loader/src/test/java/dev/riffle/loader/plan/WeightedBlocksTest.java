package dev.riffle.loader.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The guarantee of {@link WeightedBlocks}: each epoch index is row i with probability w_i/W, draws
 * independent, block k drawn with probability W_k/W. Checked by Pearson χ² statistics against their
 * null distribution: |X − dof| within 5 standard deviations, √(2·dof).
 */
@ExtendWith(SeedExtension.class)
class WeightedBlocksTest {

  static long[] counts(Sampler s, int n, int g, long seed, int epochs) {
    long[] count = new long[n];
    for (int e = 0; e < epochs; e++) {
      EpochPlan plan = EpochPlan.create(s, n, g, seed, e, Tail.DROP);
      for (long i = 0; i < plan.batchCount() * g; i++) {
        count[(int) plan.position(i)]++;
      }
    }
    return count;
  }

  static void assertChiSquare(double x, long dof, String what) {
    double sd = Math.sqrt(2.0 * dof);
    assertThat(x).as("%s: χ² %.1f, dof %d", what, x, dof).isBetween(dof - 5 * sd, dof + 5 * sd);
  }

  @Test
  void rowFrequenciesFollowTheWeights(@Seed long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    // b = 1: every index is an independent row draw, so row counts are multinomial.
    int n = 2000;
    double[] w = new double[n];
    double[] choices = {0, 0.5, 1, 2, 5};
    for (int i = 0; i < n; i++) {
      w[i] = choices[r.nextInt(choices.length)];
    }
    w[7] = 1; // at least one positive weight
    WeightedBlocks s = new WeightedBlocks(1, 4, 0, "w", w);
    int epochs = 50;
    long[] count = counts(s, n, 50, seed, epochs);
    long total = (long) n * epochs;
    double x = 0;
    long dof = -1;
    for (int i = 0; i < n; i++) {
      if (w[i] == 0) {
        assertThat(count[i]).as("row %d has weight 0", i).isZero();
        continue;
      }
      double expected = total * w[i] / s.totalWeight();
      x += (count[i] - expected) * (count[i] - expected) / expected;
      dof++;
    }
    assertChiSquare(x, dof, "rows, b=1");
  }

  @Test
  void blocksAreDrawnByTheirTotalWeightAndRowsWithinByTheirs(@Seed long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int b = 16;
    int regions = 16;
    int regionRows = 4096;
    int n = regions * regionRows;
    // Region weights 1..16 (region 3 weight 0); rows within a region weigh 1 or 3 alternately.
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      int region = i / regionRows;
      w[i] = region == 3 ? 0 : (region + 1) * (i % 2 == 0 ? 1 : 3);
    }
    for (double jitter : new double[] {0, 0.25}) {
      WeightedBlocks s = new WeightedBlocks(b, 8, jitter, "w", w);
      int epochs = 40;
      long[] count = counts(s, n, 64, r.nextLong(), epochs);
      long total = (long) n * epochs;
      // Draws land whole in a region (but for the few blocks that straddle two): the number of
      // draws per region is multinomial over total/b draws.
      double x = 0;
      long dof = -1;
      long odd = 0;
      long all = 0;
      for (int region = 0; region < regions; region++) {
        long c = 0;
        double weight = 0;
        for (int i = region * regionRows; i < (region + 1) * regionRows; i++) {
          c += count[i];
          weight += w[i];
          odd += i % 2 == 1 ? count[i] : 0;
          all += count[i];
        }
        if (weight == 0) {
          assertThat(c).as("region of weight 0").isZero();
          continue;
        }
        double expectedDraws = (double) total / b * weight / s.totalWeight();
        double draws = (double) c / b;
        x += (draws - expectedDraws) * (draws - expectedDraws) / expectedDraws;
        dof++;
      }
      assertChiSquare(x, dof, "regions, jitter " + jitter);
      // Within blocks, odd rows weigh 3 and even rows 1: 3/4 of the samples are odd rows. A sample
      // is a Bernoulli(3/4); samples of one draw share nothing but their block, whose odd share is
      // also 3/4, so the binomial standard deviation applies.
      double sd = Math.sqrt(0.75 * 0.25 / all);
      assertThat((double) odd / all)
          .as("odd share, jitter " + jitter)
          .isBetween(0.75 - 5 * sd, 0.75 + 5 * sd);
    }
  }

  @Test
  void samePlanForSameInputsAndShardsLikeTheOthers() {
    double[] w = new double[10_000];
    for (int i = 0; i < w.length; i++) {
      w[i] = 1 + (i % 5);
    }
    Sampler s = new WeightedBlocks(16, 4, 0.25, "w", w);
    EpochPlan a = EpochPlan.create(s, w.length, 64, 3, 2, Tail.PAD);
    EpochPlan b =
        EpochPlan.create(new WeightedBlocks(16, 4, 0.25, "w", w), w.length, 64, 3, 2, Tail.PAD);
    EpochPlan other = EpochPlan.create(s, w.length, 64, 4, 2, Tail.PAD);
    boolean differs = false;
    for (long t = 0; t < a.batchCount(); t++) {
      assertThat(a.batch(t)).isEqualTo(b.batch(t));
      differs |= !java.util.Arrays.equals(a.batch(t), other.batch(t));
      long[] joined = new long[64];
      for (int rank = 0; rank < 4; rank++) {
        System.arraycopy(a.slice(t, rank, 4), 0, joined, rank * 16, 16);
      }
      assertThat(joined).isEqualTo(a.batch(t));
    }
    assertThat(differs).isTrue();
    assertThat(a.order().exactlyOnce()).isFalse();
  }

  @Test
  void badWeightsAreRefusedWithTheirPosition() {
    assertThatThrownBy(() -> new WeightedBlocks(4, 1, 0, "w", new double[] {1, -2, 3}))
        .hasMessageContaining("'w' has -2 at view position 1");
    assertThatThrownBy(() -> new WeightedBlocks(4, 1, 0, "w", new double[] {0, 0}))
        .hasMessageContaining("is 0 on all 2 rows");
    assertThatThrownBy(() -> new WeightedBlocks(4, 1, 0, "w", new double[] {1, Double.NaN}))
        .hasMessageContaining("NaN at view position 1");
  }

  @Test
  void aliasNeverDrawsZeroWeights() {
    double[] w = {0, 3, 0, 1e-12, 7, 0, 0, 2};
    Alias a = new Alias(w);
    long[] c = new long[w.length];
    for (long h = 0; h < 400_000; h++) {
      c[a.draw(Mix.mix(h))]++;
    }
    assertThat(c[0] + c[2] + c[5] + c[6]).isZero();
    assertThat((double) c[4] / 400_000)
        .isCloseTo(7 / 12.0, org.assertj.core.data.Offset.offset(0.005));
  }
}
