package dev.riffle.format.encoding;

import dev.riffle.format.SectorLayout;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Float items as decimals (FORMAT.md §5.1, LISTS sectors with {@link
 * SectorLayout#FLAG_PACKED_ITEMS}, 1.4): item {@code t} is the integer {@code n_t = m + p_t}
 * divided by {@code 10^e}, where {@code m} and the scale {@code e} are the sector's and the {@code
 * p_t} are bit-packed. Floats written from fixed-decimal text ({@code 0.356}, three decimals:
 * {@code n = 356, e = 3}) and integer-valued floats ({@code e = 0}) take the bits their range needs
 * instead of 32 or 64, and decode with one unpack and one division, no inflate.
 *
 * <p>The writer accepts a scale only if every item restores to its exact bits, so the decoding rule
 * below is the definition: {@code e = 0} converts the long as Java's {@code (float)} / {@code
 * (double)} of a {@code long}; {@code e ≥ 1} divides it, as a double, by the double {@code 10^e}
 * (exact for {@code e ≤ 22}) and narrows the quotient to float for float32 items.
 */
public final class DecimalFloats {
  private DecimalFloats() {}

  /** Largest scale a reader accepts. */
  public static final int MAX_SCALE = 18;

  /** Largest scale the writer tries (float32 holds about 7 significant digits, float64 16). */
  static final int WRITER_MAX_SCALE = 9;

  /** Bytes of the item header: u8 scale, u8 item bits, i64 base. */
  public static final int HEADER_BYTES = 10;

  /** Most items a sector with packed items holds (items may take 0 bits: bounds the decode). */
  public static final int MAX_ITEMS = 65536;

  /** Beyond this magnitude a long no longer converts to a double exactly. */
  private static final double MAX_MAGNITUDE = 0x1p53;

  private static final double[] POW10 = new double[MAX_SCALE + 1];

  static {
    double p = 1;
    for (int e = 0; e <= MAX_SCALE; e++) {
      POW10[e] = p;
      p *= 10;
    }
  }

  /** Value returned by {@link #toDecimal} for a float that is no decimal at that scale. */
  static final long NONE = Long.MIN_VALUE;

  /**
   * The integer {@code n} with {@code n / 10^e} restoring {@code bits} (the raw bits of a float32
   * if {@code width} is 4, else of a float64) exactly, or {@link #NONE}. NaN, infinities and −0.0
   * never restore, so they are never decimals.
   */
  static long toDecimal(long bits, int width, int e) {
    double x = width == 4 ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
    double y = x * POW10[e];
    if (!(Math.abs(y) <= MAX_MAGNITUDE)) {
      return NONE;
    }
    long n = Math.round(y);
    return restoredBits(n, e, width) == bits ? n : NONE;
  }

  /** The raw bits of the float that {@code n} at scale {@code e} restores to. */
  static long restoredBits(long n, int e, int width) {
    if (width == 4) {
      float f = e == 0 ? (float) n : (float) (n / POW10[e]);
      return Float.floatToRawIntBits(f) & 0xFFFFFFFFL;
    }
    return Double.doubleToRawLongBits(e == 0 ? (double) n : n / POW10[e]);
  }

  /**
   * Writes {@code count} items restored from the packed values {@code p} (already unpacked, each
   * plus {@code base}) at scale {@code e} to {@code address}, {@code width} bytes each.
   */
  public static void restore(long[] p, int count, long base, int e, int width, long address) {
    if (width == 4) {
      if (e == 0) {
        for (int i = 0; i < count; i++) {
          MemoryUtil.putInt(address + 4L * i, Float.floatToRawIntBits((float) (base + p[i])));
        }
      } else {
        double d = POW10[e];
        for (int i = 0; i < count; i++) {
          MemoryUtil.putInt(address + 4L * i, Float.floatToRawIntBits((float) ((base + p[i]) / d)));
        }
      }
    } else {
      if (e == 0) {
        for (int i = 0; i < count; i++) {
          MemoryUtil.putLong(address + 8L * i, Double.doubleToRawLongBits((double) (base + p[i])));
        }
      } else {
        double d = POW10[e];
        for (int i = 0; i < count; i++) {
          MemoryUtil.putLong(address + 8L * i, Double.doubleToRawLongBits((base + p[i]) / d));
        }
      }
    }
  }

  /** The raw bits of the {@code width}-byte little-endian float at {@code data[at]}. */
  static long itemBits(byte[] data, int at, int width) {
    long bits = 0;
    for (int k = width - 1; k >= 0; k--) {
      bits = bits << 8 | (data[at + k] & 0xFF);
    }
    return bits;
  }
}
