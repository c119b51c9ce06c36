package dev.riffle.loader.plan;

/** What happens to the last rows of an epoch when they do not fill a global batch. */
public enum Tail {
  /** Leave them out: every batch is full, {@code rows mod G} rows are not seen this epoch. */
  DROP,
  /**
   * Fill the last batch by wrapping around to the start of the epoch's order: every row is seen,
   * {@code G − rows mod G} rows twice. Pad rows are marked, so coverage can leave them out.
   */
  PAD
}
