package dev.riffle.convert.h5ad;

import dev.riffle.convert.ConvertOptions;
import io.jhdf.HdfFile;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What an AnnData file holds and how it maps onto the dataset (see {@link H5adConverter}): the
 * per-cell columns and matrices in schema order, the side tables, uns and what was left out.
 */
final class AnnDataMapping implements AutoCloseable {
  /** A sparse matrix in the dataset: two list fields, {@code prefix + "indices"/"values"}. */
  record Matrix(String prefix, SparseRows rows, ArrowType valueType) {
    String indicesName() {
      return prefix + "indices";
    }

    String valuesName() {
      return prefix + "values";
    }

    /** Bytes of one entry in a batch. */
    int entryBytes() {
      return 4 + Values.width(valueType);
    }
  }

  long rows;
  long vars;
  String xEncoding = "none";

  /** numpy names of X's dtype in the file and as stored, or null without X. */
  String xFileDtype;

  String xDtype;

  /** In schema order: a Column or a Matrix. */
  final List<Object> slots = new ArrayList<>();

  final Map<String, List<Column>> tables = new LinkedHashMap<>();
  final Map<String, Long> tableRows = new LinkedHashMap<>();
  String uns;
  final List<String> skipped = new ArrayList<>();

  private AnnDataMapping() {}

  static AnnDataMapping read(
      String file,
      HdfFile h5,
      BufferAllocator allocator,
      ConvertOptions options,
      XDtype xType,
      Path tempDir,
      BufferMeter meter)
      throws IOException {
    AnnDataMapping l = new AnnDataMapping();
    try {
      l.load(file, h5, allocator, options, xType, tempDir, meter);
      return l;
    } catch (IOException | RuntimeException e) {
      l.close();
      throw e;
    }
  }

  private void load(
      String file,
      HdfFile h5,
      BufferAllocator allocator,
      ConvertOptions options,
      XDtype xType,
      Path tempDir,
      BufferMeter meter)
      throws IOException {
    Group obs = (Group) Hdf.child(h5, "obs");
    long bucket = options.batchBytes();
    Set<String> taken = new HashSet<>(List.of("obs_names", "indices", "values"));
    Group layers = group(h5, "layers");
    Group obsm = group(h5, "obsm");
    for (String k : children(layers)) {
      taken.add("layer_" + k + "_indices");
      taken.add("layer_" + k + "_values");
    }
    for (String k : children(obsm)) {
      taken.add("obsm_" + k);
    }
    taken.add("raw_indices");
    taken.add("raw_values");
    Set<String> obsTaken = new HashSet<>(taken);
    obsTaken.remove("obs_names");
    AtomicLong ids = new AtomicLong(1);
    List<Column> obsColumns = Frame.read(file, obs, "obs_names", obsTaken, ids, allocator);
    // Added first so that close() frees their dictionaries whatever fails next.
    obsColumns.forEach(this::add);
    rows = Hdf.length(frameIndex(obs));
    Node x = Hdf.child(h5, "X");
    if (x != null) {
      SparseRows xs = Matrices.open(file, x, rows, bucket, tempDir, meter);
      xEncoding = x instanceof Dataset ? "dense" : Hdf.encoding(x).replace("_matrix", "");
      vars = xs.cols();
      ArrowType t = xType.apply(xs.valueType());
      xFileDtype = Values.dtypeName(xs.valueType());
      xDtype = Values.dtypeName(t);
      slots.add(1, new Matrix("", xs, t));
    }
    for (String k : children(obsm)) {
      Node n = Hdf.child(obsm, k);
      MatrixColumn c = n instanceof Dataset ? MatrixColumn.of("obsm_" + k, (Dataset) n) : null;
      if (c == null || ((Dataset) n).getDimensionsAsLong()[0] != rows) {
        skipped.add("obsm/" + k + " (" + describe(n) + ")");
      } else {
        add(c);
      }
    }
    for (String k : children(layers)) {
      SparseRows m = Matrices.open(file, Hdf.child(layers, k), rows, bucket, tempDir, meter);
      slots.add(new Matrix("layer_" + k + "_", m, m.valueType()));
    }
    Group raw = group(h5, "raw");
    if (raw != null && Hdf.child(raw, "X") != null) {
      SparseRows m = Matrices.open(file, Hdf.child(raw, "X"), rows, bucket, tempDir, meter);
      slots.add(new Matrix("raw_", m, m.valueType()));
    }
    Group var = group(h5, "var");
    if (var != null) {
      List<Column> cols =
          Frame.read(file, var, "var_names", new HashSet<>(), new AtomicLong(1), allocator);
      tables.put("var", cols);
      long n = Hdf.length(frameIndex(var));
      tableRows.put("var", n);
      Group varm = group(h5, "varm");
      for (String k : children(varm)) {
        Node v = Hdf.child(varm, k);
        MatrixColumn c = v instanceof Dataset ? MatrixColumn.of("varm_" + k, (Dataset) v) : null;
        if (c == null || ((Dataset) v).getDimensionsAsLong()[0] != n) {
          skipped.add("varm/" + k + " (" + describe(v) + ")");
        } else {
          cols.add(c);
        }
      }
    }
    if (raw != null && group(raw, "var") != null) {
      Group rv = group(raw, "var");
      tables.put(
          "raw_var",
          Frame.read(file, rv, "var_names", new HashSet<>(), new AtomicLong(1), allocator));
      tableRows.put("raw_var", Hdf.length(frameIndex(rv)));
    }
    Long genes = x != null ? Long.valueOf(vars) : tableRows.get("var");
    if (x == null && genes != null) {
      // No X: the shape's second number is var's length, as anndata reports it.
      vars = genes;
    }
    for (String pairwise : List.of("obsp", "varp")) {
      Long side = pairwise.equals("obsp") ? Long.valueOf(rows) : genes;
      for (String k : children(group(h5, pairwise))) {
        Node p = Hdf.child(group(h5, pairwise), k);
        if (!(p instanceof Group) || side == null) {
          skipped.add(
              pairwise + "/" + k + " (" + describe(p) + "; only sparse ones become tables)");
          continue;
        }
        String name = tableName(pairwise + "_" + k);
        tables.put(name, Pairwise.columns(file, (Group) p, side));
        tableRows.put(name, Pairwise.entries((Group) p));
      }
    }
    Group u = group(h5, "uns");
    if (u != null) {
      uns = Uns.json(u, skipped);
      if (uns.length() > (1 << 20)) {
        skipped.add("uns (" + uns.length() + " bytes of JSON, over the 1 MiB kept)");
        uns = null;
      }
    }
  }

  /** A side table's name from a key: what a file name and a metadata key can hold, unique. */
  private String tableName(String key) {
    String base = key.replaceAll("[^A-Za-z0-9_.-]", "_");
    String name = base;
    for (int i = 2; tables.containsKey(name); i++) {
      name = base + "_" + i;
    }
    return name;
  }

  private void add(Column c) {
    slots.add(c);
  }

  private static Dataset frameIndex(Group frame) {
    return (Dataset) Hdf.child(frame, Hdf.attr(frame, "_index"));
  }

  private static String describe(Node n) {
    if (n instanceof Dataset) {
      return "shape " + java.util.Arrays.toString(((Dataset) n).getDimensions());
    }
    String enc = Hdf.encoding(n);
    return enc.isEmpty() ? "a group" : enc;
  }

  private static Group group(Group parent, String name) {
    Node n = parent == null ? null : Hdf.child(parent, name);
    return n instanceof Group ? (Group) n : null;
  }

  private static List<String> children(Group g) {
    return g == null ? List.of() : new ArrayList<>(g.getChildren().keySet());
  }

  Schema schema() {
    List<Field> fields = new ArrayList<>();
    for (Object s : slots) {
      if (s instanceof Column) {
        fields.add(((Column) s).field());
      } else {
        Matrix m = (Matrix) s;
        fields.add(list(m.indicesName(), new ArrowType.Int(32, true)));
        fields.add(list(m.valuesName(), m.valueType()));
      }
    }
    return new Schema(fields);
  }

  private static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.notNullable(ArrowType.List.INSTANCE),
        List.of(new Field("item", FieldType.notNullable(item), List.of())));
  }

  DictionaryProvider dictionaries() {
    DictionaryProvider.MapDictionaryProvider p = new DictionaryProvider.MapDictionaryProvider();
    for (Object s : slots) {
      if (s instanceof Column && ((Column) s).dictionary() != null) {
        p.put(((Column) s).dictionary());
      }
    }
    return p;
  }

  /** Each matrix's indices and values, stored together. */
  List<List<String>> groups() {
    List<List<String>> out = new ArrayList<>();
    for (Object s : slots) {
      if (s instanceof Matrix) {
        out.add(List.of(((Matrix) s).indicesName(), ((Matrix) s).valuesName()));
      }
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (Object s : slots) {
      try {
        if (s instanceof Column) {
          ((Column) s).close();
        } else {
          ((Matrix) s).rows().close();
        }
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    tables.values().forEach(cols -> cols.forEach(Column::close));
    if (first != null) {
      throw first;
    }
  }
}
