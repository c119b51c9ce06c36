package dev.riffle.loader.plan;

/**
 * Rows in view order, every epoch the same: the streaming baseline with the best I/O and the worst
 * diversity (a batch is m neighbouring rows).
 *
 * @param fetchBatches batches read together
 * @param blockRows the block size used only to measure diversity
 */
public record Sequential(int fetchBatches, int blockRows) implements Sampler {
  public Sequential {
    Samplers.positive("fetch batches", fetchBatches);
    Samplers.positive("block rows", blockRows);
  }

  @Override
  public EpochOrder order(long rowCount, int globalBatchRows, long seed, long epoch) {
    return new EpochOrder() {
      @Override
      public long length() {
        return rowCount;
      }

      @Override
      public long at(long index) {
        return index;
      }

      @Override
      public long blockOf(long position) {
        return position / blockRows;
      }

      @Override
      public int blockRows() {
        return blockRows;
      }
    };
  }

  @Override
  public String describe() {
    return "sequential(fetch=" + fetchBatches + ")";
  }
}
