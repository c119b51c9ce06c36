package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.io.RandomAccessSource.Range;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class RangeCoalescingTest {
  private static Range r(long offset, int n) {
    return new Range(offset, ByteBuffer.allocate(n));
  }

  @Test
  void joinsAcrossSmallGapsAndOverlapsUpToTheLargestFetch() {
    RangeCoalescing c = new RangeCoalescing(100, 1000);
    List<RangeCoalescing.Group> g =
        c.group(List.of(r(0, 10), r(50, 10), r(161, 10), r(165, 2), r(900, 200), r(1050, 10)));
    // 0..60 and 161..171: gap 101 > 100. 900..1100 would make 161..1100 > 1000, so it starts a
    // group; 1050..1060 overlaps it and always joins.
    assertThat(g).extracting(RangeCoalescing.Group::start).containsExactly(0L, 161L, 900L);
    assertThat(g).extracting(RangeCoalescing.Group::end).containsExactly(60L, 171L, 1100L);
    assertThat(g.get(1).members()).hasSize(2);
    assertThat(g.get(2).members()).hasSize(2);
  }

  @Test
  void zeroGapStillJoinsTouchingRanges() {
    List<RangeCoalescing.Group> g =
        new RangeCoalescing(0, 1 << 20).group(List.of(r(0, 10), r(10, 10), r(21, 1)));
    assertThat(g).extracting(RangeCoalescing.Group::end).containsExactly(20L, 22L);
  }
}
