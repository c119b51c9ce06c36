package dev.riffle.loader.pipeline;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One minibatch's rows where they already lie in memory, not gathered into a batch of their own:
 * row k of the minibatch is row {@link #row(int) row(k)} of part {@link #part(int) part(k)}.
 *
 * <p>For a consumer that copies every value anyway (into tensors, say): reading the rows from here
 * copies them once, where {@link Loader#next()} would copy them into a gathered batch first. The
 * loader hands these out only inside {@link Loader#next(Loader.RowsReader)}: the parts are the
 * loader's fetch, freed once the call returns; read them there, never keep or change them.
 */
public final class BatchRows {
  private final List<VectorSchemaRoot> parts;
  private final int[] part;
  private final int[] row;
  private final long[] globalRow;
  private final boolean[] padding;
  private final int from;
  private final int count;

  BatchRows(
      List<VectorSchemaRoot> parts,
      int[] part,
      int[] row,
      long[] globalRow,
      boolean[] padding,
      int from,
      int count) {
    this.parts = parts;
    this.part = part;
    this.row = row;
    this.globalRow = globalRow;
    this.padding = padding;
    this.from = from;
    this.count = count;
  }

  /**
   * The rows of one batch, in order (a take's result, say): its rows [0, rowCount) are this
   * minibatch's, with these global row ids, none of them padding.
   *
   * @throws IllegalArgumentException if there is not one id per row
   */
  public static BatchRows of(VectorSchemaRoot batch, long[] globalRows) {
    int n = batch.getRowCount();
    if (globalRows.length != n) {
      throw new IllegalArgumentException(
          globalRows.length + " global row ids for a batch of " + n + " rows");
    }
    int[] row = new int[n];
    for (int k = 0; k < n; k++) {
      row[k] = k;
    }
    return new BatchRows(List.of(batch), new int[n], row, globalRows.clone(), new boolean[n], 0, n);
  }

  /**
   * Only the given rows of this minibatch, in the order given (for instance, all but the padding).
   *
   * @throws IllegalArgumentException if one of them is not a row of this minibatch
   */
  public BatchRows select(int[] keep) {
    int[] p = new int[keep.length];
    int[] r = new int[keep.length];
    long[] g = new long[keep.length];
    boolean[] pad = new boolean[keep.length];
    for (int i = 0; i < keep.length; i++) {
      int k = keep[i];
      if (k < 0 || k >= count) {
        throw new IllegalArgumentException(
            "row " + k + " is not in this minibatch of " + count + " rows");
      }
      p[i] = part[from + k];
      r[i] = row[from + k];
      g[i] = globalRow[from + k];
      pad[i] = padding[from + k];
    }
    return new BatchRows(parts, p, r, g, pad, 0, keep.length);
  }

  /** Rows of the minibatch. */
  public int rowCount() {
    return count;
  }

  /** The batches that hold the rows: read them, never close or change them. */
  public List<VectorSchemaRoot> parts() {
    return parts;
  }

  /** Which part holds row k of the minibatch. */
  public int part(int k) {
    return part[from + check(k)];
  }

  /** Where in its part row k of the minibatch lies. */
  public int row(int k) {
    return row[from + check(k)];
  }

  /** The global row id of row k of the minibatch. */
  public long globalRow(int k) {
    return globalRow[from + check(k)];
  }

  /**
   * Whether row k of the minibatch is padding: a repeat of an earlier row that fills an epoch's
   * last batch ({@code Tail.PAD}).
   */
  public boolean padding(int k) {
    return padding[from + check(k)];
  }

  private int check(int k) {
    if (k < 0 || k >= count) {
      throw new IndexOutOfBoundsException("row " + k + " of a minibatch of " + count + " rows");
    }
    return k;
  }
}
