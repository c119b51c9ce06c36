package dev.riffle.format.testing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.SplittableRandom;

/**
 * Float32 or float64 values of every kind users have, as raw bits, for tests that check that each
 * comes back with the exact same bits: decimals at scales 0 to 12 computed the ways programs
 * compute them (parsed from text, {@code n / 10^k}, {@code n · 10^-k}, Python's {@code round(x,
 * k)}, sums such as {@code 0.1 + 0.2}, float32 decimals widened to double), integers at the edges
 * of exact representation (2^24, 2^31, 2^53, 2^62, 2^63), signed zeros, NaNs with payloads (quiet
 * and signalling), infinities, subnormals and extremes, a few values repeated, and random bits.
 *
 * <p>Values come in runs: {@link #start} fixes a regime (and its scale, magnitude and form) that
 * holds until the next call, so that whole pages and sectors share a scale, as the columns of real
 * files do, and {@link #odd} gives the one value that breaks it.
 */
public final class AdversarialFloats {
  /** What the values of a run are. */
  public enum Regime {
    /** Decimals at one scale 0–12, of one magnitude, computed one way. */
    DECIMAL,
    /** Integer-valued floats, around one of the edges of exact representation. */
    INTEGER,
    /** Small non-negative integer-valued floats: counts. */
    COUNTS,
    /** The special values of {@link #edges}. */
    EDGES,
    /** A few distinct values (from any regime), repeated. */
    FEW_DISTINCT,
    /** A few distinct values that are no decimal at any scale the writer tries (NaN, −0.0 …). */
    FEW_SPECIAL,
    /** Random bit patterns (NaNs with random payloads included). */
    RANDOM_BITS,
    /** Each value from a regime of its own. */
    MIXED
  }

  private final SplittableRandom r;
  private final boolean single;
  private final long[] edges;

  private Regime regime = Regime.MIXED;
  private int scale;
  private int form;
  private long range;
  private long center;
  private long[] palette = new long[0];

  /**
   * @param single float32 values if true, else float64
   */
  public AdversarialFloats(SplittableRandom r, boolean single) {
    this.r = r;
    this.single = single;
    this.edges = single ? edges32() : edges64();
  }

  /** The regime of the current run. */
  public Regime regime() {
    return regime;
  }

  /** The scale of the current run's decimals. */
  public int scale() {
    return scale;
  }

  /** Starts a run of a random regime. */
  public void start() {
    Regime[] all = Regime.values();
    start(all[r.nextInt(all.length)], r.nextInt(13));
  }

  /**
   * Starts a run of {@code regime}; decimals of scale {@code scale} (0–12), of a random magnitude
   * and computed one random way.
   */
  public void start(Regime regime, int scale) {
    // Unscaled decimals of up to 9 or 17 digits: float32 keeps about 7, float64 about 16, so that
    // some runs are no decimals at their scale after all.
    start(regime, scale, 1 + r.nextInt(single ? 9 : 17), r.nextInt(6));
  }

  /**
   * Starts a run of decimals of scale {@code scale} with unscaled values of up to {@code digits}
   * digits, parsed from text or computed as {@code n / 10^k} or as Python's {@code round} does, the
   * forms that a writer restores exactly when the float holds that many digits.
   */
  public void startDecimals(int scale, int digits) {
    int[] exact = {0, 1, 3};
    start(Regime.DECIMAL, scale, digits, exact[r.nextInt(exact.length)]);
  }

  private void start(Regime regime, int scale, int digits, int form) {
    this.regime = regime;
    this.scale = scale;
    this.form = form;
    this.range = (long) Math.pow(10, digits);
    long[] centers = {0, 1L << 24, 1L << 31, 1L << 53, 1L << 62, Long.MAX_VALUE, 1000};
    this.center = centers[r.nextInt(centers.length)] * (r.nextBoolean() ? 1 : -1);
    if (regime == Regime.FEW_DISTINCT || regime == Regime.FEW_SPECIAL) {
      palette = new long[1 + r.nextInt(20)];
      for (int i = 0; i < palette.length; i++) {
        palette[i] =
            regime == Regime.FEW_SPECIAL
                ? special()
                : r.nextBoolean() ? decimal() : r.nextBoolean() ? randomBits() : edge();
      }
    }
  }

  /** The next value of the run, as raw bits (a float32's in the low 32 bits). */
  public long next() {
    switch (regime) {
      case DECIMAL:
        return decimal();
      case INTEGER:
        return integer();
      case COUNTS:
        return single ? bits((float) r.nextInt(1000)) : bits((double) r.nextInt(1000));
      case EDGES:
        return edge();
      case FEW_DISTINCT:
      case FEW_SPECIAL:
        return palette[r.nextInt(palette.length)];
      case RANDOM_BITS:
        return randomBits();
      default:
        switch (r.nextInt(5)) {
          case 0:
            return decimal();
          case 1:
            return integer();
          case 2:
            return edge();
          case 3:
            return randomBits();
          default:
            return special();
        }
    }
  }

  /** A value that breaks a run: a special value, random bits or a decimal of a finer scale. */
  public long odd() {
    switch (r.nextInt(3)) {
      case 0:
        return special();
      case 1:
        return randomBits();
      default:
        int saved = scale;
        scale = Math.min(12, scale + 1 + r.nextInt(4));
        long v = decimal();
        scale = saved;
        return v;
    }
  }

  /** A decimal {@code n / 10^scale} computed one of the ways programs compute them. */
  private long decimal() {
    long n = r.nextLong(-range, range + 1);
    // The text only where it is parsed: formatting every value would cost most of a test's time.
    String text = form == 0 || form >= 4 ? BigDecimal.valueOf(n, scale).toPlainString() : null;
    double p = Math.pow(10, scale); // exact for scale ≤ 22
    switch (form) {
      case 0: // parsed from text, as a CSV or JSON reader does: correctly rounded
        return single ? bits(Float.parseFloat(text)) : bits(Double.parseDouble(text));
      case 1: // divided, as Java's Math.round(x * 10^k) / 10^k does (float32: rounded twice)
        return single ? bits((float) (n / p)) : bits(n / p);
      case 2: // multiplied by an inexact 10^-k, in the value's own precision
        return single ? bits((float) n * (float) (1 / p)) : bits(n * (1 / p));
      case 3: // Python's round(x, k): the decimal nearest x's exact binary value, correctly rounded
        double x = (n + r.nextDouble() - 0.5) / p;
        double y = new BigDecimal(x).setScale(scale, RoundingMode.HALF_EVEN).doubleValue();
        return single ? bits((float) y) : bits(y);
      case 4: // the sum of two decimals (0.1 + 0.2), in the value's own precision
        long m = r.nextLong(-range, range + 1);
        String other = BigDecimal.valueOf(m, scale).toPlainString();
        return single
            ? bits(Float.parseFloat(text) + Float.parseFloat(other))
            : bits(Double.parseDouble(text) + Double.parseDouble(other));
      default: // float64: a float32 decimal widened; float32: a double decimal narrowed
        return single
            ? bits((float) Double.parseDouble(text))
            : bits((double) Float.parseFloat(text));
    }
  }

  /** An integer-valued float near the run's center, or small. */
  private long integer() {
    long v =
        r.nextInt(4) == 0
            ? r.nextLong(-range, range + 1)
            : center + r.nextLong(-8, 9) * (r.nextInt(4) == 0 ? r.nextLong(1, 1L << 20) : 1);
    if (r.nextInt(16) == 0) {
      // Beyond every long: 2^64, 1e30.
      double big = r.nextBoolean() ? 0x1p64 : 1e30;
      return single ? bits((float) big) : bits(big);
    }
    return single ? bits((float) v) : bits((double) v);
  }

  private long edge() {
    return edges[r.nextInt(edges.length)];
  }

  /** A value that is a decimal at no scale: a NaN, an infinity, −0.0 or a subnormal. */
  private long special() {
    switch (r.nextInt(4)) {
      case 0: // a NaN with a random payload, quiet or signalling, of either sign
        boolean negative = r.nextBoolean();
        if (single) {
          int payload = r.nextInt(8) == 0 ? 1 : r.nextInt(1, 1 << 23);
          return (0x7F800000L | payload) | (negative ? 0x80000000L : 0);
        }
        long payload = r.nextInt(8) == 0 ? 1 : r.nextLong(1, 1L << 52);
        return 0x7FF0000000000000L | payload | (negative ? Long.MIN_VALUE : 0);
      case 1:
        return single ? 0x80000000L : 0x8000000000000000L;
      case 2: // a subnormal
        return single
            ? (r.nextInt(1, 1 << 23) | (r.nextBoolean() ? 0x80000000 : 0)) & 0xFFFFFFFFL
            : r.nextLong(1, 1L << 52) | (r.nextBoolean() ? Long.MIN_VALUE : 0);
      default:
        return single
            ? (r.nextBoolean() ? 0x7F800000L : 0xFF800000L)
            : (r.nextBoolean() ? 0x7FF0000000000000L : 0xFFF0000000000000L);
    }
  }

  private long randomBits() {
    return single ? r.nextInt() & 0xFFFFFFFFL : r.nextLong();
  }

  private static long bits(float f) {
    return Float.floatToRawIntBits(f) & 0xFFFFFFFFL;
  }

  private static long bits(double d) {
    return Double.doubleToRawLongBits(d);
  }

  /** The float32 edges, as bits. */
  static long[] edges32() {
    float[] values = {
      0f,
      1f,
      -1f,
      0.1f,
      0.2f,
      0.1f + 0.2f,
      0.3f,
      1e-10f,
      1e10f,
      9.3e9f, // at scale 9 beyond every long
      123456.789f,
      0x1p24f,
      0x1p24f + 2,
      0x1p24f - 1,
      -0x1p24f,
      0x1p31f,
      -0x1p31f,
      0x1p53f,
      0x1p62f,
      -0x1p62f,
      0x1p63f,
      -0x1p63f,
      0x1p64f,
      Float.MIN_VALUE,
      -Float.MIN_VALUE,
      Float.MIN_NORMAL,
      Float.MAX_VALUE,
      -Float.MAX_VALUE,
      Math.nextDown(Float.MIN_NORMAL),
    };
    int[] raw = {
      0x80000000, // -0.0
      0x7FC00000, // the canonical NaN
      0x7FC00001, // a quiet NaN with a payload
      0x7F800001, // a signalling NaN
      0xFFC00000, // a negative NaN
      0xFFFFFFFF,
      0x7F800000, // +∞
      0xFF800000, // -∞
    };
    long[] e = new long[values.length + raw.length];
    for (int i = 0; i < values.length; i++) {
      e[i] = bits(values[i]);
    }
    for (int i = 0; i < raw.length; i++) {
      e[values.length + i] = raw[i] & 0xFFFFFFFFL;
    }
    return e;
  }

  /** The float64 edges, as bits. */
  static long[] edges64() {
    double[] values = {
      0.0,
      1.0,
      -1.0,
      0.1,
      0.2,
      0.1 + 0.2,
      0.3,
      1.1 * 1.1,
      1e-300,
      1e22,
      1e23,
      9.3e9, // at scale 9 beyond every long
      9.3e9 + 0.5,
      92233720368.54775807,
      9007199.254740993,
      0x1p53,
      0x1p53 - 1,
      0x1p53 + 2,
      -0x1p53,
      0x1p31,
      0x1p62,
      -0x1p62,
      0x1p63,
      -0x1p63,
      0x1p64,
      (double) 0.1f,
      (double) 16777217f,
      Double.MIN_VALUE,
      -Double.MIN_VALUE,
      Double.MIN_NORMAL,
      Math.nextDown(Double.MIN_NORMAL),
      Double.MAX_VALUE,
      -Double.MAX_VALUE,
    };
    long[] raw = {
      0x8000000000000000L, // -0.0
      0x7FF8000000000000L, // the canonical NaN
      0x7FF8000000000001L, // a quiet NaN with a payload
      0x7FF0000000000001L, // a signalling NaN
      0xFFF8000000000000L, // a negative NaN
      0xFFFFFFFFFFFFFFFFL,
      0x7FF0000000000000L, // +∞
      0xFFF0000000000000L, // -∞
    };
    long[] e = new long[values.length + raw.length];
    for (int i = 0; i < values.length; i++) {
      e[i] = bits(values[i]);
    }
    System.arraycopy(raw, 0, e, values.length, raw.length);
    return e;
  }
}
