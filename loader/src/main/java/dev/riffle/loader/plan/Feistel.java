package dev.riffle.loader.plan;

/**
 * A keyed pseudo-random permutation of [0, size), evaluated one index at a time in O(1) expected
 * time with no memory: a balanced Feistel network on the smallest even number of bits that covers
 * {@code size}, with cycle walking to stay inside the range (Black and Rogaway 2002). The domain is
 * at most 4·size, so a walk takes fewer than 4 steps on average. This is what lets a plan compute
 * batch t of an epoch without computing batches 0..t-1.
 */
public final class Feistel {
  private static final int ROUNDS = 6;

  private Feistel() {}

  /** The image of {@code index} under the permutation of [0, size) keyed by {@code key}. */
  public static long permute(long index, long size, long key) {
    check(index, size);
    if (size <= 2) {
      return size == 2 ? index ^ (key & 1) : 0;
    }
    int half = halfBits(size);
    long x = index;
    do {
      x = encrypt(x, half, key);
    } while (x >= size);
    return x;
  }

  /** The inverse of {@link #permute}: the index whose image is {@code value}. */
  public static long invert(long value, long size, long key) {
    check(value, size);
    if (size <= 2) {
      return size == 2 ? value ^ (key & 1) : 0;
    }
    int half = halfBits(size);
    long x = value;
    do {
      x = decrypt(x, half, key);
    } while (x >= size);
    return x;
  }

  private static void check(long index, long size) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException("index " + index + " outside [0, " + size + ")");
    }
  }

  private static int halfBits(long size) {
    int bits = 64 - Long.numberOfLeadingZeros(size - 1);
    return (bits + 1) / 2;
  }

  private static long encrypt(long x, int half, long key) {
    long mask = (1L << half) - 1;
    long left = x >>> half;
    long right = x & mask;
    for (int r = 0; r < ROUNDS; r++) {
      long next = left ^ (round(right, key, r) & mask);
      left = right;
      right = next;
    }
    return (left << half) | right;
  }

  private static long decrypt(long x, int half, long key) {
    long mask = (1L << half) - 1;
    long left = x >>> half;
    long right = x & mask;
    for (int r = ROUNDS - 1; r >= 0; r--) {
      long prev = right ^ (round(left, key, r) & mask);
      right = left;
      left = prev;
    }
    return (left << half) | right;
  }

  private static long round(long half, long key, int r) {
    return Mix.mix(half + Mix.key(key, r));
  }
}
