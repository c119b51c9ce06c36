package dev.riffle.loader.plan;

/**
 * A rule that turns (rows, global batch size, seed, epoch) into an {@link EpochOrder}. Samplers are
 * immutable values: two equal samplers give equal orders, and {@link #describe()} names every
 * parameter that changes the order, so that a saved {@link LoaderState} can refuse a different one.
 */
public interface Sampler {

  /**
   * The order of one epoch.
   *
   * @param rowCount rows in the view
   * @param globalBatchRows rows of one global batch (all ranks together)
   * @param seed the run's seed
   * @param epoch the epoch number, from 0
   */
  EpochOrder order(long rowCount, int globalBatchRows, long seed, long epoch);

  /**
   * How many consecutive global batches the pipeline reads together as one fetch: the fetch factor
   * for samplers whose diversity comes from an in-memory shuffle, a unit of prefetch otherwise.
   */
  int fetchBatches();

  /** Canonical text of the sampler and all its parameters, e.g. {@code block(b=16,f=256,...)}. */
  String describe();
}
