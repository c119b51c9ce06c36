package dev.riffle.loader.diversity;

/**
 * The exact diversity model of block shuffling with disjoint fetch windows (research brief §3): a
 * batch of m rows is a uniform m-subset of a window of F = m·f rows made of K = F/b blocks of b
 * rows.
 */
public final class DiversityModel {
  private DiversityModel() {}

  /**
   * The most rows a window or pool that a target asks for may have (2^50): no memory holds more,
   * and below it the searches stay short and their products within a long.
   */
  public static final long MAX_WINDOW_ROWS = 1L << 50;

  /**
   * π₂ = (b−1)/(m·f−1): the probability that two rows of a batch share a block. Given one row,
   * another is uniform over the other F−1 rows of the window, b−1 of which share its block.
   */
  public static double pi2(int blockRows, int batchRows, long fetchBatches) {
    long window = (long) batchRows * fetchBatches;
    if (window <= 1) {
      return 0;
    }
    return Math.min(1.0, (blockRows - 1.0) / (window - 1.0));
  }

  /**
   * π₂ with jittered blocks, lengths L uniform over b−s..b+s ({@link
   * dev.riffle.loader.plan.BlockShuffle} with jitter). A row's block is length-biased, so the pairs
   * inside blocks are (F/b)·(E[L²] − b) per window of F = m·f rows instead of F·(b − 1); and since
   * boundaries no longer align with windows, the block under each window edge (again length-biased,
   * cut at a uniform offset a) loses the 2a(L−a) ordered pairs across the edge, on average
   * E[L(L²−1)]/(3b) = (E[L³] − b)/(3b). With s = 0 this is {@link #pi2(int, int, long)}.
   */
  public static double pi2(int blockRows, int blockSpread, int batchRows, long fetchBatches) {
    if (blockSpread == 0) {
      return pi2(blockRows, batchRows, fetchBatches);
    }
    double window = (double) batchRows * fetchBatches;
    if (window <= 1) {
      return 0;
    }
    double b = blockRows;
    double e2 = lengthMoment(blockRows, blockSpread, 2);
    double e3 = lengthMoment(blockRows, blockSpread, 3);
    double pairs = window * (e2 / b - 1) - (e3 - b) / (3 * b);
    return Math.min(1.0, Math.max(0, pairs / (window * (window - 1))));
  }

  /**
   * π₂ of a whole epoch of {@code epochRows} rows in {@code epochBatches} batches. Windows of F =
   * m·f rows take the epoch's rows in order, so an epoch that is not a multiple of F ends in a
   * window of r = epochRows mod F rows whose batches share blocks more often (about (b−1)/(r−1));
   * batches are weighted equally, as {@link BatchDiversity#pi2()} weights batches of m rows. For a
   * 20,000-row epoch with b = 16, f = 256, m = 64 this is 0.00150 against 0.00092 for full windows.
   */
  public static double pi2Epoch(
      int blockRows,
      int blockSpread,
      int batchRows,
      long fetchBatches,
      long epochRows,
      long epochBatches) {
    double full = pi2(blockRows, blockSpread, batchRows, fetchBatches);
    long window = (long) batchRows * fetchBatches;
    long fullBatches = Math.min(epochBatches, epochRows / window * fetchBatches);
    long tailBatches = epochBatches - fullBatches;
    long tailRows = epochRows % window;
    if (tailBatches <= 0 || tailRows == 0) {
      return full;
    }
    double tail = pi2(blockRows, blockSpread, 1, tailRows);
    return (fullBatches * full + tailBatches * tail) / epochBatches;
  }

  /** E[L^k] for L uniform over the integers b−s..b+s. */
  static double lengthMoment(int b, int s, int k) {
    double sum = 0;
    for (int l = b - s; l <= b + s; l++) {
      sum += Math.pow(l, k);
    }
    return sum / (2 * s + 1);
  }

  /** π₂ of the rolling pool with jittered blocks: (E[L²]/b − 1)/(2(R−1)). */
  public static double pi2Pool(int blockRows, int blockSpread, long poolRows) {
    if (poolRows <= 1) {
      return 0;
    }
    double e2 = lengthMoment(blockRows, blockSpread, 2);
    return Math.min(1.0, (e2 / blockRows - 1) / (2.0 * (poolRows - 1)));
  }

  /**
   * π₂ of the staggered rolling pool of R rows ({@link dev.riffle.loader.plan.RollingPool}): half
   * the pairs come from the same first-stage window, so (b−1)/(2(R−1)).
   */
  public static double pi2Pool(int blockRows, long poolRows) {
    return poolRows <= 1 ? 0 : Math.min(1.0, (blockRows - 1.0) / (2.0 * (poolRows - 1)));
  }

  /**
   * π₂ of weighted block sampling ({@link dev.riffle.loader.plan.WeightedBlocks}): a window of F =
   * m·f indices holds F/b draws of b rows, each draw from block k with probability p_k,
   * independently, and a batch is a uniform m-subset of its window. Another row of the batch is
   * from the same draw with probability (b−1)/(F−1), else from another draw, which picked the same
   * block with probability S = Σ p_k²: π₂ = ((b−1) + (F−b)·S)/(F−1). With equal block weights S is
   * about 1/K and the second term adds about F/n.
   *
   * @param collision S, from {@link dev.riffle.loader.plan.WeightedBlocks#blockCollision}
   */
  public static double pi2Weighted(
      int blockRows, int batchRows, long fetchBatches, double collision) {
    double window = (double) batchRows * fetchBatches;
    if (window <= 1) {
      return 0;
    }
    double b = Math.min(blockRows, window);
    return Math.min(1.0, ((b - 1) + (window - b) * collision) / (window - 1));
  }

  /** m_eff/m = 1/(1 + (m−1)·π₂): the design effect for a quantity constant within blocks (ρ=1). */
  public static double meffOverM(int batchRows, double pi2) {
    return 1.0 / (1.0 + (batchRows - 1) * pi2);
  }

  /**
   * E[D], the expected number of distinct blocks in a batch: K·(1 − q) with q = C(F−b, m)/C(F, m) =
   * ∏_{i<b} (F−m−i)/(F−i), the probability that the m-subset misses a given block.
   */
  public static double expectedDistinctBlocks(int blockRows, int batchRows, long fetchBatches) {
    long window = (long) batchRows * fetchBatches;
    double blocks = (double) window / blockRows;
    double q = 1;
    for (int i = 0; i < blockRows && q > 0; i++) {
      double num = window - batchRows - i;
      q = num <= 0 ? 0 : q * num / (window - i);
    }
    return Math.min(batchRows, blocks * (1 - q));
  }

  /**
   * The smallest fetch factor f with (b−1)/(m·f−1) ≤ ε: f ≥ ((b−1)/ε + 1)/m (brief §8.1). For b = 1
   * every f works. -1 if the window would hold more than {@link #MAX_WINDOW_ROWS}.
   */
  public static long fetchFactorForPi2(int blockRows, int batchRows, double epsilon) {
    if (blockRows <= 1) {
      return 1;
    }
    double window = (blockRows - 1) / epsilon + 1;
    if (!(window <= MAX_WINDOW_ROWS)) {
      return -1;
    }
    long f = (long) Math.ceil(window / batchRows);
    // Guard against rounding just below the bound.
    while (pi2(blockRows, batchRows, f) > epsilon) {
      f++;
    }
    while (f > 1 && pi2(blockRows, batchRows, f - 1) <= epsilon) {
      f--;
    }
    return Math.max(1, f);
  }

  /** The π₂ bound equivalent to m_eff/m ≥ γ: π₂ ≤ (1/γ − 1)/(m − 1). */
  public static double pi2ForMeff(int batchRows, double gamma) {
    return batchRows <= 1 ? 1 : (1 / gamma - 1) / (batchRows - 1);
  }

  /**
   * The smallest f with E[D] ≥ d, or -1 if no f reaches it (d > m or d > what K can give) within
   * windows of {@link #MAX_WINDOW_ROWS}.
   */
  public static long fetchFactorForDistinct(int blockRows, int batchRows, double d) {
    if (d > batchRows) {
      return -1;
    }
    long hi = 1;
    while (expectedDistinctBlocks(blockRows, batchRows, hi) < d) {
      if (hi > MAX_WINDOW_ROWS / batchRows) {
        return -1;
      }
      hi *= 2;
    }
    long lo = hi / 2 + 1;
    if (hi == 1) {
      return 1;
    }
    // E[D] grows with f: binary search in (hi/2, hi].
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (expectedDistinctBlocks(blockRows, batchRows, mid) >= d) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return hi;
  }

  /** The smallest pool R with (b−1)/(2(R−1)) ≤ ε; -1 if it is over {@link #MAX_WINDOW_ROWS}. */
  public static long poolRowsForPi2(int blockRows, double epsilon) {
    if (blockRows <= 1) {
      return 2;
    }
    double rows = Math.ceil((blockRows - 1) / (2 * epsilon) + 1);
    return rows <= MAX_WINDOW_ROWS ? Math.max(2, (long) rows) : -1;
  }
}
