package dev.riffle.format.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ByteSink;
import dev.riffle.format.RecordInput;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
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
 * Every packed bit width (0 to 64) at every item width, so that each of {@link PackedLists}'s
 * decode paths runs, the per-width copies of its loop over groups of eight among them: lists of a
 * few items (no whole group) to a few thousand, read from heap and direct buffers that end flush
 * with the list (the last values are read one by one) or not.
 */
@ExtendWith(SeedExtension.class)
class PackedListsWidthsTest {
  @Test
  void everyBitWidthDecodes(@Seed long seed) throws Exception {
    String where = "packed lists";
    SplittableRandom r = new SplittableRandom(seed);
    try (BufferAllocator a = new RootAllocator()) {
      for (int width : new int[] {1, 2, 4, 8}) {
        BitSet seen = new BitSet();
        for (int w = 0; w <= 64; w++) {
          for (int n : new int[] {2, 9, 17, 100 + r.nextInt(100), 1000 + r.nextInt(4000)}) {
            // Steps of w random bits: the packed width is w once the list is long enough, where
            // the items' width holds them (narrower items wrap, to some other width).
            ByteBuffer plain = ByteBuffer.allocate(n * width).order(ByteOrder.LITTLE_ENDIAN);
            long x = r.nextLong();
            for (int i = 0; i < n; i++) {
              put(plain, i, width, x);
              x += w == 64 ? r.nextLong() : w == 0 ? 0 : r.nextLong() >>> (64 - w);
            }
            ByteSink packed = new ByteSink();
            PackedLists.pack(plain, 0, n, width, r.nextBoolean(), packed);
            int packedWidth = packedWidth(packed);
            seen.set(packedWidth);
            String what = where + " (width " + width + ", w " + packedWidth + ", n " + n + ")";
            for (boolean direct : new boolean[] {false, true}) {
              for (int slack : new int[] {0, 9}) {
                decodeAndCompare(packed, plain, n, width, direct, slack, r, a, what);
              }
            }
          }
        }
        // The loop over groups of eight has a copy per bit width 1 to 8 for int and long items.
        if (width >= 4) {
          assertThat(seen.get(0, 9).cardinality()).as(where + " width " + width).isEqualTo(9);
        }
        if (width == 8) {
          assertThat(seen.cardinality()).as(where).isEqualTo(65);
        }
      }
    }
  }

  /** The bit width byte of a packed list of at least two items. */
  private static int packedWidth(ByteSink packed) throws Exception {
    ByteBuffer b = ByteBuffer.wrap(packed.array(), 0, packed.length());
    RecordInput in = new RecordInput("t").reset(b, 0, packed.length(), 0).packed(true);
    in.varint(Integer.MAX_VALUE);
    in.varint64();
    in.varint64();
    return in.u8();
  }

  private static void decodeAndCompare(
      ByteSink packed,
      ByteBuffer plain,
      int n,
      int width,
      boolean direct,
      int slack,
      SplittableRandom r,
      BufferAllocator a,
      String what)
      throws Exception {
    ByteBuffer buf =
        (direct
                ? ByteBuffer.allocateDirect(packed.length() + slack)
                : ByteBuffer.allocate(packed.length() + slack))
            .order(ByteOrder.LITTLE_ENDIAN);
    buf.put(packed.array(), 0, packed.length()).clear();
    RecordInput in = new RecordInput("t").reset(buf, 0, packed.length(), 0).packed(true);
    assertThat(in.varint(Integer.MAX_VALUE)).as(what).isEqualTo(n);
    try (BaseFixedWidthVector v = vector(width, a)) {
      v.allocateNew(1);
      int first = r.nextInt(9);
      PackedLists.decode(in, n, width, v, first);
      assertThat(in.remaining()).as(what).isZero();
      ArrowBuf data = v.getDataBuffer();
      for (int i = 0; i < n; i++) {
        for (int b = 0; b < width; b++) {
          byte got = data.getByte((long) (first + i) * width + b);
          if (got != plain.get(i * width + b)) {
            assertThat(got)
                .as(what + ", direct " + direct + ", item " + i)
                .isEqualTo(plain.get(i * width + b));
          }
        }
        assertThat(v.isNull(first + i)).as(what).isFalse();
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
    for (int k = 0; k < width; k++) {
      b.put(i * width + k, (byte) (v >>> (8 * k)));
    }
  }
}
