package dev.riffle.loader.plan;

/**
 * One epoch's blocking of view positions 0..n-1 and the order of the blocks (the "block stream").
 * Blocks are contiguous runs of positions starting at a random phase, on a circle: block k holds
 * positions (phase + start(k) + o) mod n for o in [0, length(k)).
 *
 * <p>Without jitter every block has b rows, except one short block of the {@code n mod b} rows left
 * over, which always comes last in the stream; the full blocks come first, in the order of a keyed
 * permutation. Stream position x → block ⌊x/b⌋ is then a division, O(1), and fetch windows that are
 * a multiple of b stay aligned to blocks.
 *
 * <p>With jitter s ≥ 1, every block has its own length, uniform over b−s..b+s: the circle is cut
 * into pairs of 2b positions, and pair p is split at b + δ_p with δ_p a keyed draw from [−s, s].
 * Each block's start is therefore O(1) to compute (and {@link #blockOf} too), while the boundaries
 * no longer sit on a lattice, so rows that shared a block in one epoch mostly do not in the next,
 * whatever their distance. The up to 2b−1 positions after the last pair form one block of b and one
 * short block (or one block). All blocks are permuted; the stream's block starts are kept in a
 * table of one int (a long past 2^31 rows) per block, built once per epoch in O(n/b), and a stream
 * position finds its block by binary search.
 */
final class Blocks {
  private final long n;
  private final long b;
  private final long spread;
  private final long phase;
  private final long key;
  private final long lengthKey;
  // Without jitter: n / b full blocks, and the short block last.
  private final long fullBlocks;
  // With jitter: pairs, blocks, and the stream's block starts.
  private final long pairs;
  private final long count;
  private final int[] streamStartInt;
  private final long[] streamStartLong;

  /**
   * @param n rows in the view
   * @param b mean block length, at least 1
   * @param spread s, in [0, b): block lengths are uniform over b−s..b+s
   * @param phase first position of block 0 (taken mod n)
   * @param key the key of the block permutation
   * @param lengthKey the key of the per-block length draws
   */
  Blocks(long n, long b, long spread, long phase, long key, long lengthKey) {
    if (b < 1) {
      throw new IllegalArgumentException("block rows must be at least 1, not " + b);
    }
    if (spread < 0 || spread >= b) {
      throw new IllegalArgumentException("block spread must be in [0, " + b + "), not " + spread);
    }
    this.n = n;
    this.b = b;
    this.spread = spread;
    this.phase = n == 0 ? 0 : Math.floorMod(phase, n);
    this.key = key;
    this.lengthKey = lengthKey;
    this.fullBlocks = n / b;
    if (spread == 0) {
      this.pairs = 0;
      this.count = (n + b - 1) / b;
      this.streamStartInt = null;
      this.streamStartLong = null;
      return;
    }
    this.pairs = n / (2 * b);
    long rem = n - 2 * b * pairs;
    this.count = 2 * pairs + (rem == 0 ? 0 : rem <= b ? 1 : 2);
    if (count >= Integer.MAX_VALUE) {
      throw new IllegalArgumentException(count + " blocks in one epoch; use larger blocks");
    }
    boolean small = n < Integer.MAX_VALUE;
    int[] si = small ? new int[(int) count + 1] : null;
    long[] sl = small ? null : new long[(int) count + 1];
    long at = 0;
    for (long s = 0; s < count; s++) {
      at += length(Feistel.permute(s, count, key));
      if (small) {
        si[(int) s + 1] = (int) at;
      } else {
        sl[(int) s + 1] = at;
      }
    }
    this.streamStartInt = si;
    this.streamStartLong = sl;
  }

  /** Mean block length b. */
  long blockRows() {
    return b;
  }

  /** Half-width s of the block length distribution. */
  long spread() {
    return spread;
  }

  /** Blocks of this epoch. */
  long count() {
    return count;
  }

  /** Offset of block k (in row order) from the phase. */
  long start(long k) {
    if (spread == 0) {
      return k * b;
    }
    long p = k >> 1;
    if (p < pairs) {
      return 2 * b * p + ((k & 1) == 0 ? 0 : b + delta(p));
    }
    return 2 * b * pairs + ((k & 1) == 0 ? 0 : b);
  }

  /** Rows of block k (in row order). */
  long length(long k) {
    long end = k + 1 == count ? n : start(k + 1);
    return end - start(k);
  }

  /** The view position of block k's row o. */
  long positionIn(long k, long o) {
    long p = phase + start(k) + o;
    return p >= n ? p - n : p;
  }

  private long delta(long pair) {
    return Mix.below(Mix.key(lengthKey, pair), 2 * spread + 1) - spread;
  }

  /** The stream slot (block number in stream order) of stream position x. */
  long slotOf(long x) {
    if (spread == 0) {
      return x / b;
    }
    int lo = 0;
    int hi = (int) count - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (streamStart(mid) <= x) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Stream position of slot s's first row. */
  long streamStart(long s) {
    if (spread == 0) {
      return s * b;
    }
    return streamStartInt != null ? streamStartInt[(int) s] : streamStartLong[(int) s];
  }

  /** Rows of stream slot s. */
  long slotLength(long s) {
    return Math.min(n, streamStart(s + 1)) - streamStart(s);
  }

  /** The block (in row order) at stream slot s. */
  long blockAt(long s) {
    if (spread == 0) {
      return s < fullBlocks ? Feistel.permute(s, fullBlocks, key) : fullBlocks;
    }
    return Feistel.permute(s, count, key);
  }

  /** The view position at block-stream position {@code x} in [0, n). */
  long position(long x) {
    long slot = slotOf(x);
    return positionIn(blockAt(slot), x - streamStart(slot));
  }

  /** The block (in row order, not stream order) holding view position {@code p}. */
  long blockOf(long p) {
    long q = p - phase;
    if (q < 0) {
      q += n;
    }
    if (spread == 0) {
      return q / b;
    }
    long pair = q / (2 * b);
    if (pair < pairs) {
      return 2 * pair + (q - 2 * b * pair < b + delta(pair) ? 0 : 1);
    }
    return 2 * pairs + (q - 2 * b * pairs < b ? 0 : 1);
  }
}
