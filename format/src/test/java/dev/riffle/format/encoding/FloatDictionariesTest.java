package dev.riffle.format.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Form DICTIONARY of packed float lists (FORMAT.md §5.3) in isolation: the writer's choice between
 * it, INTEGERS and PLAIN; exact bits back (NaN payloads, −0.0 beside 0.0) for every index width, in
 * heap and direct buffers; and each damaged field reported at its byte.
 */
@ExtendWith(SeedExtension.class)
class FloatDictionariesTest {

  /** The packed form (count, form byte, body) of the items' bits. */
  private static ByteSink pack(long[] bits, int width) {
    ByteBuffer plain = ByteBuffer.allocate(bits.length * width).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < bits.length; i++) {
      if (width == 4) {
        plain.putInt(4 * i, (int) bits[i]);
      } else {
        plain.putLong(8 * i, bits[i]);
      }
    }
    ByteSink out = new ByteSink();
    PackedFloats.pack(plain, 0, bits.length, width, out);
    return out;
  }

  private static int form(ByteSink packed) throws CorruptFileException {
    RecordInput in = input(packed, false, 0);
    in.varint(Integer.MAX_VALUE);
    return in.u8();
  }

  private static RecordInput input(ByteSink packed, boolean direct, int slack) {
    ByteBuffer buf =
        (direct
                ? ByteBuffer.allocateDirect(packed.length() + slack)
                : ByteBuffer.allocate(packed.length() + slack))
            .order(ByteOrder.LITTLE_ENDIAN);
    buf.put(packed.array(), 0, packed.length()).clear();
    return new RecordInput("t.riffle").reset(buf, 0, packed.length(), 1000).packed(true);
  }

  private static void decode(RecordInput in, int width, BaseFixedWidthVector v)
      throws CorruptFileException {
    int n = (int) in.varint(Integer.MAX_VALUE);
    PackedFloats.decode(in, n, width, v, 0);
    v.setValueCount(n);
    assertThat(in.remaining()).as("the packed list is consumed exactly").isZero();
  }

  private static long bitsOf(BaseFixedWidthVector v, int i, int width) {
    return width == 4
        ? Float.floatToRawIntBits(((Float4Vector) v).get(i)) & 0xFFFFFFFFL
        : Double.doubleToRawLongBits(((Float8Vector) v).get(i));
  }

  @Test
  void fewDistinctValuesRoundTripBitForBit(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    try (BufferAllocator a = new RootAllocator()) {
      for (int round = 0; round < 300; round++) {
        int width = r.nextBoolean() ? 4 : 8;
        int n = 1 + r.nextInt(r.nextInt(8) == 0 ? 5000 : 400);
        // d distinct values drawn at random (d = 1 .. 2^bits): every index width 0..12 occurs.
        int d = 1 + r.nextInt(1 << r.nextInt(13));
        long[] values = new long[d];
        for (int j = 0; j < d; j++) {
          double x = Math.log1p(r.nextInt(200) * 1.7);
          values[j] =
              switch (r.nextInt(12)) {
                case 0 -> width == 4 ? 0x7FC00001L + j : 0x7FF8000000000001L + j; // NaNs
                case 1 -> width == 4 ? 0x80000000L : Long.MIN_VALUE; // -0.0
                default ->
                    width == 4
                        ? Float.floatToRawIntBits((float) (x + 0.001 * j)) & 0xFFFFFFFFL
                        : Double.doubleToRawLongBits(x + 0.001 * j);
              };
        }
        long[] bits = new long[n];
        for (int i = 0; i < n; i++) {
          bits[i] = values[r.nextInt(d)];
        }
        ByteSink packed = pack(bits, width);
        String what = "round " + round + ", width " + width + ", n " + n + ", d " + d;
        boolean integers = true;
        for (long b : bits) {
          integers &=
              PackedFloats.isInteger(
                  width == 4 ? Float.intBitsToFloat((int) b) : Double.longBitsToDouble(b));
        }
        if (integers) {
          assertThat(form(packed)).as(what + ": all integers").isEqualTo(1);
        } else {
          assertThat(form(packed)).as(what).isIn(0, 2);
        }
        if (!integers && d <= n / 8 && d < 1000) {
          assertThat(form(packed))
              .as(what + ": few distinct values take form DICTIONARY")
              .isEqualTo(2);
        }
        for (boolean direct : new boolean[] {false, true}) {
          for (int slack : new int[] {0, 9}) {
            try (BaseFixedWidthVector v =
                width == 4 ? new Float4Vector("f", a) : new Float8Vector("f", a)) {
              decode(input(packed, direct, slack), width, v);
              for (int i = 0; i < n; i++) {
                assertThat(bitsOf(v, i, width))
                    .as("%s, direct %s, slack %d, item %d", what, direct, slack, i)
                    .isEqualTo(bits[i]);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void theWriterPrefersIntegersThenTheShorterOfDictionaryAndPlain() throws Exception {
    // Integers keep form INTEGERS, however few distinct values they have.
    assertThat(form(pack(floats(1, 2, 1, 2, 1, 2, 1, 2), 4))).isEqualTo(1);
    // Distinct values: a dictionary would be longer than the plain items.
    assertThat(form(pack(floats(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5), 4))).isEqualTo(0);
    // 3 distinct values in 16 items: 1 + 12 + 1 + 4 bytes against 64.
    long[] few = floats(0.5, 0.25, 0.5, 0.5, 0.125, 0.5, 0.25, 0.5);
    long[] sixteen = new long[16];
    for (int i = 0; i < 16; i++) {
      sixteen[i] = few[i % 8];
    }
    ByteSink packed = pack(sixteen, 4);
    assertThat(form(packed)).isEqualTo(2);
    assertThat(packed.length()).isEqualTo(1 + 1 + 1 + 12 + 1 + 4);
  }

  @Test
  void moreThan65536DistinctValuesStayPlain() throws Exception {
    // 300,000 items of 70,000 distinct values: 17-bit indices would still be shorter than the
    // plain items, but a dictionary holds at most 2^16 entries.
    long[] bits = new long[300_000];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Float.floatToRawIntBits(0.5f + (i % 70_000)) & 0xFFFFFFFFL;
    }
    assertThat(form(pack(bits, 4))).isEqualTo(0);
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Float.floatToRawIntBits(0.5f + (i % 65_536)) & 0xFFFFFFFFL;
    }
    assertThat(form(pack(bits, 4))).isEqualTo(2);
  }

  private static long[] floats(double... xs) {
    long[] b = new long[xs.length];
    for (int i = 0; i < xs.length; i++) {
      b[i] = Float.floatToRawIntBits((float) xs[i]) & 0xFFFFFFFFL;
    }
    return b;
  }

  /**
   * A list of 4 float32 items in form DICTIONARY, by hand: count 4, form 2, {@code d} entries
   * (1.0f, 2.0f, 3.0f, ...), width {@code w}, then the index bytes.
   */
  private static ByteSink handMade(int d, int w, int... codeBytes) {
    ByteSink s = new ByteSink();
    s.putVarint(4);
    s.put((byte) 2);
    s.putVarint(d);
    for (int j = 0; j < d; j++) {
      int bits = Float.floatToRawIntBits(1f + j);
      for (int k = 0; k < 4; k++) {
        s.put((byte) (bits >>> (8 * k)));
      }
    }
    s.put((byte) w);
    for (int c : codeBytes) {
      s.put((byte) c);
    }
    return s;
  }

  @Test
  void damagedFieldsAreCorruptionAtTheirByte() throws Exception {
    try (BufferAllocator a = new RootAllocator();
        Float4Vector v = new Float4Vector("f", a)) {
      // Indices 0, 1, 2, 1 (2 bits each: 0b01_10_01_00): 1, 2, 3, 2.
      decode(input(handMade(3, 2, 0x64), false, 0), 4, v);
      assertThat(v.get(0)).isEqualTo(1f);
      assertThat(v.get(2)).isEqualTo(3f);
      assertThat(v.get(3)).isEqualTo(2f);
      // Item 3's index is 3, past the 3 entries: reported at the byte holding it (offset 1000 +
      // count, form, d, 12 entry bytes, width).
      assertThatThrownBy(() -> decode(input(handMade(3, 2, 0xE4), false, 0), 4, v))
          .isInstanceOf(CorruptFileException.class)
          .hasMessage(
              "t.riffle at offset 1016: packed float dictionary index 3 of item 3 is not below its"
                  + " 3 entries");
      assertThatThrownBy(() -> decode(input(handMade(0, 0), true, 0), 4, v))
          .isInstanceOf(CorruptFileException.class)
          .hasMessage(
              "t.riffle at offset 1002: packed float dictionary of 0 entries for 4 items (1 to 4"
                  + " allowed)");
      assertThatThrownBy(() -> decode(input(handMade(5, 3, 0, 0), false, 0), 4, v))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageStartingWith("t.riffle at offset 1002: packed float dictionary of 5 entries");
      assertThatThrownBy(
              () -> decode(input(handMade(2, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0), false, 0), 4, v))
          .isInstanceOf(CorruptFileException.class)
          .hasMessage("t.riffle at offset 1011: packed float dictionary index width 17 exceeds 16");
      // Too few index bytes: the record ends first.
      assertThatThrownBy(() -> decode(input(handMade(3, 8, 0, 1), false, 0), 4, v))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining("record needs 4 bytes but only 2 remain");
    }
  }
}
