package dev.riffle.loader.plan;

/**
 * One epoch's blocking of view positions 0..n-1 and the order of the blocks (the "block stream").
 * Blocks are {@code b} contiguous positions starting at a random phase, on a circle: block j holds
 * positions (phase + j·b + o) mod n for o in [0, b). The {@code n mod b} positions left over form
 * one short block that always comes last in the stream; the full blocks come first, in the order of
 * a keyed permutation. Keeping every block before the last at exactly b rows is what makes stream
 * position x → block ⌊x/b⌋ a division, i.e. O(1), and keeps fetch windows that are a multiple of b
 * aligned to blocks. The phase moves every block boundary each epoch, so rows that shared a block
 * last epoch mostly do not now.
 */
final class Blocks {
  private final long n;
  private final long b;
  private final long phase;
  private final long fullBlocks;
  private final long key;

  /**
   * @param n rows in the view
   * @param b block length, at least 1
   * @param phase first position of block 0, in [0, n) (taken mod n)
   * @param key the key of the block permutation
   */
  Blocks(long n, long b, long phase, long key) {
    if (b < 1) {
      throw new IllegalArgumentException("block rows must be at least 1, not " + b);
    }
    this.n = n;
    this.b = b;
    this.phase = n == 0 ? 0 : Math.floorMod(phase, n);
    this.fullBlocks = n / b;
    this.key = key;
  }

  long blockRows() {
    return b;
  }

  /** The view position at block-stream position {@code x} in [0, n). */
  long position(long x) {
    long slot = x / b;
    long block = slot < fullBlocks ? Feistel.permute(slot, fullBlocks, key) : fullBlocks;
    long offset = x - slot * b;
    long p = phase + block * b + offset;
    return p >= n ? p - n : p;
  }

  /** The block (in row order, not stream order) holding view position {@code p}. */
  long blockOf(long p) {
    long q = p - phase;
    if (q < 0) {
      q += n;
    }
    return q / b;
  }
}
