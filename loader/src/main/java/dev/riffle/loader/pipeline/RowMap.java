package dev.riffle.loader.pipeline;

import dev.riffle.dataset.DatasetView;
import java.util.Arrays;
import org.roaringbitmap.longlong.LongIterator;

/**
 * View position → global row id, in O(log runs): the view's rows as maximal runs of consecutive ids
 * (a split with few holes, a dataset with a few deletions: a handful of runs). Built once per
 * loader in one pass over the view's bitmap; {@code DatasetView.globalRow} is a bitmap select per
 * call, too slow for every row of every batch.
 */
final class RowMap {
  private final long[] runPosition;
  private final long[] runFirstRow;
  private final long rowCount;

  private RowMap(long[] runPosition, long[] runFirstRow, long rowCount) {
    this.runPosition = runPosition;
    this.runFirstRow = runFirstRow;
    this.rowCount = rowCount;
  }

  static RowMap of(DatasetView view) {
    long[] pos = new long[16];
    long[] first = new long[16];
    int runs = 0;
    long p = 0;
    long prev = Long.MIN_VALUE;
    for (LongIterator it = view.rows().getLongIterator(); it.hasNext(); p++) {
      long r = it.next();
      if (r != prev + 1) {
        if (runs == pos.length) {
          pos = Arrays.copyOf(pos, runs * 2);
          first = Arrays.copyOf(first, runs * 2);
        }
        pos[runs] = p;
        first[runs] = r;
        runs++;
      }
      prev = r;
    }
    return new RowMap(Arrays.copyOf(pos, runs), Arrays.copyOf(first, runs), p);
  }

  long rowCount() {
    return rowCount;
  }

  /** Maximal runs of consecutive global rows in the view. */
  int runCount() {
    return runPosition.length;
  }

  /** The first global row of run {@code i}. */
  long runFirstRow(int i) {
    return runFirstRow[i];
  }

  /** Rows of run {@code i}. */
  long runRows(int i) {
    long end = i + 1 < runPosition.length ? runPosition[i + 1] : rowCount;
    return end - runPosition[i];
  }

  long globalRow(long position) {
    if (position < 0 || position >= rowCount) {
      throw new IndexOutOfBoundsException(
          "position " + position + " outside the view's " + rowCount + " rows");
    }
    int i = Arrays.binarySearch(runPosition, position);
    if (i < 0) {
      i = -i - 2;
    }
    return runFirstRow[i] + (position - runPosition[i]);
  }
}
