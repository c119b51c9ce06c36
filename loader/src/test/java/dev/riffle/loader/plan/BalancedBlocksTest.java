package dev.riffle.loader.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The guarantee of {@link BalancedBlocks}: every fetch window holds F/C rows of each class, so an
 * epoch's class frequencies are 1/C each and a batch's class counts are hypergeometric with mean
 * G/C.
 */
@ExtendWith(SeedExtension.class)
class BalancedBlocksTest {

  @Test
  void epochsAndBatchesAreBalancedOverClasses(@Seed long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    // Four classes in runs, very unequal (60%, 30%, 9%, 1%), plus unlabelled rows.
    int n = 100_000;
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      double u = (double) i / n;
      labels[i] = u < 0.6 ? 0 : u < 0.9 ? 2 : u < 0.99 ? 5 : 7;
      if (r.nextInt(50) == 0) {
        labels[i] = -1;
      }
    }
    int b = 16;
    int f = 8;
    int g = 64;
    BalancedBlocks s = new BalancedBlocks(b, f, "label", labels);
    assertThat(s.classes()).isEqualTo(4);
    int c = s.classes();
    double window = (double) g * f;
    // Hypergeometric variance of one class's count in a batch.
    double p = 1.0 / c;
    double var = g * p * (1 - p) * (window - g) / (window - 1);
    for (int epoch = 0; epoch < 3; epoch++) {
      EpochPlan plan = EpochPlan.create(s, n, g, seed, epoch, Tail.DROP);
      long[] perClass = new long[8];
      double sumSq = 0;
      long cells = 0;
      for (long t = 0; t < plan.batchCount(); t++) {
        int[] inBatch = new int[8];
        for (long pos : plan.batch(t)) {
          assertThat(labels[(int) pos]).isNotNegative();
          inBatch[labels[(int) pos]]++;
          perClass[labels[(int) pos]]++;
        }
        for (int code : new int[] {0, 2, 5, 7}) {
          double d = inBatch[code] - g * p;
          sumSq += d * d;
          cells++;
        }
      }
      long rows = plan.batchCount() * g;
      for (int code : new int[] {0, 2, 5, 7}) {
        // Exact per window: off by at most the last, partial window's imbalance.
        assertThat(Math.abs(perClass[code] - rows * p))
            .as("epoch %d class %d: %d of %d", epoch, code, perClass[code], rows)
            .isLessThanOrEqualTo(window);
      }
      // The realised per-batch variance matches the hypergeometric one. Its estimate over
      // `cells` (correlated within a batch) cells has a relative standard error of about
      // √(2/(cells/c)); allow 5 of them.
      double realised = sumSq / cells;
      double rel = 5 * Math.sqrt(2.0 / (cells / (double) c));
      assertThat(realised)
          .as("epoch %d per-batch variance, hypergeometric %.3f", epoch, var)
          .isBetween(var * (1 - rel), var * (1 + rel));
    }
  }

  @Test
  void smallClassesAreCycledThroughEveryRow() {
    // Class 1 has 100 rows, class 0 has 9,900: each epoch shows every row of class 1 about 49
    // times, all of them in every pass.
    int n = 10_000;
    int[] labels = new int[n];
    for (int i = 9_900; i < n; i++) {
      labels[i] = 1;
    }
    BalancedBlocks s = new BalancedBlocks(10, 4, "label", labels);
    EpochPlan plan = EpochPlan.create(s, n, 50, 1, 0, Tail.DROP);
    int[] seen = new int[n];
    for (long i = 0; i < plan.batchCount() * 50; i++) {
      seen[(int) plan.position(i)]++;
    }
    for (int i = 9_900; i < n; i++) {
      assertThat(seen[i]).isBetween(49, 51);
    }
    int zeroSeen = 0;
    for (int i = 0; i < 9_900; i++) {
      assertThat(seen[i]).isLessThanOrEqualTo(1);
      zeroSeen += seen[i];
    }
    assertThat(zeroSeen).isEqualTo(5_000);
  }

  @Test
  void blocksAreRunsOfOneClass() {
    int n = 5_000;
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      labels[i] = (i / 7) % 3;
    }
    // With G·f = b, each window is exactly one draw.
    BalancedBlocks s = new BalancedBlocks(8, 1, "label", labels);
    EpochOrder o = s.order(n, 8, 5, 1);
    java.util.Map<Long, Integer> classOfBlock = new java.util.HashMap<>();
    for (long i = 0; i < n; i++) {
      long p = o.at(i);
      long block = o.blockOf(p);
      // A stream draw of 8 rows is one block of one class.
      long first = o.at(i - i % 8);
      assertThat(labels[(int) p]).isEqualTo(labels[(int) first]);
      assertThat(block).isNotNegative();
      assertThat(classOfBlock.computeIfAbsent(block, k -> labels[(int) p]))
          .isEqualTo(labels[(int) p]);
    }
  }
}
