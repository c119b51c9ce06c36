package dev.riffle.convert.h5ad;

import dev.riffle.convert.InputException;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import java.io.IOException;
import java.nio.file.Path;

/** Opens an AnnData matrix (X, a layer, raw/X) for reading by rows. */
final class Matrices {
  private Matrices() {}

  /**
   * @param rows the rows the matrix must have (the cells)
   * @param bucketBytes memory for a CSC transpose
   */
  static SparseRows open(
      String file, Node n, long rows, long bucketBytes, Path tempDir, BufferMeter meter)
      throws IOException {
    String where = n.getPath().replaceAll("^/", "");
    SparseRows m;
    if (n instanceof Dataset) {
      Dataset d = (Dataset) n;
      if (d.getDimensions().length != 2 || Values.arrowType(d) == null) {
        throw new InputException(file, where + " is not a 2-D numeric matrix");
      }
      m = new DenseRows(d);
    } else {
      Group g = (Group) n;
      String enc = Hdf.encoding(g);
      if (enc.isEmpty()) {
        // anndata < 0.8 marked sparse matrices with h5sparse_format only.
        String legacy = Hdf.attr(g, "h5sparse_format");
        enc = legacy == null ? "" : legacy + "_matrix";
      }
      Object shape = g.getAttribute("shape") == null ? null : g.getAttribute("shape").getData();
      if (!(enc.equals("csr_matrix") || enc.equals("csc_matrix"))
          || shape == null
          || java.lang.reflect.Array.getLength(shape) != 2) {
        throw new InputException(
            file,
            where
                + " is neither a dense matrix nor a CSR or CSC one (encoding '"
                + enc
                + "'), which riffle convert h5ad cannot read");
      }
      long r = Values.toLong(shape, 0);
      long c = Values.toLong(shape, 1);
      Dataset indptr = Frame.dataset(file, g, "indptr");
      Dataset indices = Frame.dataset(file, g, "indices");
      Dataset data = Frame.dataset(file, g, "data");
      if (Values.arrowType(data) == null) {
        throw new InputException(file, where + "/data is not numeric");
      }
      boolean csr = enc.equals("csr_matrix");
      checkPointers(file, indptr, indices, data, csr ? r : c, csr ? "row" : "column");
      m =
          csr
              ? new CsrRows(file, indptr, indices, data, r, c)
              : CscRows.transpose(file, indptr, indices, data, r, c, bucketBytes, tempDir, meter);
    }
    if (m.rows() != rows) {
      m.close();
      throw new InputException(
          file, where + " has " + m.rows() + " rows, but obs has " + rows + " cells");
    }
    return m;
  }

  /** Values of indptr read at once while checking it. */
  private static final int CHECK_SLICE = 1 << 16;

  /**
   * Checks a compressed matrix's pointers before anything trusts them: {@code lines + 1} of them
   * (rows for CSR, columns for CSC), from 0, never decreasing, never past the entries that indices
   * and data hold. A bad one would otherwise read a wrong slice or ask for gigabytes.
   *
   * @throws InputException naming indptr and the first bad row (or column)
   */
  static void checkPointers(
      String file, Dataset indptr, Dataset indices, Dataset data, long lines, String line)
      throws InputException {
    String ptr = path(indptr);
    long n = Hdf.length(indptr);
    if (indptr.getDimensions().length != 1 || n != lines + 1) {
      throw new InputException(
          file, ptr + " has " + n + " entries, but the shape has " + lines + " " + line + "s (+1)");
    }
    long nnz = Hdf.length(data);
    if (Hdf.length(indices) != nnz) {
      throw new InputException(
          file,
          path(indices)
              + " has "
              + Hdf.length(indices)
              + " entries, but "
              + path(data)
              + " has "
              + nnz);
    }
    long prev = 0;
    for (long start = 0; start < n; start += CHECK_SLICE) {
      int len = (int) Math.min(CHECK_SLICE, n - start);
      Object a = Hdf.slice(indptr, start, len);
      for (int k = 0; k < len; k++) {
        long i = start + k;
        long p = Values.toLong(a, k);
        String at = i == 0 ? "" : " (" + line + " " + (i - 1) + ")";
        if (i == 0 && p != 0) {
          throw new InputException(file, ptr + "[0] is " + p + ", not 0");
        }
        if (p < prev) {
          throw new InputException(
              file, ptr + "[" + i + "] = " + p + " is below the one before, " + prev + at);
        }
        if (p > nnz) {
          throw new InputException(
              file,
              ptr
                  + "["
                  + i
                  + "] = "
                  + p
                  + " runs past the "
                  + nnz
                  + " entries of "
                  + path(data)
                  + at);
        }
        prev = p;
      }
    }
  }

  /** A dataset's path without the leading slash, as anndata users name it: X/indptr. */
  static String path(Dataset d) {
    return d.getPath().replaceAll("^/", "");
  }
}
