package dev.riffle.dataset;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.longlong.LongIterator;
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

  /** Rows by view position, in the given order (duplicates allowed). */
  public VectorSchemaRoot take(long[] positions, List<String> fields) throws IOException {
    long[] global = new long[positions.length];
    for (int i = 0; i < positions.length; i++) {
      global[i] = globalRow(positions[i]);
    }
    return dataset.take(global, fields);
  }

  /** Sequential batches of the view's rows, in global order. */
  public Cursor scan(List<String> fields, int batchRows) {
    if (batchRows < 1) {
      throw new IllegalArgumentException("batch rows must be at least 1");
    }
    dataset.resolve(fields);
    return new Cursor(fields, batchRows);
  }

  /** Iterates a view in batches; ascending runs of rows are read with coalesced reads. */
  public final class Cursor {
    private final List<String> fields;
    private final int batchRows;
    private final LongIterator it = rows.getLongIterator();

    Cursor(List<String> fields, int batchRows) {
      this.fields = fields;
      this.batchRows = batchRows;
    }

    /** The next batch (closed by the caller), or null at the end. */
    public VectorSchemaRoot next() throws IOException {
      if (!it.hasNext()) {
        return null;
      }
      long[] ids = new long[(int) Math.min(batchRows, rowCount())];
      int n = 0;
      while (n < ids.length && it.hasNext()) {
        ids[n++] = it.next();
      }
      return dataset.take(n == ids.length ? ids : java.util.Arrays.copyOf(ids, n), fields);
    }
  }
}
