package dev.riffle.dataset;

import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.RowRanges;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * A set of rows of a dataset (a split, a subset, or all live rows) seen as positions 0..n-1 in
 * ascending global row order. This is what samplers draw from: position p is global row {@code
 * globalRow(p)}.
 */
public final class DatasetView {
  private final Dataset dataset;
  private final Roaring64Bitmap rows;
  private final String name;

  DatasetView(Dataset dataset, Roaring64Bitmap rows, String name) {
    this.dataset = dataset;
    this.rows = rows;
    this.name = name;
  }

  public Dataset dataset() {
    return dataset;
  }

  /** "all", a split's name, or "subset". */
  public String name() {
    return name;
  }

  public long rowCount() {
    return rows.getLongCardinality();
  }

  /** The global row ids in the view (a copy). */
  public Roaring64Bitmap rows() {
    return rows.clone();
  }

  /** The global row id at a position of the view. */
  public long globalRow(long position) {
    if (position < 0 || position >= rowCount()) {
      throw new IllegalArgumentException(
          "position " + position + " is outside the " + name + " view of " + rowCount() + " rows");
    }
    return rows.select(position);
  }

  /**
   * The rows of this view that {@code filter} matches, exactly ({@link PageFilter#matches}), as a
   * view. Only the filter's columns are read, and of each file only the pages its statistics cannot
   * exclude, every page checksummed as by {@link #scan}; a file without a row of this view is not
   * opened. This is how a scan, a take or a loader is restricted to rows by their values: the
   * filter runs once, before any plan is made.
   *
   * @throws IllegalArgumentException for an unknown column, or a literal that does not fit its
   *     column
   */
  public DatasetView where(PageFilter filter) throws IOException {
    List<String> fields = new ArrayList<>(filter.fields());
    dataset.resolve(fields);
    Roaring64Bitmap out = new Roaring64Bitmap();
    List<Manifest.DataFile> files = dataset.manifest().files();
    for (int i = 0; i < files.size(); i++) {
      Manifest.DataFile f = files.get(i);
      long before = RowSets.rankBefore(rows, f.firstRow());
      long upTo = RowSets.rankBefore(rows, f.firstRow() + f.rowCount());
      if (upTo == before) {
        continue;
      }
      RowRanges matching =
          filter.matchingRows(
              dataset.file(i),
              RowRanges.of(
                  rows.select(before) - f.firstRow(), rows.select(upTo - 1) - f.firstRow() + 1));
      for (int r = 0; r < matching.count(); r++) {
        RowSets.addRange(out, f.firstRow() + matching.start(r), f.firstRow() + matching.end(r));
      }
    }
    out.and(rows);
    return new DatasetView(dataset, out, name + " where " + filter);
  }

  /** Rows by view position, in the given order (duplicates allowed). */
  public VectorSchemaRoot take(long[] positions, List<String> fields) throws IOException {
    long[] global = new long[positions.length];
    for (int i = 0; i < positions.length; i++) {
      global[i] = globalRow(positions[i]);
    }
    return dataset.take(global, fields);
  }

  /**
   * Sequential batches of the view's rows, in global order, read through each file's sequential
   * page path: every page read whole, once (with read-ahead), and its checksum verified before any
   * of its rows is returned, as a scan of a single file does ({@link ViewScan}). Batches hold 1 to
   * {@code batchRows} rows, never rows of two files.
   *
   * @param fields top-level field names, or null for all
   * @throws IllegalArgumentException for an unknown field
   */
  public Cursor scan(List<String> fields, int batchRows) {
    if (batchRows < 1) {
      throw new IllegalArgumentException("batch rows must be at least 1");
    }
    return new Cursor(new ViewScan(dataset, rows, dataset.resolve(fields), batchRows));
  }

  /**
   * Iterates a view in batches. Reaching the end releases what it holds; {@link #close()} does so
   * earlier (pages read ahead).
   */
  public static final class Cursor implements AutoCloseable {
    private final ViewScan scan;

    Cursor(ViewScan scan) {
      this.scan = scan;
    }

    /** The next batch (closed by the caller), or null at the end. */
    public VectorSchemaRoot next() throws IOException {
      return scan.next();
    }

    /** Stops the scan: pages read ahead are dropped; {@link #next()} must not be called again. */
    @Override
    public void close() {
      scan.close();
    }
  }
}
