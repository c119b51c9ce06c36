package dev.riffle.format.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ByteSink;
import dev.riffle.format.RecordInput;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The packed form of {@link PackedLists} in isolation: every item width, bit widths 0 to 64, lists
 * that end flush with the buffer (the tail path) or not, in heap and direct buffers.
 */
@ExtendWith(SeedExtension.class)
class PackedListsTest {

  @Test
  void packThenDecodeRestoresEveryItem(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    try (BufferAllocator a = new RootAllocator()) {
      for (int round = 0; round < 400; round++) {
        int width = 1 << r.nextInt(4);
        boolean signed = r.nextBoolean();
        int n = r.nextInt(5) == 0 ? r.nextInt(3) : 1 + r.nextInt(300);
        // Deltas below 2^bits (bits 0..64), from a random start: every packed bit width occurs.
        int bits = r.nextInt(65);
        long x = r.nextLong();
        ByteBuffer plain = ByteBuffer.allocate(n * width).order(ByteOrder.LITTLE_ENDIAN);
        long[] want = new long[n];
        for (int i = 0; i < n; i++) {
          long d = bits == 64 ? r.nextLong() : bits == 0 ? 0 : r.nextLong() >>> (64 - bits);
          x += r.nextInt(4) == 0 ? -d : d;
          put(plain, i, width, x);
          want[i] = get(plain, i, width);
        }
        ByteSink packed = new ByteSink();
        PackedLists.pack(plain, 0, n, width, signed, packed);
        String what = "round " + round + ", width " + width + ", n " + n;
        for (boolean direct : new boolean[] {false, true}) {
          for (int slack : new int[] {0, 1, 9}) {
            ByteBuffer buf =
                (direct
                        ? ByteBuffer.allocateDirect(packed.length() + slack)
                        : ByteBuffer.allocate(packed.length() + slack))
                    .order(ByteOrder.LITTLE_ENDIAN);
            buf.put(packed.array(), 0, packed.length()).clear();
            RecordInput in = new RecordInput("t").reset(buf, 0, packed.length(), 0).packed(true);
            int count = (int) in.varint(Integer.MAX_VALUE);
            assertThat(count).as(what).isEqualTo(n);
            try (BaseFixedWidthVector v = vector(width, a)) {
              v.allocateNew(1);
              // Decode behind a few slots already used, as into a batch's list items.
              int first = r.nextInt(5);
              PackedLists.decode(in, n, width, v, first);
              assertThat(in.remaining()).as(what).isZero();
              for (int i = 0; i < n; i++) {
                long at = (long) (first + i) * width;
                long got =
                    width == 1
                        ? v.getDataBuffer().getByte(at)
                        : width == 2
                            ? v.getDataBuffer().getShort(at)
                            : width == 4
                                ? v.getDataBuffer().getInt(at)
                                : v.getDataBuffer().getLong(at);
                assertThat(got).as(what + ", item " + i).isEqualTo(want[i]);
                assertThat(v.isNull(first + i)).as(what).isFalse();
              }
            }
          }
        }
      }
    }
  }

  private static BaseFixedWidthVector vector(int width, BufferAllocator a) {
    switch (width) {
      case 1:
        return new TinyIntVector("v", a);
      case 2:
        return new SmallIntVector("v", a);
      case 4:
        return new IntVector("v", a);
      default:
        return new BigIntVector("v", a);
    }
  }

  private static void put(ByteBuffer b, int i, int width, long v) {
    switch (width) {
      case 1:
        b.put(i, (byte) v);
        break;
      case 2:
        b.putShort(2 * i, (short) v);
        break;
      case 4:
        b.putInt(4 * i, (int) v);
        break;
      default:
        b.putLong(8 * i, v);
    }
  }

  private static long get(ByteBuffer b, int i, int width) {
    switch (width) {
      case 1:
        return b.get(i);
      case 2:
        return b.getShort(2 * i);
      case 4:
        return b.getInt(4 * i);
      default:
        return b.getLong(8 * i);
    }
  }
}
