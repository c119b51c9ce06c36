package dev.riffle.loader.plan;

/**
 * A rolling pool, made plan-first: the block stream is shuffled within windows of R rows, then
 * again within windows of R rows staggered by R/2. A batch therefore draws half from one window and
 * half from the next, like a pool of R rows that is half refilled between batches, rather than from
 * one disjoint window. Two rows of a batch come from the same first-stage window with probability
 * about ½, which halves the pair collision of disjoint fetches of the same R: π₂ ≈ (b−1)/(2(R−1))
 * (buffer shufflers' (b−1)/(2R), research brief §3.6). Every index is still computed in O(1), so
 * resume and rank slicing work as for the other samplers; each row is delivered exactly once.
 *
 * <p>The pipeline reads each fetch of {@code fetchBatches} batches on its own, so a block's rows
 * are read by up to three fetches: the pool costs read calls rather than resident memory.
 *
 * @param blockRows b, rows per block
 * @param poolRows R, rows of a pool window (at least 2)
 * @param fetchBatches batches read together by the pipeline
 * @param jitter relative spread of each block's length, in [0, 1)
 */
public record RollingPool(int blockRows, long poolRows, int fetchBatches, double jitter)
    implements Sampler {
  public RollingPool {
    Samplers.positive("block rows", blockRows);
    Samplers.positive("fetch batches", fetchBatches);
    if (poolRows < 2) {
      throw new IllegalArgumentException("pool rows must be at least 2, not " + poolRows);
    }
    Samplers.jitter(jitter);
  }

  @Override
  public EpochOrder order(long rowCount, int globalBatchRows, long seed, long epoch) {
    Blocks blocks = Samplers.epochBlocks(rowCount, blockRows, jitter, seed, epoch);
    long first = Mix.key(seed, epoch, Samplers.PURPOSE_WINDOW);
    long second = Mix.key(seed, epoch, Samplers.PURPOSE_STAGGER);
    return new EpochOrder() {
      @Override
      public long length() {
        return rowCount;
      }

      @Override
      public long at(long index) {
        long y = Samplers.withinWindow(index, rowCount, poolRows, poolRows / 2, second);
        long x = Samplers.withinWindow(y, rowCount, poolRows, 0, first);
        return blocks.position(x);
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
    };
  }

  @Override
  public String describe() {
    return "pool(b="
        + blockRows
        + ",R="
        + poolRows
        + ",fetch="
        + fetchBatches
        + ",jitter="
        + jitter
        + ")";
  }
}
