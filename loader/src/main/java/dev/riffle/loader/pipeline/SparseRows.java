package dev.riffle.loader.pipeline;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * A batch's sparse rows — an {@code indices} list&lt;int32&gt; column and a {@code values}
 * list&lt;float32&gt; column of equal lengths per row — as the arrays training code wants: CSR
 * ({@code indptr}, {@code indices}, {@code values}) or dense rows. Copies straight out of the Arrow
 * buffers; a null row is an empty row.
 *
 * @param indptr row r's entries are [indptr[r], indptr[r+1]), length rows+1
 * @param indices column of each entry
 * @param values value of each entry
 */
public record SparseRows(int[] indptr, int[] indices, float[] values) {

  /** Rows in the batch. */
  public int rowCount() {
    return indptr.length - 1;
  }

  /**
   * Reads the CSR arrays from two list columns of a batch.
   *
   * @throws IllegalArgumentException if the columns are missing, of other types, or a row's lists
   *     differ in length
   */
  public static SparseRows of(VectorSchemaRoot batch, String indexColumn, String valueColumn) {
    ListVector idx = list(batch, indexColumn);
    ListVector val = list(batch, valueColumn);
    if (!(idx.getDataVector() instanceof IntVector ic)) {
      throw new IllegalArgumentException("column '" + indexColumn + "' is not a list of int32");
    }
    if (!(val.getDataVector() instanceof Float4Vector vc)) {
      throw new IllegalArgumentException("column '" + valueColumn + "' is not a list of float32");
    }
    int rows = batch.getRowCount();
    int[] indptr = new int[rows + 1];
    for (int r = 0; r < rows; r++) {
      int n = idx.isNull(r) ? 0 : idx.getElementEndIndex(r) - idx.getElementStartIndex(r);
      int nv = val.isNull(r) ? 0 : val.getElementEndIndex(r) - val.getElementStartIndex(r);
      if (n != nv) {
        throw new IllegalArgumentException(
            "row " + r + " has " + n + " indices but " + nv + " values");
      }
      indptr[r + 1] = indptr[r] + n;
    }
    int[] indices = new int[indptr[rows]];
    float[] values = new float[indptr[rows]];
    for (int r = 0; r < rows; r++) {
      int n = indptr[r + 1] - indptr[r];
      if (n == 0) {
        continue;
      }
      int si = idx.getElementStartIndex(r);
      int sv = val.getElementStartIndex(r);
      // Bulk reads from the child buffers: no per-value virtual call.
      for (int i = 0; i < n; i++) {
        indices[indptr[r] + i] = ic.getDataBuffer().getInt((long) (si + i) * 4);
        values[indptr[r] + i] = vc.getDataBuffer().getFloat((long) (sv + i) * 4);
      }
    }
    return new SparseRows(indptr, indices, values);
  }

  /**
   * Dense rows: {@code rows × width} floats, row-major, zero where a row has no entry.
   *
   * @throws IllegalArgumentException if an index is outside [0, width)
   */
  public float[] dense(int width) {
    int rows = rowCount();
    float[] out = new float[Math.multiplyExact(rows, width)];
    for (int r = 0; r < rows; r++) {
      for (int k = indptr[r]; k < indptr[r + 1]; k++) {
        int c = indices[k];
        if (c < 0 || c >= width) {
          throw new IllegalArgumentException(
              "row " + r + " has index " + c + " outside [0, " + width + ")");
        }
        out[r * width + c] = values[k];
      }
    }
    return out;
  }

  private static ListVector list(VectorSchemaRoot batch, String name) {
    FieldVector v = batch.getVector(name);
    if (v == null) {
      throw new IllegalArgumentException("the batch has no column '" + name + "'");
    }
    if (!(v instanceof ListVector l)) {
      throw new IllegalArgumentException("column '" + name + "' is not a list");
    }
    return l;
  }
}
