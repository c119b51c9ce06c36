package dev.riffle.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Sequential batches over a file. Each page is read whole, once, and its checksum verified before
 * any row of it is returned. Not thread-safe; close the batches it returns.
 */
public final class ScanCursor {
  private final FileReader reader;
  private final List<String> fields;
  private final ColumnReader[] columns;
  private final int batchRows;
  private final int[] loadedPage;
  private final ByteBuffer[] pageBuffers;
  private long nextRow;

  ScanCursor(FileReader reader, List<String> fields, ColumnReader[] columns, int batchRows) {
    this.reader = reader;
    this.fields = fields;
    this.columns = columns;
    this.batchRows = batchRows;
    this.loadedPage = new int[columns.length];
    java.util.Arrays.fill(loadedPage, -1);
    this.pageBuffers = new ByteBuffer[columns.length];
  }

  /** The next batch, or null after the last row. */
  public VectorSchemaRoot next() throws IOException {
    long total = reader.rowCount();
    if (nextRow >= total) {
      return null;
    }
    int n = (int) Math.min(batchRows, total - nextRow);
    VectorSchemaRoot root = reader.newBatch(fields, n);
    try {
      for (int c = 0; c < columns.length; c++) {
        ColumnReader col = columns[c];
        ColumnReader.Target target = reader.targetFor(col.spec, root);
        long row = nextRow;
        long end = nextRow + n;
        while (row < end) {
          int p = col.pageOf(row);
          if (loadedPage[c] != p) {
            pageBuffers[c] = reader.readPage(col, p);
            loadedPage[c] = p;
          }
          PageInfo page = col.pages[p];
          int count = (int) (Math.min(end, page.firstRow() + page.rowCount()) - row);
          col.decodePageRows(
              p,
              pageBuffers[c],
              (int) (row - page.firstRow()),
              count,
              target,
              (int) (row - nextRow));
          row += count;
        }
      }
      reader.finishBatch(root, n, fields.size());
      nextRow += n;
      return root;
    } catch (IOException | RuntimeException e) {
      root.close();
      throw e;
    }
  }
}
