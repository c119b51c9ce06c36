package dev.riffle.format.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Integers of one width and signedness as 64-bit values (sign-extended if signed, zero-extended if
 * not, the way the format widens them for frame of reference and packed lists), in runs that steer
 * the writer to each integer encoding: the edges of the type and of every power of two, runs of one
 * value (FOR with 0 bits), narrow ranges around a large base (FOR sectors, including bases that
 * straddle the signed or unsigned wrap), monotone sequences (packed-list deltas), small values, a
 * few values repeated (compressed sectors) and random bits (FLAT sectors).
 */
public final class AdversarialInts {
  /** What the values of a run are. */
  public enum Regime {
    EDGES,
    EQUAL,
    NARROW,
    /** Narrow around a base that keeps the run from wrapping: FOR sectors for sure. */
    FRAME,
    MONOTONE,
    SMALL,
    PALETTE,
    RANDOM_BITS
  }

  private final SplittableRandom r;
  private final int bits;
  private final boolean signed;
  private final long[] edges;

  private Regime regime = Regime.RANDOM_BITS;
  private long base;
  private long step;
  private int spanBits;
  private long[] palette = new long[0];
  private long frame;

  public AdversarialInts(SplittableRandom r, int bits, boolean signed) {
    this.r = r;
    this.bits = bits;
    this.signed = signed;
    this.edges = edges(bits, signed);
  }

  /** The edges of a type: MIN, MAX, 0, ±1 and every power of two ± 1, of either signedness. */
  static long[] edges(int bits, boolean signed) {
    List<Long> e = new ArrayList<>();
    for (int k = 0; k < 64; k++) {
      long p = 1L << k;
      for (long v : new long[] {p - 1, p, p + 1, -p - 1, -p, -p + 1}) {
        e.add(v);
      }
    }
    e.add(Long.MAX_VALUE);
    e.add(Long.MIN_VALUE);
    long[] out = new long[e.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = fit(e.get(i), bits, signed);
    }
    return out;
  }

  /** {@code v} cut to the type's width and extended back to 64 bits. */
  public static long fit(long v, int bits, boolean signed) {
    if (bits == 64) {
      return v;
    }
    return signed ? v << (64 - bits) >> (64 - bits) : v & ((1L << bits) - 1);
  }

  public Regime regime() {
    return regime;
  }

  /** Starts a run of {@code regime}, with a random base, step, span or palette. */
  public void start(Regime regime) {
    this.regime = regime;
    base = r.nextBoolean() ? edge() : r.nextLong();
    // Narrow: fewer bits than the width, so that FOR beats FLAT even for int8.
    spanBits = r.nextInt(Math.max(1, Math.min(bits - 2, 20)));
    long[] steps = {0, 1, -1, 1 + r.nextInt(24), -(1 + r.nextInt(24)), r.nextLong() >> 40};
    step = steps[r.nextInt(steps.length)];
    // A quarter of the type's range in from its lower end (for unsigned 64-bit values, across
    // 2^63, where a signed comparison would wrap).
    frame =
        bits == 64
            ? (signed ? r.nextLong() >> 2 : (r.nextLong() >>> 2) + (3L << 61))
            : fit(
                (r.nextLong() >>> (64 - bits + 2))
                    + (signed ? -(1L << (bits - 3)) : 1L << (bits - 3)),
                bits,
                signed);
    palette = new long[1 + r.nextInt(6)];
    for (int i = 0; i < palette.length; i++) {
      palette[i] = r.nextBoolean() ? edge() : r.nextLong();
    }
  }

  /** The next value of the run. */
  public long next() {
    long v;
    switch (regime) {
      case EDGES:
        v = edge();
        break;
      case EQUAL:
        v = base;
        break;
      case NARROW:
        v = base + (r.nextLong() >>> (64 - spanBits - 1)) - (1L << spanBits) / 2;
        break;
      case FRAME:
        v = frame + r.nextInt(1 << Math.min(bits - 2, 12));
        break;
      case MONOTONE:
        v = base;
        base += step;
        break;
      case SMALL:
        v = r.nextInt(100) * (signed && r.nextBoolean() ? -1 : 1);
        break;
      case PALETTE:
        v = palette[r.nextInt(palette.length)];
        break;
      default:
        v = r.nextLong();
    }
    return fit(v, bits, signed);
  }

  private long edge() {
    return edges[r.nextInt(edges.length)];
  }
}
