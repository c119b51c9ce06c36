package dev.riffle.convert;

import io.jhdf.HdfFile;
import io.jhdf.WritableHdfFile;
import io.jhdf.api.WritableGroup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Larger AnnData-shaped files for memory tests, written with jhdf (anndata's layout, without its
 * writer): {@code cells} rows of {@code nnz} entries each, row i's columns (i * 7 + k * 61) mod
 * genes made distinct and ascending, values i + k / 8.
 */
final class SyntheticH5ad {
  private SyntheticH5ad() {}

  static List<Object> rowIndices(int i, int genes, int nnz) {
    List<Object> out = new ArrayList<>();
    for (int c : columns(i, genes, nnz)) {
      out.add((long) c);
    }
    return out;
  }

  static List<Object> rowValues(int i, int nnz) {
    List<Object> out = new ArrayList<>();
    for (int k = 0; k < nnz; k++) {
      out.add(value(i, k));
    }
    return out;
  }

  private static float value(int i, int k) {
    return (i % 1000) + k / 8f;
  }

  /** Distinct ascending columns: a stride of 61 over genes (a multiple of nothing but 1). */
  private static int[] columns(int i, int genes, int nnz) {
    int[] c = new int[nnz];
    for (int k = 0; k < nnz; k++) {
      c[k] = (i * 7 + k * 61) % genes;
    }
    java.util.Arrays.sort(c);
    return c;
  }

  static void write(Path file, int cells, int genes, int nnz, boolean csc) {
    int total = cells * nnz;
    float[] data = new float[total];
    int[] indices = new int[total];
    int[] indptr;
    if (!csc) {
      indptr = new int[cells + 1];
      for (int i = 0; i < cells; i++) {
        int[] cols = columns(i, genes, nnz);
        for (int k = 0; k < nnz; k++) {
          indices[i * nnz + k] = cols[k];
          data[i * nnz + k] = value(i, k);
        }
        indptr[i + 1] = (i + 1) * nnz;
      }
    } else {
      int[] counts = new int[genes + 1];
      for (int i = 0; i < cells; i++) {
        for (int c : columns(i, genes, nnz)) {
          counts[c + 1]++;
        }
      }
      for (int c = 0; c < genes; c++) {
        counts[c + 1] += counts[c];
      }
      indptr = counts.clone();
      int[] cursor = counts.clone();
      for (int i = 0; i < cells; i++) {
        int[] cols = columns(i, genes, nnz);
        for (int k = 0; k < nnz; k++) {
          int at = cursor[cols[k]]++;
          indices[at] = i;
          data[at] = value(i, k);
        }
      }
    }
    write(file, cells, genes, csc, indptr, indices, data, nnz);
  }

  /** A file of the given X arrays as they are (they may be inconsistent, for error tests). */
  static void write(
      Path file,
      int cells,
      int genes,
      boolean csc,
      int[] indptr,
      int[] indices,
      float[] data,
      int nnz) {
    String[] names = new String[cells];
    for (int i = 0; i < cells; i++) {
      names[i] = "c" + i;
    }
    try (WritableHdfFile w = HdfFile.write(file)) {
      WritableGroup x = w.putGroup("X");
      x.putAttribute("encoding-type", csc ? "csc_matrix" : "csr_matrix");
      x.putAttribute("shape", new long[] {cells, genes});
      x.putDataset("data", data);
      x.putDataset("indices", indices);
      x.putDataset("indptr", indptr);
      WritableGroup obs = w.putGroup("obs");
      obs.putAttribute("encoding-type", "dataframe");
      obs.putAttribute("_index", "_index");
      obs.putAttribute("column-order", new String[] {"n"});
      obs.putDataset("_index", names);
      int[] n = new int[cells];
      java.util.Arrays.fill(n, nnz);
      obs.putDataset("n", n);
    }
  }
}
