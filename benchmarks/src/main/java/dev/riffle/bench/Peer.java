package dev.riffle.bench;

import dev.riffle.format.read.ReadStats;
import java.io.IOException;
import java.nio.file.Path;

/** One format's file for one type, opened for takes and scans. */
interface Peer extends AutoCloseable {
  /** Reads rows; one instance per calling thread. */
  interface Taker extends AutoCloseable {
    /**
     * Takes the rows (any order, duplicates allowed); returns their digests in order if {@code
     * digests}, else null (the values are still read and decoded).
     */
    long[] take(long[] rows, boolean digests) throws IOException;

    @Override
    default void close() throws IOException {}
  }

  String format();

  Path file();

  /** A taker with its metadata (footer, page index, search cache) loaded. */
  Taker taker() throws IOException;

  /**
   * Reads every row of one column ({@code column}), or of every column (null); returns the row
   * count.
   */
  long scan(String column) throws IOException;

  /** The reader's own counters where it has them, else null. */
  default ReadStats stats() {
    return null;
  }

  @Override
  default void close() throws IOException {}
}
