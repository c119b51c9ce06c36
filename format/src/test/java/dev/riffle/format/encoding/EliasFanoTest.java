package dev.riffle.format.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.fail;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class EliasFanoTest {

  private static final int[] SIZES = {
    0, 1, 2, 3, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000, 4097, 10_000
  };

  private static final String RESOURCE = "index.riffle";

  /** Value distributions; each produces a non-decreasing, non-negative sequence. */
  private enum Distribution {
    DENSE,
    HUGE_GAPS,
    REPEATED,
    ZEROS,
    MIXED,
    FULL_RANGE;

    long[] generate(SplittableRandom rnd, int n) {
      long[] v = new long[n];
      if (this == FULL_RANGE) {
        for (int i = 0; i < n; i++) {
          v[i] = rnd.nextLong() >>> 1;
        }
        if (n > 0 && rnd.nextBoolean()) {
          v[0] = Long.MAX_VALUE;
        }
        Arrays.sort(v);
        return v;
      }
      long x = this == MIXED ? rnd.nextLong(1L << 50) : rnd.nextInt(3);
      for (int i = 0; i < n; i++) {
        x +=
            switch (this) {
              case DENSE -> rnd.nextInt(4);
              case HUGE_GAPS -> rnd.nextLong((1L << 40) + 1);
              case REPEATED -> rnd.nextInt(5) == 0 ? rnd.nextInt(1, 1000) : 0;
              case ZEROS -> -x;
              case MIXED ->
                  switch (rnd.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> rnd.nextInt(16);
                    case 2 -> rnd.nextInt(1 << 20);
                    default -> rnd.nextLong(1L << 40);
                  };
              default -> throw new AssertionError(this);
            };
        v[i] = x;
      }
      return v;
    }
  }

  @Test
  void roundTripsAllSizesAndDistributions(@Seed long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    for (Distribution d : Distribution.values()) {
      for (int n : SIZES) {
        long[] values = d.generate(rnd, n);
        // Trailing garbage beyond count must be ignored.
        long[] array = Arrays.copyOf(values, n + rnd.nextInt(3));
        Arrays.fill(array, n, array.length, -7);
        EliasFano ef = EliasFano.of(array, n);
        String what = d + " n=" + n;
        checkAgainst(values, ef, rnd, what);
        EliasFano back = serializedRoundTrip(ef, rnd, what);
        checkAgainst(values, back, rnd, what + " (deserialized)");
        assertThat(back.ramBytes()).as(what).isEqualTo(ef.ramBytes());
      }
    }
  }

  @Test
  void extremeValues(@Seed long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    long[][] cases = {
      {Long.MAX_VALUE},
      {0, Long.MAX_VALUE},
      {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE},
      {0, 0, 1L << 62, Long.MAX_VALUE - 1, Long.MAX_VALUE},
      {1L << 40},
      {0},
      {5, 5},
    };
    for (long[] values : cases) {
      EliasFano ef = EliasFano.of(values, values.length);
      String what = Arrays.toString(values);
      checkAgainst(values, ef, rnd, what);
      checkAgainst(values, serializedRoundTrip(ef, rnd, what), rnd, what);
    }
  }

  @Test
  void serializedLayoutIsAsSpecified() {
    // n=3, U=9: l = floor(log2(9/3)) = 1. Low bits 1,1,1 -> 0b111. High parts 0,2,4 at bits
    // 0+0, 2+1, 4+2 -> 0b1001001 = 73, in n + (U >> 1) + 1 = 8 bits, so one word.
    EliasFano ef = EliasFano.of(new long[] {1, 5, 9}, 3);
    assertThat(ef.serializedBytes()).isEqualTo(32);
    ByteBuffer buf = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
    ef.serialize(buf);
    assertThat(buf.position()).isEqualTo(32);
    assertThat(buf.getInt(0)).isEqualTo(3);
    assertThat(buf.get(4)).isEqualTo((byte) 1);
    assertThat(new byte[] {buf.get(5), buf.get(6), buf.get(7)}).containsOnly(0);
    assertThat(buf.getLong(8)).isEqualTo(9);
    assertThat(buf.getLong(16)).isEqualTo(0b111);
    assertThat(buf.getLong(24)).isEqualTo(73);

    // Empty: header plus the single (zero) word of the one-bit high array.
    EliasFano empty = EliasFano.of(new long[0], 0);
    assertThat(empty.serializedBytes()).isEqualTo(24);
    ByteBuffer e = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    empty.serialize(e);
    assertThat(e.array()).containsOnly(0);
  }

  @Test
  void serializeWritesLittleEndianWhateverTheBufferOrder() throws Exception {
    EliasFano ef = EliasFano.of(new long[] {3, 70, 70, 1000}, 4);
    ByteBuffer le = ByteBuffer.allocate(ef.serializedBytes()).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer be = ByteBuffer.allocate(ef.serializedBytes()).order(ByteOrder.BIG_ENDIAN);
    ef.serialize(le);
    ef.serialize(be);
    assertThat(be.array()).isEqualTo(le.array());
    assertThat(be.order()).isEqualTo(ByteOrder.BIG_ENDIAN);
    be.flip();
    EliasFano back = EliasFano.read(be, RESOURCE, 0);
    assertThat(back.get(3)).isEqualTo(1000);
    assertThat(be.remaining()).isZero();
  }

  @Test
  void ofRejectsBadInput() {
    assertThatThrownBy(() -> EliasFano.of(new long[] {1, 0}, 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EliasFano.of(new long[] {-1}, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EliasFano.of(new long[] {0, 5, -1}, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EliasFano.of(new long[] {1, 2}, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EliasFano.of(new long[] {1, 2}, -1))
        .isInstanceOf(IllegalArgumentException.class);
    // Only the first count values are checked.
    assertThat(EliasFano.of(new long[] {1, 2, 0}, 2).size()).isEqualTo(2);
  }

  @Test
  void getRejectsOutOfRangeIndexes() {
    EliasFano ef = EliasFano.of(new long[] {1, 2, 3}, 3);
    assertThatThrownBy(() -> ef.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> ef.get(3)).isInstanceOf(IndexOutOfBoundsException.class);
    EliasFano empty = EliasFano.of(new long[0], 0);
    assertThatThrownBy(() -> empty.get(0)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(empty.floorIndex(0)).isEqualTo(-1);
    assertThat(empty.floorIndex(Long.MAX_VALUE)).isEqualTo(-1);
  }

  @Test
  void getPairRejectsOutOfRangeIndexes() {
    EliasFano ef = EliasFano.of(new long[] {1, 5, 9}, 3);
    long[] pair = new long[2];
    assertThatThrownBy(() -> ef.getPair(-1, pair)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> ef.getPair(2, pair)).isInstanceOf(IndexOutOfBoundsException.class);
    ef.getPair(1, pair);
    assertThat(pair).containsExactly(5, 9);
  }

  @Test
  void ramBytesIsSmall(@Seed long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    int n = 100_000;
    long[] values = new long[n];
    long x = 0;
    for (int i = 0; i < n; i++) {
      x += rnd.nextInt(8192); // average gap 4096
      values[i] = x;
    }
    EliasFano ef = EliasFano.of(values, n);
    // About 2 + log2(4096) bits per value, with 20% slack for samples and rounding.
    long budget = (long) (n * (2 + 14) / 8 * 1.2);
    assertThat(ef.ramBytes()).as("ramBytes for %d values", n).isLessThan(budget);
    assertThat(ef.ramBytes()).isGreaterThanOrEqualTo(ef.serializedBytes() - 16L);
    checkAgainst(values, ef, rnd, "100k avg gap 4096");
  }

  @Test
  void truncatedFormsAreAlwaysRejected(@Seed long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int t = 0; t < 40; t++) {
      byte[] form = randomForm(rnd, rnd.nextInt(0, 300));
      for (int len = 0; len < form.length; len++) {
        int pre = rnd.nextInt(0, 9);
        ByteBuffer buf = ByteBuffer.allocate(pre + len).order(ByteOrder.LITTLE_ENDIAN);
        buf.position(pre);
        buf.put(form, 0, len).position(pre);
        long fileOffset = rnd.nextLong(1L << 40);
        try {
          EliasFano.read(buf, RESOURCE, fileOffset);
          fail("truncation to %d of %d bytes was accepted", len, form.length);
        } catch (CorruptFileException e) {
          assertThat(e.resource()).isEqualTo(RESOURCE);
          assertThat(e.getMessage()).contains(RESOURCE);
          assertThat(e.offset()).isBetween(fileOffset, fileOffset + len);
          assertThat(buf.position()).as("position after failed read").isEqualTo(pre);
        } catch (Throwable e) {
          throw new AssertionError(
              "truncation to " + len + " of " + form.length + " bytes threw " + e, e);
        }
      }
    }
  }

  @Test
  void corruptedFormsThrowOnlyCorruptFileException(@Seed long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    int rejected = 0;
    for (int t = 0; t < 4000; t++) {
      byte[] form = randomForm(rnd, rnd.nextInt(0, 700));
      int flips = rnd.nextInt(1, 5);
      for (int f = 0; f < flips; f++) {
        // A third of the flips hit the header, where the lengths live.
        int at = rnd.nextInt(3) == 0 ? rnd.nextInt(16) : rnd.nextInt(form.length);
        form[at] ^= (byte) (rnd.nextBoolean() ? 1 << rnd.nextInt(8) : rnd.nextInt(1, 256));
      }
      if (!readAndExercise(rnd, form)) {
        rejected++;
      }
    }
    assertThat(rejected).as("corruptions detected").isGreaterThan(1000);
  }

  @Test
  void garbageThrowsOnlyCorruptFileException(@Seed long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int t = 0; t < 4000; t++) {
      byte[] bytes;
      if (rnd.nextBoolean()) {
        bytes = new byte[rnd.nextInt(0, 200)];
        rnd.nextBytes(bytes);
      } else {
        // A consistent header over random words, so that the body checks are reached.
        int n = rnd.nextInt(0, 40);
        long universe = n == 0 ? 0 : rnd.nextLong(0, 1L << rnd.nextInt(1, 63));
        int l = canonicalLowBits(n, universe);
        long words = ((long) n * l + 63) / 64 + (n + (universe >>> l) + 1 + 63) / 64;
        bytes = new byte[(int) (16 + 8 * words)];
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int k = 16; k < bytes.length; k += 8) {
          // Sparse words give popcounts near n, so later checks get exercised too.
          b.putLong(k, rnd.nextLong() & rnd.nextLong() & rnd.nextLong());
        }
        b.putInt(0, n).put(4, (byte) l).putLong(8, universe);
      }
      readAndExercise(rnd, bytes);
    }
    // Extremes of every header field over an empty body.
    int[] counts = {0, 1, 2, Integer.MAX_VALUE, -1, Integer.MIN_VALUE};
    long[] universes = {0, 1, 1L << 40, Long.MAX_VALUE, -1, Long.MIN_VALUE};
    for (int n : counts) {
      for (long u : universes) {
        for (int l : new int[] {0, 1, 31, 62, 63, 64, 255}) {
          ByteBuffer b = ByteBuffer.allocate(16 + 8 * rnd.nextInt(4));
          b.order(ByteOrder.LITTLE_ENDIAN).putInt(0, n).put(4, (byte) l).putLong(8, u);
          readAndExercise(rnd, b.array());
        }
      }
    }
  }

  @Test
  void specificCorruptionsAreReportedWithOffsets() {
    byte[] good = serialize(EliasFano.of(new long[] {1, 5, 9}, 3));
    long base = 1000;

    for (int k = 5; k < 8; k++) {
      byte[] b = good.clone();
      b[k] = 1;
      assertCorrupt(b, base, base + k, "reserved");
    }
    byte[] b = good.clone();
    le(b).putInt(0, 0x8000_0000);
    assertCorrupt(b, base, base, "count");

    b = good.clone();
    b[4] = 2;
    assertCorrupt(b, base, base + 4, "low-bit width");

    b = good.clone();
    le(b).putLong(8, -9);
    assertCorrupt(b, base, base + 8, "universe");

    b = serialize(EliasFano.of(new long[0], 0));
    le(b).putLong(8, 3);
    assertCorrupt(b, base, base + 8, "universe");

    // An extra one, and a missing one, in the high bits (word at 24: bits 0, 3, 6).
    b = good.clone();
    le(b).putLong(24, 73 | 2);
    assertCorrupt(b, base, base + 24, "ones");
    b = good.clone();
    le(b).putLong(24, 73 & ~8);
    assertCorrupt(b, base, base + 24, "ones");

    // The last one moved onto the spare bit 7: the last value decodes to 11 > U = 9.
    b = good.clone();
    le(b).putLong(24, 73 & ~64 | 128);
    assertCorrupt(b, base, base + 24, "universe");

    // Padding: bit 8 of the 8-bit high array; bit 3 of the 3-bit low array.
    b = good.clone();
    le(b).putLong(24, 73 | 256);
    assertCorrupt(b, base, base + 24, "padding");
    b = good.clone();
    le(b).putLong(16, 0b1111);
    assertCorrupt(b, base, base + 16, "padding");

    // 8 and 9 share bucket 0 (l = 5); swapping their low bits makes the sequence decrease.
    byte[] bucket = serialize(EliasFano.of(new long[] {8, 9, 100}, 3));
    long lowWord = le(bucket).getLong(16);
    assertThat(lowWord & 0x3FF).isEqualTo(8 | 9 << 5);
    le(bucket).putLong(16, (lowWord & ~0x3FFL) | 9 | 8 << 5);
    assertCorrupt(bucket, base, -1, "predecessor");

    // A count that claims gigabytes must be rejected before anything is allocated.
    for (long u : new long[] {0, Long.MAX_VALUE}) {
      b = new byte[64];
      le(b).putInt(0, Integer.MAX_VALUE).putLong(8, u);
      b[4] = (byte) canonicalLowBits(Integer.MAX_VALUE, u);
      assertCorrupt(b, base, base + 64, "remain");
    }
  }

  @Test
  void readHonorsPositionAndOffset() throws Exception {
    EliasFano ef = EliasFano.of(new long[] {2, 3, 5, 7, 11, 13}, 6);
    int size = ef.serializedBytes();
    ByteBuffer buf = ByteBuffer.allocate(7 + size + 5).order(ByteOrder.LITTLE_ENDIAN);
    buf.position(7);
    ef.serialize(buf);
    buf.position(7);
    EliasFano back = EliasFano.read(buf, RESOURCE, 4096);
    assertThat(buf.position()).isEqualTo(7 + size);
    assertThat(back.get(5)).isEqualTo(13);

    buf.put(7, (byte) 0xFF).position(7); // count becomes 255, far more than the bytes hold
    CorruptFileException e =
        catchThrowableOfType(CorruptFileException.class, () -> EliasFano.read(buf, RESOURCE, 4096));
    assertThat(e.offset()).isBetween(4096L, 4096L + size + 5);
    assertThat(buf.position()).isEqualTo(7);
  }

  // ---------------------------------------------------------------------------------------------

  private static void checkAgainst(long[] values, EliasFano ef, SplittableRandom rnd, String what) {
    int n = values.length;
    assertThat(ef.size()).as(what).isEqualTo(n);
    for (int i = 0; i < n; i++) {
      long got = ef.get(i);
      if (got != values[i]) {
        fail("%s: get(%d) = %d, expected %d", what, i, got, values[i]);
      }
    }
    long[] pair = new long[2];
    for (int i = 0; i + 1 < n; i++) {
      ef.getPair(i, pair);
      if (pair[0] != values[i] || pair[1] != values[i + 1]) {
        fail(
            "%s: getPair(%d) = %s, expected [%d, %d]",
            what, i, Arrays.toString(pair), values[i], values[i + 1]);
      }
    }
    checkFloor(values, ef, Long.MIN_VALUE, what);
    checkFloor(values, ef, -1, what);
    checkFloor(values, ef, 0, what);
    checkFloor(values, ef, Long.MAX_VALUE, what);
    for (long v : values) {
      checkFloor(values, ef, v, what);
      checkFloor(values, ef, v - 1, what);
      if (v != Long.MAX_VALUE) {
        checkFloor(values, ef, v + 1, what);
      }
    }
    long top = n == 0 ? 10 : values[n - 1];
    for (int t = 0; t < 200; t++) {
      checkFloor(values, ef, top == Long.MAX_VALUE ? rnd.nextLong() : rnd.nextLong(top + 2), what);
    }
  }

  private static void checkFloor(long[] values, EliasFano ef, long x, String what) {
    int expected = referenceFloor(values, x);
    int got = ef.floorIndex(x);
    if (got != expected) {
      fail("%s: floorIndex(%d) = %d, expected %d", what, x, got, expected);
    }
  }

  private static int referenceFloor(long[] values, long x) {
    int a = 0;
    int b = values.length;
    while (a < b) {
      int mid = (a + b) >>> 1;
      if (values[mid] <= x) {
        a = mid + 1;
      } else {
        b = mid;
      }
    }
    return a - 1;
  }

  private static EliasFano serializedRoundTrip(EliasFano ef, SplittableRandom rnd, String what)
      throws CorruptFileException {
    int size = ef.serializedBytes();
    int pre = rnd.nextInt(1, 20);
    int post = rnd.nextInt(0, 20);
    ByteBuffer buf =
        rnd.nextBoolean()
            ? ByteBuffer.allocate(pre + size + post)
            : ByteBuffer.allocateDirect(pre + size + post);
    buf.order(ByteOrder.LITTLE_ENDIAN);
    while (buf.hasRemaining()) {
      buf.put((byte) rnd.nextInt(256));
    }
    buf.position(pre);
    ef.serialize(buf);
    assertThat(buf.position()).as(what + " serialize advance").isEqualTo(pre + size);
    buf.position(pre);
    EliasFano back = EliasFano.read(buf, RESOURCE, 12345 + pre);
    assertThat(buf.position()).as(what + " read advance").isEqualTo(pre + size);
    assertThat(back.serializedBytes()).as(what).isEqualTo(size);
    byte[] first = new byte[size];
    buf.get(pre, first);
    assertThat(serialize(back)).as(what + " re-serialized").isEqualTo(first);
    return back;
  }

  /**
   * Reads possibly corrupt bytes. A successful read must yield an instance whose every method works
   * and whose values are consistent; a failed one must fail with CorruptFileException only.
   *
   * @return whether the read succeeded
   */
  private static boolean readAndExercise(SplittableRandom rnd, byte[] bytes) {
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    EliasFano ef;
    try {
      ef = EliasFano.read(buf, RESOURCE, 77);
    } catch (CorruptFileException e) {
      assertThat(e.offset()).isBetween(77L, 77L + bytes.length);
      return false;
    } catch (Throwable t) {
      throw new AssertionError(
          "read threw " + t + " for bytes " + Arrays.toString(Arrays.copyOf(bytes, 64)), t);
    }
    try {
      int n = ef.size();
      long prev = 0;
      for (int i = 0; i < n; i++) {
        long v = ef.get(i);
        assertThat(v).as("value %d", i).isGreaterThanOrEqualTo(prev);
        prev = v;
        int floor = ef.floorIndex(v);
        assertThat(floor).isGreaterThanOrEqualTo(i);
        assertThat(ef.get(floor)).isEqualTo(v);
        if (v > 0) {
          assertThat(ef.floorIndex(v - 1)).isLessThan(i);
        }
      }
      for (int t = 0; t < 20; t++) {
        ef.floorIndex(rnd.nextLong());
        ef.floorIndex(prev > Long.MAX_VALUE - 2 ? rnd.nextLong() : rnd.nextLong(prev + 2));
      }
      assertThat(ef.ramBytes()).isPositive();
      assertThat(buf.position()).isEqualTo(ef.serializedBytes());
      byte[] again = serialize(ef);
      assertThat(again).isEqualTo(Arrays.copyOf(bytes, again.length));
      assertThat(ef.toString()).contains("size=" + n);
      return true;
    } catch (Throwable t) {
      throw new AssertionError(
          "accepted bytes misbehave: " + t + " " + Arrays.toString(Arrays.copyOf(bytes, 64)), t);
    }
  }

  private static byte[] randomForm(SplittableRandom rnd, int n) {
    Distribution[] all = Distribution.values();
    long[] values = all[rnd.nextInt(all.length)].generate(rnd, n);
    return serialize(EliasFano.of(values, n));
  }

  private static byte[] serialize(EliasFano ef) {
    ByteBuffer buf = ByteBuffer.allocate(ef.serializedBytes()).order(ByteOrder.LITTLE_ENDIAN);
    ef.serialize(buf);
    assertThat(buf.hasRemaining()).isFalse();
    return buf.array();
  }

  private static ByteBuffer le(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The layout's formula, restated independently of the implementation. */
  private static int canonicalLowBits(long n, long universe) {
    if (n == 0 || universe / n == 0) {
      return 0;
    }
    return Math.min(62, 63 - Long.numberOfLeadingZeros(universe / n));
  }

  /**
   * Asserts that reading {@code bytes} at file offset {@code base} fails with a message containing
   * {@code messagePart} at offset {@code expectedOffset} (-1: anywhere inside the bytes).
   */
  private static void assertCorrupt(
      byte[] bytes, long base, long expectedOffset, String messagePart) {
    ByteBuffer buf = le(bytes);
    CorruptFileException e =
        catchThrowableOfType(CorruptFileException.class, () -> EliasFano.read(buf, RESOURCE, base));
    assertThat(e).as("expected CorruptFileException mentioning '%s'", messagePart).isNotNull();
    assertThat(e.getMessage()).contains(RESOURCE).contains(messagePart);
    if (expectedOffset >= 0) {
      assertThat(e.offset()).as(e.getMessage()).isEqualTo(expectedOffset);
    } else {
      assertThat(e.offset()).isBetween(base, base + bytes.length);
    }
    assertThat(buf.position()).isZero();
  }
}
