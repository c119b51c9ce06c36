package dev.riffle.convert.h5ad;

import dev.riffle.convert.InputException;
import io.jhdf.api.Attribute;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Reads the columns of an AnnData dataframe (obs, var, raw/var): its index first, under {@code
 * indexName}, then the columns in the frame's column-order.
 */
final class Frame {
  private Frame() {}

  /**
   * @param taken names already used in the table: a column with one of them is prefixed with the
   *     frame's name and a dot
   * @param ids the next dictionary id, shared by the whole table
   */
  static List<Column> read(
      String file,
      Group g,
      String indexName,
      Set<String> taken,
      AtomicLong ids,
      BufferAllocator allocator)
      throws InputException {
    String where = g.getPath().replaceAll("^/", "");
    List<Column> out = new ArrayList<>();
    try {
      String index = Hdf.attr(g, "_index");
      Node ix = index == null ? null : Hdf.child(g, index);
      if (!(ix instanceof Dataset)) {
        throw new InputException(file, where + " has no index (its _index attribute names none)");
      }
      long rows = Hdf.length((Dataset) ix);
      out.add(column(file, g, index, indexName, rows, ids, allocator));
      taken.add(indexName);
      Set<String> names = new LinkedHashSet<>(Hdf.attrStrings(g, "column-order"));
      if (names.isEmpty()) {
        for (String c : g.getChildren().keySet()) {
          if (!c.equals(index) && !c.equals("__categories")) {
            names.add(c);
          }
        }
      }
      for (String c : names) {
        String name = taken.contains(c) ? where + "." + c : c;
        taken.add(name);
        out.add(column(file, g, c, name, rows, ids, allocator));
      }
      return out;
    } catch (InputException | RuntimeException e) {
      out.forEach(Column::close);
      throw e;
    }
  }

  private static Column column(
      String file,
      Group g,
      String child,
      String name,
      long rows,
      AtomicLong ids,
      BufferAllocator allocator)
      throws InputException {
    String where = Hdf.where(g) + "/" + child;
    Node n = Hdf.child(g, child);
    if (n == null) {
      throw new InputException(file, where + " is listed in column-order but missing");
    }
    String enc = Hdf.encoding(n);
    if (n instanceof Group) {
      Group c = (Group) n;
      switch (enc) {
        case "categorical":
          return new CategoricalColumn(
              name,
              sized(file, where, dataset(file, c, "codes"), rows),
              categories(dataset(file, c, "categories")),
              "true".equalsIgnoreCase(Hdf.attr(c, "ordered")),
              ids.getAndIncrement(),
              allocator);
        case "nullable-integer":
        case "nullable-boolean":
        case "nullable-string-array":
          return MaskedColumn.of(
              file,
              where,
              name,
              sized(file, where, dataset(file, c, "values"), rows),
              sized(file, where, dataset(file, c, "mask"), rows),
              enc);
        default:
          throw new InputException(
              file, where + " has the encoding '" + enc + "', which is not supported in a frame");
      }
    }
    Dataset d = sized(file, where, (Dataset) n, rows);
    Attribute legacy = d.getAttribute("categories");
    if (legacy != null) {
      return new CategoricalColumn(
          name,
          d,
          legacyCategories(file, g, child, legacy),
          "true".equalsIgnoreCase(Hdf.attr(d, "ordered")),
          ids.getAndIncrement(),
          allocator);
    }
    Column c = ArrayColumn.of(name, d);
    if (c == null) {
      throw new InputException(
          file,
          where
              + " has the unsupported type "
              + d.getDataType().getClass().getSimpleName()
              + " with shape "
              + java.util.Arrays.toString(d.getDimensions()));
    }
    return c;
  }

  /** anndata 0.7: the attribute is an object reference; its target is __categories/NAME. */
  private static Object legacyCategories(String file, Group g, String child, Attribute ref)
      throws InputException {
    Object r = ref.getData();
    if (r instanceof Long) {
      try {
        Node target = g.getHdfFile().getNodeByAddress((Long) r);
        if (target instanceof Dataset) {
          return categories((Dataset) target);
        }
      } catch (RuntimeException e) {
        // Fall back to the conventional place below.
      }
    }
    Node cats = Hdf.child(g, "__categories");
    if (cats instanceof Group && Hdf.child((Group) cats, child) instanceof Dataset) {
      return categories((Dataset) Hdf.child((Group) cats, child));
    }
    throw new InputException(
        file, Hdf.where(g) + "/" + child + " has a categories reference that cannot be resolved");
  }

  /**
   * A categorical's categories. Boolean ones (an HDF5 enum, which jhdf reads as "TRUE"/"FALSE")
   * become "True"/"False", as pandas shows them, like numbers become their decimal strings.
   */
  private static Object categories(Dataset d) {
    Object all = Hdf.all(d);
    if (d.getDataType() instanceof io.jhdf.object.datatype.EnumDataType
        && all instanceof String[]) {
      String[] s = ((String[]) all).clone();
      for (int i = 0; i < s.length; i++) {
        s[i] =
            "TRUE".equalsIgnoreCase(s[i])
                ? "True"
                : "FALSE".equalsIgnoreCase(s[i]) ? "False" : s[i];
      }
      return s;
    }
    return all;
  }

  static Dataset dataset(String file, Group g, String child) throws InputException {
    Node n = Hdf.child(g, child);
    if (!(n instanceof Dataset)) {
      throw new InputException(file, Hdf.where(g) + "/" + child + " is missing");
    }
    return (Dataset) n;
  }

  /** The dataset, if it has one value per row of the frame (a short one failed mid-conversion). */
  private static Dataset sized(String file, String where, Dataset d, long rows)
      throws InputException {
    long[] dims = d.getDimensionsAsLong();
    if (dims.length >= 1 && dims[0] != rows) {
      throw new InputException(
          file,
          where
              + (d.getName().equals(where.substring(where.lastIndexOf('/') + 1))
                  ? ""
                  : "/" + d.getName())
              + " has "
              + dims[0]
              + " values, but the frame's index has "
              + rows);
    }
    return d;
  }
}
