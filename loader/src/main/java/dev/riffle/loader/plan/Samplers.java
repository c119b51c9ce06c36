package dev.riffle.loader.plan;

import dev.riffle.format.io.Numbers;

/** What the samplers share: parameter checks, purposes of random streams, per-epoch blocking. */
final class Samplers {
  // Purposes: each random choice of an epoch draws from its own keyed stream.
  static final long PURPOSE_ROWS = 1;
  static final long PURPOSE_BLOCKS = 2;
  static final long PURPOSE_PHASE = 3;
  static final long PURPOSE_LENGTH = 4;
  static final long PURPOSE_WINDOW = 5;
  static final long PURPOSE_WITHIN_BLOCK = 6;
  static final long PURPOSE_STAGGER = 7;
  static final long PURPOSE_DRAW = 8;
  static final long PURPOSE_CLASS = 9;

  private Samplers() {}

  static void positive(String what, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(what + " must be at least 1, not " + value);
    }
  }

  static void jitter(double jitter) {
    if (!(jitter >= 0 && jitter < 1)) {
      throw new IllegalArgumentException(
          "block jitter must be in [0, 1), not " + Numbers.text(jitter));
    }
  }

  /** Half-width of the block length distribution: ⌊b·jitter⌋. */
  static long spread(int b, double jitter) {
    return (long) Math.floor(b * jitter);
  }

  /**
   * This epoch's blocking: a uniform phase, per-block lengths uniform over b ± ⌊b·jitter⌋ (each
   * block its own draw), and a keyed block order.
   */
  static Blocks epochBlocks(long n, int b, double jitter, long seed, long epoch) {
    long phase = n == 0 ? 0 : Mix.below(Mix.key(seed, epoch, PURPOSE_PHASE), n);
    return new Blocks(
        n,
        b,
        spread(b, jitter),
        phase,
        Mix.key(seed, epoch, PURPOSE_BLOCKS),
        Mix.key(seed, epoch, PURPOSE_LENGTH));
  }

  /**
   * Shuffles index {@code i} of [0, length) within its window: windows are [0, offset) and then
   * consecutive runs of {@code size} from {@code offset}, the last one cut at {@code length}. Each
   * window gets its own keyed permutation.
   */
  static long withinWindow(long i, long length, long size, long offset, long key) {
    long start;
    long end;
    long id;
    if (i < offset) {
      start = 0;
      end = Math.min(offset, length);
      id = -1;
    } else {
      id = (i - offset) / size;
      start = offset + id * size;
      end = Math.min(start + size, length);
    }
    return start + Feistel.permute(i - start, end - start, Mix.key(key, id));
  }
}
