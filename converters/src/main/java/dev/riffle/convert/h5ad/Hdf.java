package dev.riffle.convert.h5ad;

import io.jhdf.api.Attribute;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import java.lang.reflect.Array;
import java.util.List;

/** Small jhdf helpers for AnnData's layout. */
final class Hdf {
  private Hdf() {}

  /** A string attribute, or null. */
  static String attr(Node n, String name) {
    Attribute a = n.getAttribute(name);
    if (a == null) {
      return null;
    }
    Object d = a.getData();
    if (d instanceof String) {
      return (String) d;
    }
    if (d instanceof String[] && ((String[]) d).length == 1) {
      return ((String[]) d)[0];
    }
    return String.valueOf(d);
  }

  /** A string-array attribute; empty if absent or not strings (anndata writes [] as floats). */
  static List<String> attrStrings(Node n, String name) {
    Attribute a = n.getAttribute(name);
    if (a == null) {
      return List.of();
    }
    Object d = a.getData();
    if (d instanceof String[]) {
      return List.of((String[]) d);
    }
    if (d instanceof String) {
      return List.of((String) d);
    }
    return List.of();
  }

  /** The AnnData encoding of a node, or "" (legacy files have none). */
  static String encoding(Node n) {
    String e = attr(n, "encoding-type");
    return e == null ? "" : e;
  }

  /**
   * A child, or null. A name with '/' is a path: h5py (and so anndata) stores a column named "a/b"
   * as the dataset b in a group a, and reads it back under its whole name.
   */
  static Node child(Group g, String name) {
    Node n = g.getChildren().get(name);
    if (n != null || name.indexOf('/') < 0) {
      return n;
    }
    Node at = g;
    for (String part : name.split("/")) {
      if (part.isEmpty()) {
        continue;
      }
      if (!(at instanceof Group)) {
        return null;
      }
      at = ((Group) at).getChildren().get(part);
    }
    return at == g ? null : at;
  }

  /** A group's path for messages: "obs", "raw/var". */
  static String where(Group g) {
    return g.getPath().replaceAll("^/+|/+$", "");
  }

  static long length(Dataset d) {
    long[] dims = d.getDimensionsAsLong();
    return dims.length == 0 ? 1 : dims[0];
  }

  /** Elements [start, start + n) of a 1-D dataset, as jhdf's primitive or String array. */
  static Object slice(Dataset d, long start, int n) {
    if (n == 0) {
      return Array.newInstance(d.getJavaType(), 0);
    }
    return FilterMasks.read(d, new long[] {start}, new int[] {n});
  }

  /** The whole dataset, as jhdf's getData gives it, honouring chunks that skipped a filter. */
  static Object all(Dataset d) {
    return FilterMasks.readAll(d);
  }

  /** Rows [start, start + n) of a 2-D dataset, as a flat row-major primitive array. */
  static Object rows(Dataset d, long start, int n) {
    int cols = d.getDimensions()[1];
    Class<?> t = d.getJavaType();
    if (n == 0 || cols == 0) {
      return Array.newInstance(t, 0);
    }
    Object rows = FilterMasks.read(d, new long[] {start, 0}, new int[] {n, cols});
    Object flat = Array.newInstance(t, n * cols);
    for (int i = 0; i < n; i++) {
      System.arraycopy(Array.get(rows, i), 0, flat, i * cols, cols);
    }
    return flat;
  }

  /** One line for a message. */
  static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return m.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
  }
}
