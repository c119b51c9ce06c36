package dev.riffle.loader.plan;

/**
 * Block shuffling (scDataset's BlockShuffling, annbatch's RandomSampler): blocks of {@code b}
 * contiguous rows in a random order form a stream; each fetch window of F = G·f consecutive stream
 * rows (G the global batch) is read at once, sorted by offset, and cut into f batches after an
 * in-memory permutation. A batch is then a uniform G-subset of its window, so two of its rows share
 * a block with probability π₂ = (b−1)/(G·f−1) when b divides G·f (the model in {@link
 * dev.riffle.loader.diversity.DiversityModel}).
 *
 * <p>Each epoch re-blocks: a fresh uniform phase moves every block boundary, and with {@code jitter
 * > 0} every block draws its own length, uniform over b ± ⌊b·jitter⌋ ({@link Blocks}), so block
 * boundaries leave the lattice and rows that shared a block last epoch mostly do not now. Blocks
 * then straddle fetch windows; π₂ follows {@link dev.riffle.loader.diversity.DiversityModel#pi2}
 * with the length spread (longer blocks weigh more: E[L²]/b − 1 in place of b − 1).
 *
 * <p>With {@code deal}, a window is not permuted uniformly: rows are shuffled within their block,
 * and the window (blocks in random order) is dealt round-robin to its f batches, like cards. A
 * block then puts at most ⌈b/f⌉ rows in any batch: π₂ = 0 and every batch holds min(G, K) distinct
 * blocks when b ≤ f — a deterministic floor instead of an expectation, at the cost of consecutive
 * batches sharing their block set.
 *
 * @param blockRows b, rows per block
 * @param fetchBatches f, global batches per fetch window
 * @param jitter relative spread of each block's length, in [0, 1)
 * @param deal deal the window round-robin instead of permuting it
 */
public record BlockShuffle(int blockRows, int fetchBatches, double jitter, boolean deal)
    implements Sampler {
  public BlockShuffle {
    Samplers.positive("block rows", blockRows);
    Samplers.positive("fetch factor", fetchBatches);
    Samplers.jitter(jitter);
  }

  /** Block shuffling without length jitter or dealing. */
  public static BlockShuffle of(int blockRows, int fetchBatches) {
    return new BlockShuffle(blockRows, fetchBatches, 0, false);
  }

  @Override
  public EpochOrder order(long rowCount, int globalBatchRows, long seed, long epoch) {
    Samplers.positive("global batch rows", globalBatchRows);
    Blocks blocks = Samplers.epochBlocks(rowCount, blockRows, jitter, seed, epoch);
    long window = (long) globalBatchRows * fetchBatches;
    long windowKey = Mix.key(seed, epoch, Samplers.PURPOSE_WINDOW);
    long rowKey = Mix.key(seed, epoch, Samplers.PURPOSE_WITHIN_BLOCK);
    return new EpochOrder() {
      @Override
      public long length() {
        return rowCount;
      }

      @Override
      public long at(long index) {
        long x;
        if (!deal) {
          x = Samplers.withinWindow(index, rowCount, window, 0, windowKey);
        } else {
          x = dealt(index);
          // Shuffle within the block, so that which rows of a block go to which batch changes.
          long slot = blocks.slotOf(x);
          long start = blocks.streamStart(slot);
          long len = blocks.slotLength(slot);
          x = start + Feistel.permute(x - start, len, Mix.key(rowKey, slot));
        }
        return blocks.position(x);
      }

      /** Round-robin: output q is batch q / G, slot q % G, i.e. window element slot·f' + batch. */
      private long dealt(long index) {
        long start = index / window * window;
        long size = Math.min(window, rowCount - start);
        long batches = size / globalBatchRows;
        long q = index - start;
        if (q >= batches * globalBatchRows) {
          return index; // the epoch's last, partial batch: nothing to deal it with
        }
        long batch = q / globalBatchRows;
        long slot = q - batch * globalBatchRows;
        return start + slot * batches + batch;
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
    return "block(b="
        + blockRows
        + ",f="
        + fetchBatches
        + ",jitter="
        + jitter
        + ",deal="
        + deal
        + ")";
  }
}
