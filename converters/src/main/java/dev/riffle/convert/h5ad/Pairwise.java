package dev.riffle.convert.h5ad;

import dev.riffle.convert.InputException;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A pairwise matrix (obsp: cell × cell, such as the neighbourhood graph's connectivities and
 * distances; varp: gene × gene) as a side table in coordinate form: one row per stored entry with
 * {@code row}, {@code col} (int64, positions in obs or var) and {@code value} (the stored dtype),
 * in the file's order (by row for CSR, by column for CSC). scipy builds the matrix back with {@code
 * coo_matrix((value, (row, col)), shape=(n, n))}.
 */
final class Pairwise {
  private static final int SLICE = 1 << 16;

  private Pairwise() {}

  /** The table's columns; {@code n} the matrix's side (cells or genes). */
  static List<Column> columns(String file, Group g, long n) throws InputException {
    String where = g.getPath().replaceAll("^/", "");
    String enc = Hdf.encoding(g);
    Object shape = g.getAttribute("shape") == null ? null : g.getAttribute("shape").getData();
    if (!(enc.equals("csr_matrix") || enc.equals("csc_matrix"))
        || shape == null
        || java.lang.reflect.Array.getLength(shape) != 2) {
      throw new InputException(file, where + " is not a CSR or CSC matrix");
    }
    if (Values.toLong(shape, 0) != n || Values.toLong(shape, 1) != n) {
      throw new InputException(
          file,
          where
              + " has shape ["
              + Values.toLong(shape, 0)
              + ", "
              + Values.toLong(shape, 1)
              + "], not ["
              + n
              + ", "
              + n
              + "]");
    }
    Dataset indptr = Frame.dataset(file, g, "indptr");
    Dataset indices = Frame.dataset(file, g, "indices");
    Dataset data = Frame.dataset(file, g, "data");
    ArrowType valueType = Values.arrowType(data);
    if (valueType == null || data.getDimensions().length != 1) {
      throw new InputException(file, Matrices.path(data) + " is not numeric");
    }
    boolean csr = enc.equals("csr_matrix");
    Matrices.checkPointers(file, indptr, indices, data, n, csr ? "row" : "column");
    checkIndices(file, indices, n);
    Column lines = new PointerColumn(csr ? "row" : "col", indptr);
    Column other = new IndexColumn(csr ? "col" : "row", indices);
    List<Column> out = new ArrayList<>();
    out.add(csr ? lines : other);
    out.add(csr ? other : lines);
    out.add(new IndexColumn("value", data, valueType));
    return out;
  }

  /** Entries stored: the table's rows. */
  static long entries(Group g) {
    return Hdf.length((Dataset) Hdf.child(g, "data"));
  }

  private static void checkIndices(String file, Dataset indices, long n) throws InputException {
    long nnz = Hdf.length(indices);
    for (long start = 0; start < nnz; start += SLICE) {
      int len = (int) Math.min(SLICE, nnz - start);
      Object a = Hdf.slice(indices, start, len);
      for (int k = 0; k < len; k++) {
        long x = Values.toLong(a, k);
        if (x < 0 || x >= n) {
          throw new InputException(
              file,
              Matrices.path(indices)
                  + "["
                  + (start + k)
                  + "] = "
                  + x
                  + " is outside [0, "
                  + n
                  + ")");
        }
      }
    }
  }

  /** A 1-D dataset as a column of the given type (int64 for indices, the stored one for data). */
  private static final class IndexColumn extends Column {
    private final Dataset d;
    private final ArrowType type;

    IndexColumn(String name, Dataset d) {
      this(name, d, new ArrowType.Int(64, true));
    }

    IndexColumn(String name, Dataset d, ArrowType type) {
      super(name);
      this.d = d;
      this.type = type;
    }

    @Override
    Field field() {
      return new Field(name, FieldType.notNullable(type), List.of());
    }

    @Override
    void fill(FieldVector v, long start, int n) {
      Object a = Hdf.slice(d, start, n);
      for (int i = 0; i < n; i++) {
        Values.set(v, i, a, i);
      }
      v.setValueCount(n);
    }
  }

  /**
   * The row (CSR) or column (CSC) of each entry, from the pointers: entries are asked for in
   * increasing order, so the current line and a window of indptr are kept between batches.
   */
  private static final class PointerColumn extends Column {
    private final Dataset indptr;
    private long line;
    private long windowStart = -1;
    private Object window;
    private int windowLength;

    PointerColumn(String name, Dataset indptr) {
      super(name);
      this.indptr = indptr;
    }

    @Override
    Field field() {
      return new Field(name, FieldType.notNullable(new ArrowType.Int(64, true)), List.of());
    }

    private long ptr(long i) {
      if (windowStart < 0 || i < windowStart || i >= windowStart + windowLength) {
        windowStart = i;
        windowLength = (int) Math.min(SLICE, Hdf.length(indptr) - i);
        window = Hdf.slice(indptr, i, windowLength);
      }
      return Values.toLong(window, (int) (i - windowStart));
    }

    @Override
    void fill(FieldVector v, long start, int n) {
      if (line > 0 && ptr(line) > start) {
        line = 0;
      }
      for (int i = 0; i < n; i++) {
        // indptr was checked: it ends at the entry count, so this stops within the matrix.
        while (ptr(line + 1) <= start + i) {
          line++;
        }
        Values.setLong(v, i, line);
      }
      v.setValueCount(n);
    }
  }
}
