package dev.riffle.loader.plan;

/**
 * Counter-based randomness: every random choice of a plan is a hash of (seed, epoch, purpose,
 * index), so it can be recomputed anywhere, in any order, without a generator's state. The mixer is
 * SplitMix64's finaliser (Steele, Lea and Flood 2014), which passes BigCrush on a counter.
 */
public final class Mix {
  static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private Mix() {}

  /** SplitMix64's finaliser: a bijection of 64-bit values with full avalanche. */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * A key derived from {@code key} for sub-stream {@code a}; distinct {@code a} give unrelated
   * keys.
   */
  public static long key(long key, long a) {
    return mix(mix(key) + GOLDEN * (a + 1));
  }

  /** {@link #key(long, long)} applied twice. */
  public static long key(long key, long a, long b) {
    return key(key(key, a), b);
  }

  /**
   * A uniform value in [0, bound) from a hash, by the high half of a 64×64-bit product (Lemire),
   * which has a bias below bound/2^64.
   */
  public static long below(long hash, long bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be positive: " + bound);
    }
    // Unsigned multiply-high (Math.unsignedMultiplyHigh is Java 18+).
    long high = Math.multiplyHigh(hash, bound) + ((hash >> 63) & bound);
    return high;
  }

  /** A uniform double in [0, 1) from a hash. */
  public static double unit(long hash) {
    return (hash >>> 11) * 0x1.0p-53;
  }
}
