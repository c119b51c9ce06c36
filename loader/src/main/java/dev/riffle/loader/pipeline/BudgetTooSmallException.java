package dev.riffle.loader.pipeline;

import dev.riffle.format.io.Numbers;

/**
 * A {@link LoaderOptions#prefetchBytes()} budget that cannot hold one fetch: nothing could be read
 * ahead or handed out within it. Says the smallest budget that works, for a caller that names its
 * own option in the message.
 */
public final class BudgetTooSmallException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final long minimumBytes;
  private final String fetch;

  BudgetTooSmallException(
      long budget, long minimumBytes, long fetchBatches, int batchRows, long bytesPerRow) {
    this(budget, minimumBytes, describe(fetchBatches, batchRows, bytesPerRow));
  }

  private BudgetTooSmallException(long budget, long minimumBytes, String fetch) {
    super(
        "a prefetch budget of "
            + Numbers.count(budget)
            + " bytes cannot hold one fetch ("
            + fetch
            + "): it needs "
            + (minimumBytes == Long.MAX_VALUE ? "more than " : "")
            + Numbers.count(minimumBytes)
            + " bytes; give at least that, or fetch fewer or smaller batches");
    this.minimumBytes = minimumBytes;
    this.fetch = fetch;
  }

  private static String describe(long fetchBatches, int batchRows, long bytesPerRow) {
    return Numbers.count(fetchBatches)
        + (fetchBatches == 1 ? " batch of " : " batches of ")
        + Numbers.count(batchRows)
        + " rows, about "
        + Numbers.count(bytesPerRow)
        + " bytes a row";
  }

  /**
   * The smallest budget that holds one fetch, in bytes; {@link Long#MAX_VALUE} where it is more
   * than a long counts.
   */
  public long minimumBytes() {
    return minimumBytes;
  }

  /** The fetch that did not fit: its batches, their rows, and the estimated bytes of a row. */
  public String fetchDescription() {
    return fetch;
  }
}
