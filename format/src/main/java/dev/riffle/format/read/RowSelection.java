package dev.riffle.format.read;

/**
 * The rows of a scanned range that a scan returns ({@link ScanCursor#select}): a dataset view's
 * rows in one file, or a partition's. Rows are the file's own numbers; the scan asks only about
 * rows of its range, in ascending order.
 */
public interface RowSelection {
  /** The first selected row in {@code [row, end)}, or {@code end} if there is none. */
  long next(long row, long end);

  /**
   * The end of the run of selected rows that starts at {@code row} (a selected row): the first row
   * after it that is not selected, or {@code end}, whichever comes first.
   */
  long runEnd(long row, long end);
}
