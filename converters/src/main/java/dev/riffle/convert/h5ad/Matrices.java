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
      m =
          enc.equals("csr_matrix")
              ? new CsrRows(indptr, indices, data, r, c)
              : CscRows.transpose(indptr, indices, data, r, c, bucketBytes, tempDir, meter);
    }
    if (m.rows() != rows) {
      m.close();
      throw new InputException(
          file, where + " has " + m.rows() + " rows, but obs has " + rows + " cells");
    }
    return m;
  }
}
