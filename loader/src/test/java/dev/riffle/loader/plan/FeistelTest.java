package dev.riffle.loader.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class FeistelTest {

  @Test
  void isABijectionWithItsInverse(@Seed long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int trial = 0; trial < 200; trial++) {
      int size = trial < 20 ? trial + 1 : 1 + random.nextInt(5000);
      long key = random.nextLong();
      BitSet seen = new BitSet(size);
      for (int i = 0; i < size; i++) {
        long p = Feistel.permute(i, size, key);
        assertThat(p).isBetween(0L, size - 1L);
        assertThat(seen.get((int) p)).as("size " + size).isFalse();
        seen.set((int) p);
        assertThat(Feistel.invert(p, size, key)).isEqualTo(i);
      }
    }
  }

  @Test
  void keysGiveDifferentPermutations() {
    int same = 0;
    for (int i = 0; i < 1000; i++) {
      if (Feistel.permute(i, 1000, 1) == Feistel.permute(i, 1000, 2)) {
        same++;
      }
    }
    // Two independent permutations agree on about one point.
    assertThat(same).isLessThan(10);
  }

  @Test
  void belowIsInRange() {
    for (long h = -5000; h < 5000; h += 7) {
      assertThat(Mix.below(Mix.mix(h), 13)).isBetween(0L, 12L);
    }
  }
}
