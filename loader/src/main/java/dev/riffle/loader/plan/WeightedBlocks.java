package dev.riffle.loader.plan;

import dev.riffle.format.io.Numbers;

/**
 * Weighted block sampling, with replacement: an epoch is ⌈n/b⌉ independent draws of b rows. Each
 * draw picks one block of the epoch's blocking (as for {@link BlockShuffle}: random phase, and with
 * jitter each block its own length) with probability W_k/W, its total weight over all weight, and
 * then takes b rows from that block with replacement, row i with probability w_i/W_k. So at every
 * epoch index, independently across draws, row i appears with probability exactly w_i/W: over an
 * epoch of n indices, row i is expected n·w_i/W times, and the number of draws of block k is
 * Binomial(⌈n/b⌉, W_k/W). Rows of weight 0 never appear. A draw's rows come from one block, so the
 * reads stay block-local (a fetch reads about G·f/b blocks); the draws of each fetch window of G·f
 * indices are then permuted in memory as in {@link BlockShuffle}; π₂ is that of block shuffling
 * with the same b and f plus the chance that two draws of a window pick the same block ({@link
 * dev.riffle.loader.diversity.DiversityModel#pi2Weighted}).
 *
 * <p>Rows are sampled with replacement, so an epoch is not exactly-once: it is n samples, the same
 * number of batches as the other samplers. Draw k of epoch e is a hash of (seed, e, k), so the
 * epoch is a pure function of (seed, epoch, weights, parameters) like every other sampler, and
 * resumes and shards the same way. The weights are per view position (the view honours splits and
 * deletions); building an epoch costs O(n/b) time and memory (the block alias table), each index
 * O(log b).
 *
 * @see dev.riffle.loader.pipeline.SamplerColumns#weights
 */
public final class WeightedBlocks implements Sampler {
  private final int blockRows;
  private final int fetchBatches;
  private final double jitter;
  private final String column;
  // cumulative[p] = sum of the weights of view positions [0, p).
  private final double[] cumulative;

  /**
   * @param blockRows b, rows per block (and per draw)
   * @param fetchBatches f, global batches per fetch window (permuted together)
   * @param jitter relative spread of each block's length, in [0, 1)
   * @param column name of the weight column (part of {@link #describe()})
   * @param weights w_i ≥ 0 of each view position, finite, not all 0
   * @throws IllegalArgumentException naming the first bad weight and its view position
   */
  public WeightedBlocks(
      int blockRows, int fetchBatches, double jitter, String column, double[] weights) {
    Samplers.positive("block rows", blockRows);
    Samplers.positive("fetch factor", fetchBatches);
    Samplers.jitter(jitter);
    this.blockRows = blockRows;
    this.fetchBatches = fetchBatches;
    this.jitter = jitter;
    this.column = column;
    this.cumulative = new double[weights.length + 1];
    for (int p = 0; p < weights.length; p++) {
      double w = weights[p];
      if (!(w >= 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException(
            "weight column '"
                + column
                + "' has "
                + Numbers.text(w)
                + " at view position "
                + Numbers.count(p)
                + "; weights must be finite and non-negative");
      }
      cumulative[p + 1] = cumulative[p] + w;
    }
    if (weights.length > 0 && !(cumulative[weights.length] > 0)) {
      throw new IllegalArgumentException(
          "weight column '" + column + "' is 0 on all " + Numbers.count(weights.length) + " rows");
    }
  }

  public int blockRows() {
    return blockRows;
  }

  public String column() {
    return column;
  }

  /** Total weight W. */
  public double totalWeight() {
    return cumulative[cumulative.length - 1];
  }

  @Override
  public int fetchBatches() {
    return fetchBatches;
  }

  /**
   * S = Σ p_k², the probability that two independent draws of epoch {@code epoch} pick the same
   * block (p_k = W_k/W over that epoch's blocking), for {@link
   * dev.riffle.loader.diversity.DiversityModel#pi2Weighted}. O(n/b).
   */
  public double blockCollision(long seed, long epoch) {
    int n = cumulative.length - 1;
    Blocks blocks = Samplers.epochBlocks(n, blockRows, jitter, seed, epoch);
    double total = totalWeight();
    double s = 0;
    for (long k = 0; k < blocks.count(); k++) {
      double p = sum(blocks.positionIn(k, 0), blocks.length(k)) / total;
      s += p * p;
    }
    return s;
  }

  @Override
  public EpochOrder order(long rowCount, int globalBatchRows, long seed, long epoch) {
    Samplers.positive("global batch rows", globalBatchRows);
    int n = cumulative.length - 1;
    if (rowCount != n) {
      throw new IllegalArgumentException(
          "the weights cover "
              + Numbers.count(n)
              + " rows, the view has "
              + Numbers.count(rowCount));
    }
    Blocks blocks = Samplers.epochBlocks(n, blockRows, jitter, seed, epoch);
    int count = (int) blocks.count();
    double[] blockWeight = new double[count];
    for (int k = 0; k < count; k++) {
      blockWeight[k] = sum(blocks.positionIn(k, 0), blocks.length(k));
    }
    Alias alias = count == 0 ? null : new Alias(blockWeight);
    long window = (long) globalBatchRows * fetchBatches;
    long windowKey = Mix.key(seed, epoch, Samplers.PURPOSE_WINDOW);
    long drawKey = Mix.key(seed, epoch, Samplers.PURPOSE_DRAW);
    long rowKey = Mix.key(seed, epoch, Samplers.PURPOSE_WITHIN_BLOCK);
    return new EpochOrder() {
      @Override
      public long length() {
        return n;
      }

      @Override
      public long at(long index) {
        long x = Samplers.withinWindow(index, n, window, 0, windowKey);
        int k = alias.draw(Mix.key(drawKey, x / blockRows));
        long start = blocks.positionIn(k, 0);
        double u = Mix.unit(Mix.key(rowKey, x)) * blockWeight[k];
        return row(start, blocks.length(k), u);
      }

      @Override
      public long blockOf(long position) {
        return blocks.blockOf(position);
      }

      @Override
      public int blockRows() {
        return blockRows;
      }

      @Override
      public int blockSpread() {
        return (int) blocks.spread();
      }

      @Override
      public boolean exactlyOnce() {
        return false;
      }
    };
  }

  /** Weight of the {@code len} view positions from {@code start}, wrapping past the end. */
  private double sum(long start, long len) {
    int n = cumulative.length - 1;
    long end = start + len;
    if (end <= n) {
      return cumulative[(int) end] - cumulative[(int) start];
    }
    return cumulative[n] - cumulative[(int) start] + cumulative[(int) (end - n)];
  }

  /**
   * The position of the first row of the block at {@code start} (of {@code len} rows) whose running
   * weight passes {@code u}, by binary search; u is in [0, the block's weight).
   */
  private long row(long start, long len, double u) {
    long lo = 0;
    long hi = len - 1;
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (sum(start, mid + 1) > u) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    // Rounding can leave u at the block's weight: step back to a row that has weight.
    while (lo > 0 && weight(start, lo) == 0) {
      lo--;
    }
    int n = cumulative.length - 1;
    long p = start + lo;
    return p >= n ? p - n : p;
  }

  private double weight(long start, long o) {
    int n = cumulative.length - 1;
    long p = start + o;
    int q = (int) (p >= n ? p - n : p);
    return cumulative[q + 1] - cumulative[q];
  }

  @Override
  public String describe() {
    return "weighted(b="
        + blockRows
        + ",f="
        + fetchBatches
        + ",jitter="
        + jitter
        + ",weight="
        + column
        + ")";
  }
}
