package dev.riffle.loader.plan;

import java.util.Arrays;

/**
 * Class-balanced block sampling: an epoch of n indices is ⌈n/b⌉ draws of b rows, and draw d takes
 * one block of class c = d mod C (C the classes present). Each class's rows, in view order, are cut
 * into blocks of b (a fresh random phase per class and epoch, on a circle, so the last block wraps
 * around to the first rows); class c's draws walk its blocks in a keyed random order, and start a
 * new random order when they run out. Every C consecutive draws therefore hold exactly b rows of
 * each class: a fetch window of F = G·f indices holds F/C rows of each class (exactly, when C·b
 * divides F), each batch is a uniform G-subset of its window, so its class counts are
 * hypergeometric with mean G/C and variance G·(1/C)(1−1/C)(F−G)/(F−1); and an epoch's class
 * frequencies are 1/C each, within b/n. Small classes are repeated (every row about n/(C·n_c) times
 * an epoch), large ones subsampled (each row at most once per pass over its blocks).
 *
 * <p>Blocks are runs of one class in view order, so they are contiguous on storage where the data
 * is grouped by class (like plates of an experiment) and spread over the class's rows otherwise.
 * Rows with no label are never drawn. The epoch is a pure function of (seed, epoch, labels,
 * parameters), resumes and shards like every other sampler; its class index takes 8 bytes per row
 * (each row's class, and the rows of each class), built once; views are limited to 2^31 rows.
 *
 * @see dev.riffle.loader.pipeline.SamplerColumns#labels
 */
public final class BalancedBlocks implements Sampler {
  private final int blockRows;
  private final int fetchBatches;
  private final String column;
  private final long rowCount;
  private final int[] classCode;
  // rowsOf[classStart[c] .. classStart[c + 1]) are the view positions of class c, ascending.
  private final int[] rowsOf;
  private final int[] classStart;
  private final int[] classOf;
  private final long labelled;

  /**
   * @param blockRows b, rows per block (and per draw)
   * @param fetchBatches f, global batches per fetch window (permuted together)
   * @param column name of the label column (part of {@link #describe()})
   * @param labels the label code of each view position, or -1 for none
   */
  public BalancedBlocks(int blockRows, int fetchBatches, String column, int[] labels) {
    Samplers.positive("block rows", blockRows);
    Samplers.positive("fetch factor", fetchBatches);
    this.blockRows = blockRows;
    this.fetchBatches = fetchBatches;
    this.column = column;
    this.rowCount = labels.length;
    int max = -1;
    for (int l : labels) {
      max = Math.max(max, l);
    }
    int[] perCode = new int[max + 2];
    for (int l : labels) {
      if (l >= 0) {
        perCode[l]++;
      }
    }
    int present = 0;
    for (int c = 0; c <= max; c++) {
      present += perCode[c] > 0 ? 1 : 0;
    }
    if (present == 0) {
      throw new IllegalArgumentException(
          "label column '" + column + "' has no value on any of " + labels.length + " rows");
    }
    classCode = new int[present];
    classStart = new int[present + 1];
    int[] classOfCode = new int[max + 1];
    for (int c = 0, k = 0; c <= max; c++) {
      if (perCode[c] > 0) {
        classOfCode[c] = k;
        classCode[k] = c;
        classStart[k + 1] = classStart[k] + perCode[c];
        k++;
      }
    }
    labelled = classStart[present];
    rowsOf = new int[(int) labelled];
    int[] fill = Arrays.copyOf(classStart, present);
    classOf = new int[labels.length];
    for (int p = 0; p < labels.length; p++) {
      classOf[p] = labels[p] >= 0 ? classOfCode[labels[p]] : -1;
      if (labels[p] >= 0) {
        rowsOf[fill[classOf[p]]++] = p;
      }
    }
  }

  /** Classes present, C. */
  public int classes() {
    return classCode.length;
  }

  /** The label code of class k (classes are the codes present, ascending). */
  public int code(int k) {
    return classCode[k];
  }

  /** Rows of class k. */
  public int classRows(int k) {
    return classStart[k + 1] - classStart[k];
  }

  public int blockRows() {
    return blockRows;
  }

  public String column() {
    return column;
  }

  @Override
  public int fetchBatches() {
    return fetchBatches;
  }

  /**
   * Whether every class has at least as many blocks as a fetch window of G·f indices draws from it.
   * Then a window's blocks are distinct (except where a class's walk over its blocks starts again
   * inside the window) and a batch's π₂ is that of block shuffling, {@link
   * dev.riffle.loader.diversity.DiversityModel#pi2(int, int, long)}; a smaller class repeats its
   * blocks within a window and raises π₂ above it.
   */
  public boolean windowBlocksDistinct(int globalBatchRows) {
    long window = (long) globalBatchRows * fetchBatches;
    long draws = (window + blockRows - 1) / blockRows;
    long perClass = (draws + classCode.length - 1) / classCode.length;
    for (int k = 0; k < classCode.length; k++) {
      if ((classRows(k) + blockRows - 1) / blockRows < perClass) {
        return false;
      }
    }
    return true;
  }

  @Override
  public EpochOrder order(long rows, int globalBatchRows, long seed, long epoch) {
    Samplers.positive("global batch rows", globalBatchRows);
    if (rows != rowCount) {
      throw new IllegalArgumentException(
          "the labels cover " + rowCount + " rows, the view has " + rows);
    }
    int classes = classCode.length;
    long[] phase = new long[classes];
    long[] blocks = new long[classes];
    for (int k = 0; k < classes; k++) {
      long nk = classRows(k);
      phase[k] = Mix.below(Mix.key(Mix.key(seed, epoch, Samplers.PURPOSE_PHASE), k), nk);
      blocks[k] = (nk + blockRows - 1) / blockRows;
    }
    long window = (long) globalBatchRows * fetchBatches;
    long windowKey = Mix.key(seed, epoch, Samplers.PURPOSE_WINDOW);
    long orderKey = Mix.key(seed, epoch, Samplers.PURPOSE_CLASS);
    // Class-row position → block, for metrics: blocks are per class, numbered apart.
    long[] blockBase = new long[classes];
    for (int k = 1; k < classes; k++) {
      blockBase[k] = blockBase[k - 1] + blocks[k - 1];
    }
    return new EpochOrder() {
      @Override
      public long length() {
        return labelled;
      }

      @Override
      public long at(long index) {
        long x = Samplers.withinWindow(index, labelled, window, 0, windowKey);
        long draw = x / blockRows;
        int k = (int) (draw % classes);
        long j = draw / classes;
        long pass = j / blocks[k];
        long block = Feistel.permute(j - pass * blocks[k], blocks[k], Mix.key(orderKey, k, pass));
        long nk = classRows(k);
        long q = (phase[k] + block * blockRows + (x - draw * blockRows)) % nk;
        return rowsOf[classStart[k] + (int) q];
      }

      @Override
      public long blockOf(long position) {
        int k = classOfPosition(position);
        if (k < 0) {
          return -1;
        }
        int q = Arrays.binarySearch(rowsOf, classStart[k], classStart[k + 1], (int) position);
        long r = Math.floorMod((long) (q - classStart[k]) - phase[k], (long) classRows(k));
        return blockBase[k] + r / blockRows;
      }

      @Override
      public int blockRows() {
        return blockRows;
      }

      @Override
      public boolean exactlyOnce() {
        return false;
      }
    };
  }

  /** The class of view position p, or -1 if it has no label. */
  int classOfPosition(long p) {
    return classOf[(int) p];
  }

  @Override
  public String describe() {
    return "balanced(b=" + blockRows + ",f=" + fetchBatches + ",label=" + column + ")";
  }
}
