package dev.riffle.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64Bitmap;

class RowSetsTest {
  /**
   * RowSets.addRange gives the set addRange gives, for the ranges a filter matches (many short
   * ones, a few long ones, some across the 65,536-row chunks and past 2^32), and round-trips
   * through encode/decode.
   */
  @Test
  void addRangeIsAddRange() throws Exception {
    for (long seed = 1; seed <= 3; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      Roaring64Bitmap fast = new Roaring64Bitmap();
      Roaring64Bitmap plain = new Roaring64Bitmap();
      long at = seed == 3 ? (1L << 32) - 70_000 : r.nextInt(100_000);
      for (int i = 0; i < 2_000; i++) {
        long length = r.nextInt(20) == 0 ? 1 + r.nextInt(200_000) : 1 + r.nextInt(40);
        RowSets.addRange(fast, at, at + length);
        plain.addRange(at, at + length);
        at += length + 1 + r.nextInt(5);
      }
      assertThat(fast).as("seed %d", seed).isEqualTo(plain);
      assertThat(RowSets.decode(RowSets.encode(fast))).isEqualTo(plain);
    }
  }
}
