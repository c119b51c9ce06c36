package dev.riffle.loader.pipeline;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.Manifest;
import dev.riffle.loader.plan.EpochPlan;
import java.util.Arrays;
import java.util.List;

/**
 * The data files a rank reads next, in the order its coming batches first touch them: what a cache
 * shared with other processes needs to evict the files needed furthest in the future (the staging
 * cache's plans name each file by {@code manifest().files().get(i).sha256()}). The plan is a pure
 * function, so this is exact, not a guess from past reads.
 *
 * <p>The walk maps each epoch index of the rank's slices to a view position, a global row and its
 * file, and stops as soon as every file holding rows of the view has been seen: a shuffled plan
 * touches them all within its first windows, a sequential one only at its end (O(rows left)).
 */
public final class FileOrder {
  private final Dataset dataset;
  private final RowMap rowMap;
  private final long[] firstRows;
  private final long[] endRows;
  private final int filesInView;

  private FileOrder(Dataset dataset, RowMap rowMap) {
    this.dataset = dataset;
    this.rowMap = rowMap;
    List<Manifest.DataFile> files = dataset.manifest().files();
    this.firstRows = files.stream().mapToLong(Manifest.DataFile::firstRow).toArray();
    this.endRows = files.stream().mapToLong(f -> f.firstRow() + f.rowCount()).toArray();
    this.filesInView = countFilesInView();
  }

  /** File orders over a view (walks its row bitmap once). */
  public static FileOrder of(DatasetView view) {
    return new FileOrder(view.dataset(), RowMap.of(view));
  }

  static FileOrder of(Dataset dataset, RowMap rowMap) {
    return new FileOrder(dataset, rowMap);
  }

  /** Files holding at least one row of the view: the most a walk can find. */
  public int filesInView() {
    return filesInView;
  }

  private int countFilesInView() {
    boolean[] covered = new boolean[firstRows.length];
    int n = 0;
    for (int r = 0; r < rowMap.runCount(); r++) {
      long first = rowMap.runFirstRow(r);
      int from = dataset.fileOf(first);
      int to = dataset.fileOf(first + rowMap.runRows(r) - 1);
      for (int i = from; i <= to; i++) {
        // Empty files inside a run hold none of its rows.
        if (!covered[i] && endRows[i] > firstRows[i]) {
          covered[i] = true;
          n++;
        }
      }
    }
    return n;
  }

  /**
   * The files (indices into the manifest's {@code files()}) that rank {@code rank} of {@code world}
   * reads in batches {@code fromBatch} to the end of {@code plan}'s epoch, each once, in the order
   * first read (padding rows included: they are read too). Files the rest of the epoch does not
   * read are not listed.
   *
   * @param plan a plan over this view (its row count must match)
   */
  public int[] upcoming(EpochPlan plan, int rank, int world, long fromBatch) {
    if (plan.rowCount() != rowMap.rowCount()) {
      throw new IllegalArgumentException(
          "the plan is over "
              + plan.rowCount()
              + " rows, the view has "
              + rowMap.rowCount()
              + "; plan the view the files are asked of");
    }
    if (rank < 0 || rank >= world) {
      throw new IllegalArgumentException("rank " + rank + " outside [0, " + world + ")");
    }
    if (fromBatch < 0 || fromBatch > plan.batchCount()) {
      throw new IndexOutOfBoundsException(
          "batch " + fromBatch + " outside [0, " + plan.batchCount() + "]");
    }
    int m = plan.rankBatchRows(world);
    boolean[] seen = new boolean[firstRows.length];
    int[] out = new int[filesInView];
    int n = 0;
    // The file of the last row: consecutive rows mostly stay in it, which skips the search.
    int file = -1;
    for (long t = fromBatch; t < plan.batchCount() && n < filesInView; t++) {
      long start = plan.sliceStart(t, rank, world);
      for (long index = start; index < start + m && n < filesInView; index++) {
        long row = rowMap.globalRow(plan.position(index));
        if (file < 0 || row < firstRows[file] || row >= endRows[file]) {
          file = dataset.fileOf(row);
        }
        if (!seen[file]) {
          seen[file] = true;
          out[n++] = file;
        }
      }
    }
    return Arrays.copyOf(out, n);
  }
}
