package dev.riffle.loader.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BlocksTest {

  @Test
  void jitteredBlocksTileTheCircleWithPerBlockLengths() {
    for (long n : new long[] {1, 7, 31, 32, 33, 1000, 4099}) {
      for (int spread : new int[] {1, 3, 7}) {
        Blocks blocks = new Blocks(n, 8, spread, 5 * n / 7, 17, 23);
        Set<Long> lengths = new HashSet<>();
        boolean[] seen = new boolean[(int) n];
        long total = 0;
        for (long k = 0; k < blocks.count(); k++) {
          long len = blocks.length(k);
          assertThat(len).isBetween(1L, 8L + spread);
          if (k < 2 * (n / 16)) {
            assertThat(len).isBetween(8L - spread, 8L + spread);
            lengths.add(len);
          }
          for (long o = 0; o < len; o++) {
            long p = blocks.positionIn(k, o);
            assertThat(seen[(int) p]).isFalse();
            seen[(int) p] = true;
            assertThat(blocks.blockOf(p)).isEqualTo(k);
          }
          total += len;
        }
        assertThat(total).isEqualTo(n);
        if (n >= 1000) {
          // Lengths vary from block to block within one epoch, not once per epoch.
          assertThat(lengths).hasSizeGreaterThan(spread);
        }
        // The stream visits every position once, each slot one whole block.
        boolean[] streamed = new boolean[(int) n];
        for (long x = 0; x < n; x++) {
          long p = blocks.position(x);
          assertThat(streamed[(int) p]).isFalse();
          streamed[(int) p] = true;
          long slot = blocks.slotOf(x);
          assertThat(x).isBetween(blocks.streamStart(slot), blocks.streamStart(slot + 1) - 1);
          assertThat(blocks.blockOf(p)).isEqualTo(blocks.blockAt(slot));
        }
      }
    }
  }

  @Test
  void jitterZeroKeepsTheLattice() {
    Blocks blocks = new Blocks(100, 16, 0, 3, 9, 11);
    assertThat(blocks.count()).isEqualTo(7);
    for (long p = 0; p < 100; p++) {
      assertThat(blocks.blockOf(p)).isEqualTo(Math.floorMod(p - 3, 100) / 16);
    }
  }
}
