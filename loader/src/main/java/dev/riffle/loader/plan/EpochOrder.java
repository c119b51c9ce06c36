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

  /** The block length this epoch uses (after per-epoch jitter), for the diversity model. */
  int blockRows();
}
