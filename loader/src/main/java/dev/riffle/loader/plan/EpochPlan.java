package dev.riffle.loader.plan;

/**
 * An epoch cut into global batches: batch t is epoch indices [t·G, (t+1)·G) of the sampler's {@link
 * EpochOrder}, and rank r of W takes the r-th of W equal slices of it. The batch sequence therefore
 * depends only on (sampler, rows, G, seed, epoch) — not on the world size — and every rank gets the
 * same number of batches of G/W rows. A pure function: any batch can be computed at any time, in
 * O(G) and without the batches before it.
 */
public final class EpochPlan {
  private final EpochOrder order;
  private final long rows;
  private final int globalBatchRows;
  private final Tail tail;
  private final long batchCount;
  private final long epoch;

  private EpochPlan(EpochOrder order, int globalBatchRows, Tail tail, long epoch) {
    this.order = order;
    this.rows = order.length();
    this.globalBatchRows = globalBatchRows;
    this.tail = tail;
    this.epoch = epoch;
    this.batchCount =
        tail == Tail.DROP ? rows / globalBatchRows : (rows + globalBatchRows - 1) / globalBatchRows;
  }

  /**
   * The plan of one epoch.
   *
   * @param rowCount rows of the view (positions 0..rowCount-1)
   * @param globalBatchRows G, rows of one global batch
   */
  public static EpochPlan create(
      Sampler sampler, long rowCount, int globalBatchRows, long seed, long epoch, Tail tail) {
    if (rowCount < 0) {
      throw new IllegalArgumentException("negative row count " + rowCount);
    }
    Samplers.positive("global batch rows", globalBatchRows);
    if (epoch < 0) {
      throw new IllegalArgumentException("negative epoch " + epoch);
    }
    return new EpochPlan(
        sampler.order(rowCount, globalBatchRows, seed, epoch), globalBatchRows, tail, epoch);
  }

  public long epoch() {
    return epoch;
  }

  /** Rows of the view the plan is over. */
  public long rowCount() {
    return rows;
  }

  public int globalBatchRows() {
    return globalBatchRows;
  }

  public Tail tail() {
    return tail;
  }

  /** Global batches in the epoch (the same for every rank). */
  public long batchCount() {
    return batchCount;
  }

  /** Rows repeated to fill the last batch (PAD), else 0. */
  public long paddedRows() {
    return tail == Tail.PAD ? batchCount * globalBatchRows - rows : 0;
  }

  /** Rows left out of this epoch (DROP), else 0. */
  public long droppedRows() {
    return tail == Tail.DROP ? rows - batchCount * globalBatchRows : 0;
  }

  /** The order this plan cuts (for block ids in metrics). */
  public EpochOrder order() {
    return order;
  }

  /** Whether epoch index {@code index} is padding (a repeat of an earlier row). */
  public boolean isPadding(long index) {
    return index >= rows;
  }

  /** The view position at epoch index {@code index}; padding wraps to the start of the order. */
  public long position(long index) {
    if (index < 0 || index >= batchCount * globalBatchRows) {
      throw new IndexOutOfBoundsException(
          "epoch index " + index + " outside [0, " + batchCount * globalBatchRows + ")");
    }
    return order.at(index < rows ? index : (index - rows) % rows);
  }

  /** Rows of one rank's slice of a batch, G/W. */
  public int rankBatchRows(int world) {
    checkWorld(world);
    return globalBatchRows / world;
  }

  /** The view positions of global batch {@code t}. */
  public long[] batch(long t) {
    return slice(t, 0, 1);
  }

  /** The view positions of rank {@code rank}'s slice of global batch {@code t}. */
  public long[] slice(long t, int rank, int world) {
    long[] out = new long[rankBatchRows(world)];
    slice(t, rank, world, out);
    return out;
  }

  /** Fills {@code out} (of length G/W) with rank {@code rank}'s slice of global batch t. */
  public void slice(long t, int rank, int world, long[] out) {
    int m = rankBatchRows(world);
    if (rank < 0 || rank >= world) {
      throw new IllegalArgumentException("rank " + rank + " outside [0, " + world + ")");
    }
    if (t < 0 || t >= batchCount) {
      throw new IndexOutOfBoundsException("batch " + t + " outside [0, " + batchCount + ")");
    }
    if (out.length != m) {
      throw new IllegalArgumentException("out has " + out.length + " slots, a slice has " + m);
    }
    long start = t * globalBatchRows + (long) rank * m;
    for (int i = 0; i < m; i++) {
      out[i] = position(start + i);
    }
  }

  /** Epoch index of the first row of rank {@code rank}'s slice of batch t. */
  public long sliceStart(long t, int rank, int world) {
    return t * globalBatchRows + (long) rank * rankBatchRows(world);
  }

  /** Rows of the view (not padding) that rank {@code rank} of W sees over the whole epoch. */
  public long rowsOfRank(int rank, int world) {
    int m = rankBatchRows(world);
    long total = 0;
    for (long t = 0; t < batchCount; t++) {
      long start = sliceStart(t, rank, world);
      total += Math.max(0, Math.min(m, rows - start));
    }
    return total;
  }

  private void checkWorld(int world) {
    if (world < 1 || globalBatchRows % world != 0) {
      throw new IllegalArgumentException(
          "world size "
              + world
              + " does not divide the global batch of "
              + globalBatchRows
              + " rows; choose a divisor so that every rank gets an equal slice");
    }
  }
}
