package dev.riffle.bench.harness;

import java.io.IOException;

/** Reads rows for one calling thread, through a handle of its own. */
public interface Taker extends AutoCloseable {
  /**
   * Takes the rows (any order, duplicates allowed) and reads every value they hold, so that the
   * format does all its work; fails if it returns other rows than asked.
   */
  void take(long[] rows) throws Exception;

  @Override
  default void close() throws IOException {}

  /** Opens one taker, with its own handle: metadata loaded, as a reader holds it between takes. */
  @FunctionalInterface
  interface Opener {
    Taker open() throws Exception;
  }
}
