package dev.riffle.loader.plan;

/**
 * One epoch of a sampler over a view of {@code n} rows: the view position at each epoch index,
 * computable at any index in O(1). Implementations are immutable and thread-safe.
 */
public interface EpochOrder {

  /** Number of epoch indices (the view's row count for samplers without replacement). */
  long length();

  /** The view position at epoch index {@code index} in [0, {@link #length()}). */
  long at(long index);

  /**
   * The storage block of a view position in this epoch, for diversity metrics: rows of one block
   * are read together and correlated. Samplers without blocks use aligned blocks of the size they
   * were given for measuring.
   */
  long blockOf(long position);

  /** The mean block length b this epoch uses, for the diversity model. */
  int blockRows();

  /** Half-width s of the block lengths (uniform over b−s..b+s); 0 without jitter. */
  default int blockSpread() {
    return 0;
  }

  /**
   * Whether every row of the view is at exactly one epoch index (a permutation); false for samplers
   * that draw with replacement, where rows repeat and others are left out.
   */
  default boolean exactlyOnce() {
    return true;
  }
}
