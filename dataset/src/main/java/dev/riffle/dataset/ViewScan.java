package dev.riffle.dataset;

import dev.riffle.format.read.ScanCursor;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * The rows of a view, in global order, read file by file through each file's sequential page path
 * ({@link dev.riffle.format.read.FileReader#scan(List, int, long, long)}): every page read whole,
 * once, with read-ahead, and its checksum verified before any of its rows is returned, as a scan of
 * a single file does. A take, by contrast, reads only the bytes of its rows and cannot verify a
 * page it does not read whole.
 *
 * <p>Each file is scanned over the range from its first to its last row in the view; every page of
 * that range is read and verified, and only the rows in the view (not deleted, in the split) are
 * decoded ({@link dev.riffle.format.read.ScanCursor#select}). Files without a row of the view are
 * not opened. Batches hold at most {@code batchRows} rows, never rows of two files, and are never
 * empty. A view that holds few of a file's rows (a small random split) still reads every page
 * between its first and last row there: that is what verifying them costs, and reading a few rows
 * cheaply is what takes are for.
 */
final class ViewScan implements AutoCloseable {
  private final Dataset dataset;
  private final Roaring64Bitmap rows;
  private final List<String> names;
  private final int batchRows;
  private final CrossFileTake.Remap remap;

  /** The file being scanned, -1 before the first. */
  private int file = -1;

  private ScanCursor cursor;

  private boolean closed;

  ViewScan(Dataset dataset, Roaring64Bitmap rows, List<String> names, int batchRows) {
    this.dataset = dataset;
    this.rows = rows;
    this.names = names;
    this.batchRows = batchRows;
    this.remap = dataset.remapFor(names);
  }

  /** The next batch (closed by the caller), or null after the view's last row. */
  VectorSchemaRoot next() throws IOException {
    if (closed) {
      throw new IllegalStateException("scan is closed");
    }
    while (true) {
      if (cursor == null && !openNextFile()) {
        return null;
      }
      VectorSchemaRoot batch = cursor.next();
      if (batch == null) {
        cursor.close();
        cursor = null;
        continue;
      }
      try {
        if (remap != null) {
          remap.apply(batch, file);
        }
        return batch;
      } catch (IOException | RuntimeException e) {
        batch.close();
        throw e;
      }
    }
  }

  /** Opens the next file that holds a row of the view, over the range of those rows. */
  private boolean openNextFile() throws IOException {
    List<Manifest.DataFile> files = dataset.manifest().files();
    while (++file < files.size()) {
      Manifest.DataFile f = files.get(file);
      long before = RowSets.rankBefore(rows, f.firstRow());
      long upTo = RowSets.rankBefore(rows, f.firstRow() + f.rowCount());
      if (upTo == before) {
        continue;
      }
      long start = rows.select(before) - f.firstRow();
      long end = rows.select(upTo - 1) - f.firstRow() + 1;
      cursor = dataset.file(file).scan(names, batchRows, start, end);
      if (upTo - before != end - start) {
        cursor.select(RowSets.selection(rows, f.firstRow()));
      }
      return true;
    }
    return false;
  }

  /** Withdraws the current file's read-ahead; idempotent. */
  @Override
  public void close() {
    closed = true;
    if (cursor != null) {
      cursor.close();
      cursor = null;
    }
  }
}
