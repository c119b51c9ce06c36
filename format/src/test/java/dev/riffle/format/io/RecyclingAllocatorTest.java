package dev.riffle.format.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;

class RecyclingAllocatorTest {
  private static final long MIB = 1 << 20;

  @Test
  void aFreedLargeBlockServesTheNextAllocationOfAboutTheSameSize() {
    try (RecyclingAllocator a = RecyclingAllocator.create(64 * MIB)) {
      long address;
      try (ArrowBuf b = a.buffer(21 * MIB)) {
        assertThat(a.getAllocatedMemory()).isEqualTo(21 * MIB);
        b.setLong(21 * MIB - 8, 42);
        address = b.memoryAddress();
      }
      assertThat(a.getAllocatedMemory()).isZero();
      assertThat(a.keptBytes()).isEqualTo(24 * MIB);
      // A little smaller: the same memory comes back, accounted at the new size.
      try (ArrowBuf b = a.buffer(20 * MIB)) {
        assertThat(b.memoryAddress()).isEqualTo(address);
        assertThat(a.getAllocatedMemory()).isEqualTo(20 * MIB);
        assertThat(a.reused()).isEqualTo(1);
        assertThat(a.keptBytes()).isZero();
      }
      // Far smaller: a kept block more than twice its size is not used.
      try (ArrowBuf b = a.buffer(2 * MIB)) {
        assertThat(b.memoryAddress()).isNotEqualTo(address);
        assertThat(a.reused()).isEqualTo(1);
      }
    }
  }

  @Test
  void keptBytesStayWithinTheLimitAndSmallBlocksAreNotKept() {
    try (RecyclingAllocator a = RecyclingAllocator.create(10 * MIB)) {
      ArrowBuf x = a.buffer(4 * MIB);
      ArrowBuf y = a.buffer(4 * MIB);
      ArrowBuf z = a.buffer(4 * MIB);
      ArrowBuf small = a.buffer(1024);
      x.close();
      y.close();
      z.close();
      small.close();
      assertThat(a.keptBytes()).isEqualTo(8 * MIB);
    }
  }

  @Test
  void vectorsWorkAsWithAnyAllocatorAndLeaksStillShowAtClose() {
    RecyclingAllocator a = RecyclingAllocator.create(64 * MIB);
    for (int round = 0; round < 3; round++) {
      try (IntVector v = new IntVector("v", a)) {
        v.allocateNew(1_000_000);
        for (int i = 0; i < 1_000_000; i++) {
          v.set(i, i * 3 + round);
        }
        v.setValueCount(1_000_000);
        assertThat(v.get(999_999)).isEqualTo(2_999_997 + round);
      }
    }
    assertThat(a.reused()).isGreaterThanOrEqualTo(2);
    // Arrow's leak check still fires (this test leaks the 1 MiB on purpose), and the kept blocks
    // are freed all the same.
    a.buffer(MIB);
    assertThat(a.keptBytes()).isPositive();
    assertThatThrownBy(a::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("leak");
    assertThat(a.keptBytes()).isZero();
  }

  @Test
  void theArrowLimitStillHolds() {
    try (RecyclingAllocator a = RecyclingAllocator.create(64 * MIB, 8 * MIB)) {
      assertThatThrownBy(() -> a.buffer(9 * MIB)).isInstanceOf(OutOfMemoryException.class);
    }
  }

  @Test
  void sizeClassesWasteAtMostAQuarter() {
    assertThat(RecyclingAllocator.sizeClass(1000)).isEqualTo(1000);
    for (long s = RecyclingAllocator.MIN_BLOCK; s < 1L << 34; s = s * 7 / 5 + 13) {
      long c = RecyclingAllocator.sizeClass(s);
      assertThat(c).isBetween(s, s + s / 4);
    }
    assertThat(RecyclingAllocator.sizeClass(16 * MIB)).isEqualTo(16 * MIB);
    assertThat(RecyclingAllocator.sizeClass(16 * MIB + 1)).isEqualTo(20 * MIB);
  }
}
