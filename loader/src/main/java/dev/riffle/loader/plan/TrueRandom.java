package dev.riffle.loader.plan;

/**
 * A uniformly random permutation of the rows each epoch (a keyed {@link Feistel} permutation): the
 * diversity reference, with one random read per row.
 *
 * @param fetchBatches batches read together (their reads are sorted, though rarely adjacent)
 * @param blockRows the block size used only to measure diversity
 */
public record TrueRandom(int fetchBatches, int blockRows) implements Sampler {
  public TrueRandom {
    Samplers.positive("fetch batches", fetchBatches);
    Samplers.positive("block rows", blockRows);
  }

  @Override
  public EpochOrder order(long rowCount, int globalBatchRows, long seed, long epoch) {
    long key = Mix.key(seed, epoch, Samplers.PURPOSE_ROWS);
    return new EpochOrder() {
      @Override
      public long length() {
        return rowCount;
      }

      @Override
      public long at(long index) {
        return Feistel.permute(index, rowCount, key);
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
    return "random(fetch=" + fetchBatches + ")";
  }
}
