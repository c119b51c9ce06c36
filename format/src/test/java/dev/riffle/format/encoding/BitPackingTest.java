package dev.riffle.format.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class BitPackingTest {

  private static final int[] SIZES = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 200, 1000};

  @Test
  void packedBytesAndBitWidth() {
    assertThat(BitPacking.packedBytes(0, 64)).isZero();
    assertThat(BitPacking.packedBytes(1000, 0)).isZero();
    assertThat(BitPacking.packedBytes(1, 1)).isEqualTo(1);
    assertThat(BitPacking.packedBytes(8, 1)).isEqualTo(1);
    assertThat(BitPacking.packedBytes(9, 1)).isEqualTo(2);
    assertThat(BitPacking.packedBytes(5, 3)).isEqualTo(2);
    assertThat(BitPacking.packedBytes(3, 64)).isEqualTo(24);
    assertThat(BitPacking.packedBytes(Integer.MAX_VALUE, 8)).isEqualTo(Integer.MAX_VALUE);
    assertThatThrownBy(() -> BitPacking.packedBytes(Integer.MAX_VALUE, 9))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BitPacking.packedBytes(-1, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BitPacking.packedBytes(1, 65))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BitPacking.packedBytes(1, -1))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(BitPacking.bitWidth(0)).isZero();
    assertThat(BitPacking.bitWidth(1)).isEqualTo(1);
    assertThat(BitPacking.bitWidth(2)).isEqualTo(2);
    assertThat(BitPacking.bitWidth(255)).isEqualTo(8);
    assertThat(BitPacking.bitWidth(256)).isEqualTo(9);
    assertThat(BitPacking.bitWidth(Long.MAX_VALUE)).isEqualTo(63);
    assertThat(BitPacking.bitWidth(-1)).isEqualTo(64);
    assertThat(BitPacking.bitWidth(Long.MIN_VALUE)).isEqualTo(64);
  }

  @Test
  void knownLayout() {
    ByteBuffer out = ByteBuffer.allocate(2);
    BitPacking.pack(new long[] {1, 2, 3, 4, 5}, 5, 3, out);
    // 1=001 2=010 3=011 4=100 5=101, LSB-first: 1 0 0 | 0 1 0 | 1 1 0 | 0 0 1 | 1 0 1 | pad 0.
    assertThat(out.array()).containsExactly(0xD1, 0x58);
    ByteBuffer in = ByteBuffer.wrap(out.array()).order(ByteOrder.LITTLE_ENDIAN);
    for (int j = 0; j < 5; j++) {
      assertThat(BitPacking.get(in, 0, j, 3)).isEqualTo(j + 1);
    }
  }

  @Test
  void width64RoundTripsExtremes() {
    long[] values = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123_4567_89AB_CDEFL};
    ByteBuffer out = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
    BitPacking.pack(values, values.length, 64, out);
    for (int j = 0; j < values.length; j++) {
      assertThat(out.getLong(8 * j)).isEqualTo(values[j]);
      assertThat(BitPacking.get(out, 0, j, 64)).isEqualTo(values[j]);
    }
    long[] dst = new long[values.length];
    BitPacking.unpack(out, 0, 0, values.length, 64, dst);
    assertThat(dst).containsExactly(values);
  }

  @Test
  void randomRoundTripsAllWidths(@Seed long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int w = 0; w <= 64; w++) {
      for (int n : SIZES) {
        roundTrip(rnd, n, w);
      }
    }
  }

  private static void roundTrip(SplittableRandom rnd, int n, int w) {
    long mask = w == 64 ? -1L : (1L << w) - 1;
    long[] values = randomValues(rnd, n, w);
    byte[] expected = referencePack(values, n, w);
    int bytes = BitPacking.packedBytes(n, w);
    assertThat(bytes).as("packedBytes(%d, %d)", n, w).isEqualTo(expected.length);

    int prefix = rnd.nextInt(0, 12);
    int suffix = rnd.nextInt(0, 12);
    byte[] backing = new byte[prefix + bytes + suffix];
    byte garbage = (byte) rnd.nextInt(256);
    Arrays.fill(backing, garbage);
    // The writers' array form: the same bytes, nothing written outside them.
    byte[] array = backing.clone();
    BitPacking.packInto(values, n, w, array, prefix);
    assertThat(Arrays.copyOfRange(array, prefix, prefix + bytes))
        .as("packInto bytes n=%d w=%d", n, w)
        .isEqualTo(expected);
    assertThat(Arrays.copyOfRange(array, 0, prefix))
        .isEqualTo(Arrays.copyOfRange(backing, 0, prefix));
    assertThat(Arrays.copyOfRange(array, prefix + bytes, array.length))
        .as("packInto suffix n=%d w=%d", n, w)
        .isEqualTo(Arrays.copyOfRange(backing, prefix + bytes, backing.length));
    ByteBuffer out = ByteBuffer.wrap(backing);
    out.order(rnd.nextBoolean() ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
    out.position(prefix);
    BitPacking.pack(values, n, w, out);
    assertThat(out.position()).as("position after pack n=%d w=%d", n, w).isEqualTo(prefix + bytes);
    assertThat(Arrays.copyOfRange(backing, prefix, prefix + bytes))
        .as("packed bytes n=%d w=%d", n, w)
        .isEqualTo(expected);
    for (int k = 0; k < prefix; k++) {
      assertThat(backing[k]).as("prefix byte %d overwritten", k).isEqualTo(garbage);
    }
    for (int k = prefix + bytes; k < backing.length; k++) {
      assertThat(backing[k]).as("suffix byte %d overwritten", k).isEqualTo(garbage);
    }

    // The buffer ends where the stream ends, so the last values take the byte-wise path.
    ByteBuffer tight = heapOrDirect(rnd, backing, prefix + bytes);
    for (int j = 0; j < n; j++) {
      assertThat(BitPacking.get(tight, prefix, j, w))
          .as("get(%d) n=%d w=%d", j, n, w)
          .isEqualTo(values[j] & mask);
    }
    // get(j) must not need a byte past the last one holding value j.
    for (int t = 0; t < Math.min(n, 64); t++) {
      int j = n <= 64 ? t : rnd.nextInt(n);
      ByteBuffer cut = tight.duplicate().order(ByteOrder.LITTLE_ENDIAN);
      cut.limit(prefix + BitPacking.packedBytes(j + 1, w));
      assertThat(BitPacking.get(cut, prefix, j, w))
          .as("get(%d) with limit at its last byte, w=%d", j, w)
          .isEqualTo(values[j] & mask);
    }
    // A big-endian view reads the same values.
    ByteBuffer bigEndian = tight.duplicate().order(ByteOrder.BIG_ENDIAN);
    if (n > 0) {
      int j = rnd.nextInt(n);
      assertThat(BitPacking.get(bigEndian, prefix, j, w)).isEqualTo(values[j] & mask);
    }

    for (int t = 0; t < 8; t++) {
      int first = n == 0 ? 0 : rnd.nextInt(n + 1);
      int count = rnd.nextInt(n - first + 1);
      long[] dst = new long[count + rnd.nextInt(3)];
      Arrays.fill(dst, 0x5555_5555_5555_5555L);
      ByteBuffer cut = tight.duplicate().order(ByteOrder.LITTLE_ENDIAN);
      cut.limit(prefix + BitPacking.packedBytes(first + count, w));
      BitPacking.unpack(rnd.nextBoolean() ? cut : tight, prefix, first, count, w, dst);
      for (int i = 0; i < count; i++) {
        assertThat(dst[i])
            .as("unpack first=%d count=%d i=%d w=%d", first, count, i, w)
            .isEqualTo(values[first + i] & mask);
      }
      for (int i = count; i < dst.length; i++) {
        assertThat(dst[i]).as("unpack wrote past count").isEqualTo(0x5555_5555_5555_5555L);
      }
    }
    assertThat(tight.position()).as("get/unpack moved the position").isZero();
  }

  @Test
  void rejectsBadArguments() {
    ByteBuffer buf = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    assertThatThrownBy(() -> BitPacking.pack(new long[4], 4, 65, buf))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BitPacking.pack(new long[4], 5, 3, buf))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BitPacking.get(buf, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BitPacking.get(buf, 0, -1, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> BitPacking.get(buf, 0, 2, 64))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> BitPacking.get(buf, 10, 6, 8))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> BitPacking.unpack(buf, 0, 0, 3, 64, new long[3]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> BitPacking.unpack(buf, 0, 0, 3, 8, new long[2]))
        .isInstanceOf(IndexOutOfBoundsException.class);

    ByteBuffer small = ByteBuffer.allocate(4);
    small.position(1);
    assertThatThrownBy(() -> BitPacking.pack(new long[] {1, 2, 3, 4}, 4, 7, small))
        .isInstanceOf(BufferOverflowException.class);
    assertThat(small.position()).isEqualTo(1);
    assertThat(small.array()).containsOnly(0);
  }

  private static long[] randomValues(SplittableRandom rnd, int n, int w) {
    long mask = w == 64 ? -1L : (1L << w) - 1;
    long[] values = new long[n];
    int kind = rnd.nextInt(4);
    for (int i = 0; i < n; i++) {
      switch (kind) {
        case 0 -> values[i] = rnd.nextLong(); // high garbage bits that pack must drop
        case 1 -> values[i] = rnd.nextLong() & mask;
        case 2 -> values[i] = rnd.nextBoolean() ? mask : 0;
        default -> values[i] = rnd.nextInt(4) == 0 ? -1L : rnd.nextLong() & (mask >>> 1);
      }
    }
    return values;
  }

  private static ByteBuffer heapOrDirect(SplittableRandom rnd, byte[] bytes, int length) {
    ByteBuffer buf =
        rnd.nextBoolean() ? ByteBuffer.allocate(length) : ByteBuffer.allocateDirect(length);
    buf.put(bytes, 0, length).clear();
    return buf.order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Bit-at-a-time packing, as literal a reading of the layout as possible. */
  private static byte[] referencePack(long[] values, int n, int w) {
    byte[] out = new byte[(int) (((long) n * w + 7) / 8)];
    for (int j = 0; j < n; j++) {
      for (int b = 0; b < w; b++) {
        if (((values[j] >>> b) & 1) != 0) {
          long k = (long) j * w + b;
          out[(int) (k / 8)] |= (byte) (1 << (k % 8));
        }
      }
    }
    return out;
  }
}
