package dev.riffle.dataset;

import java.util.Arrays;
import java.util.List;

/**
 * Routes global row ids (the rows of file 0, then of file 1, ...) to files and the files' own row
 * numbers, and groups the rows of one take by file so each file is read once per take.
 */
final class RowRouter {
  /** The global id of each file's first row, ascending; empty files repeat the next one's. */
  private final long[] firstRows;

  RowRouter(List<Manifest.DataFile> files) {
    this.firstRows = files.stream().mapToLong(Manifest.DataFile::firstRow).toArray();
  }

  /** The file holding global row {@code row}, which must be in range. */
  int fileOf(long row) {
    int i = Arrays.binarySearch(firstRows, row);
    if (i >= 0) {
      // Empty files share a first row with the next one: take the last file starting there.
      while (i + 1 < firstRows.length && firstRows[i + 1] == row) {
        i++;
      }
      return i;
    }
    return -i - 2;
  }

  /**
   * The rows of a take grouped by file: one part per file that holds any of them, in file order,
   * and for each requested row the part and the row of that part it comes from.
   *
   * @param files the part's file, per part
   * @param localRows the part's rows, in the file's own numbering, in request order
   * @param partOf per requested row, its part
   * @param rowOf per requested row, its row within its part
   */
  record Route(int[] files, long[][] localRows, int[] partOf, int[] rowOf) {
    int parts() {
      return files.length;
    }

    int rows() {
      return partOf.length;
    }
  }

  /** Groups {@code rows} (global ids, each in range) by file. */
  Route route(long[] rows) {
    int n = rows.length;
    int[] fileOf = new int[n];
    int[] counts = new int[firstRows.length];
    int parts = 0;
    for (int k = 0; k < n; k++) {
      fileOf[k] = fileOf(rows[k]);
      if (counts[fileOf[k]]++ == 0) {
        parts++;
      }
    }
    int[] partOf = new int[n];
    int[] rowOf = new int[n];
    int[] files = new int[parts];
    long[][] localRows = new long[parts][];
    int p = 0;
    for (int i = 0; i < firstRows.length; i++) {
      if (counts[i] == 0) {
        continue;
      }
      long[] local = new long[counts[i]];
      int c = 0;
      for (int k = 0; k < n; k++) {
        if (fileOf[k] == i) {
          partOf[k] = p;
          rowOf[k] = c;
          local[c++] = rows[k] - firstRows[i];
        }
      }
      files[p] = i;
      localRows[p++] = local;
    }
    return new Route(files, localRows, partOf, rowOf);
  }
}
