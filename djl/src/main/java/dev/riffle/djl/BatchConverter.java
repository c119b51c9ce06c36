// Why this file stays whole (over 500 lines): see "Why this file is a little long" in the class
// comment.
package dev.riffle.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.riffle.dataset.Dataset;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeNames;
import dev.riffle.loader.pipeline.BatchRows;
import dev.riffle.loader.pipeline.SamplerColumns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Turns a minibatch's rows into NDArrays: each value is copied exactly once, from the Arrow buffers
 * where the rows lie (the loader's fetch, not a gathered batch: {@link BatchRows}) into a direct
 * buffer of {@link BatchBuffers} that the engine then wraps without copying ({@code
 * NDManager.create} of a direct native-order buffer: {@code torch::from_blob} on CPU, the buffer
 * held by the array). The copies belong to the batch: they go back to the pool when its manager
 * closes, and the arrays are not valid after that.
 *
 * <p>All checks of the columns against the features happen in the constructor, once, with the
 * column's name in the message; a batch can then only fail on its values (a null, an index out of
 * range), and that message names the column and the global row.
 *
 * <p>Why this file is a little long: each feature kind's checks and copy belong together, and the
 * sparse one has three forms (dense, CSR, one row) over the same raw reads.
 */
final class BatchConverter {
  private final List<Feature> features;
  private final String label;
  // Every label must lie in [0, classes): the number given, or a categorical column's codes.
  private final long classes;
  private final String classesFrom;
  private final Normalization normalization;
  private final List<String> columns;

  /**
   * @param dataset the dataset, to check the columns against its schema
   * @param classes the label's number of classes, or 0 for a categorical label's codes
   * @throws IllegalArgumentException naming the column that is missing or of an unsupported type,
   *     or an integer label without its number of classes
   * @throws UncheckedIOException if a categorical label's dictionary cannot be read
   */
  BatchConverter(
      Dataset dataset,
      List<Feature> features,
      String label,
      long classes,
      Normalization normalization) {
    RiffleSchema schema = dataset.schema();
    String where = dataset.storage().uri();
    if (features.isEmpty()) {
      throw new IllegalArgumentException("name at least one feature column");
    }
    this.features = List.copyOf(features);
    this.label = label;
    this.normalization = normalization;
    Set<String> all = new LinkedHashSet<>();
    for (Feature f : features) {
      for (String c : f.columns()) {
        if (!all.add(c)) {
          throw new IllegalArgumentException("column '" + c + "' is named twice as a feature");
        }
        check(schema, where, f, c);
      }
    }
    if (label != null) {
      Field field = field(schema, where, label);
      if (field.getDictionary() == null && !(field.getType() instanceof ArrowType.Int)) {
        throw SamplerColumns.notALabel(schema, label);
      }
      if (all.contains(label)) {
        throw new IllegalArgumentException(
            "column '" + label + "' is both a feature and the label");
      }
      all.add(label);
      this.classes = classes > 0 ? classes : codes(dataset, field);
      this.classesFrom = classes > 0 ? "the number of classes given" : "its dictionary's codes";
    } else {
      this.classes = 0;
      this.classesFrom = null;
    }
    this.columns = List.copyOf(all);
  }

  /** A categorical label's number of codes (its dictionary's size); an integer label has none. */
  private static long codes(Dataset dataset, Field field) {
    if (field.getDictionary() == null) {
      throw new IllegalArgumentException(
          "label column '"
              + field.getName()
              + "' holds integers, not categorical codes: give its number of classes, label(\""
              + field.getName()
              + "\", classes), so that each label is checked against it");
    }
    try {
      Dictionary d = dataset.dictionaries().lookup(field.getDictionary().getId());
      if (d == null) {
        throw new IllegalArgumentException(
            "label column '"
                + field.getName()
                + "' is categorical but "
                + dataset.storage().uri()
                + " has no dictionary for it");
      }
      return d.getVector().getValueCount();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "reading the dictionary of label column '"
              + field.getName()
              + "' from "
              + dataset.storage().uri()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The columns a batch must hold: the features', then the label. */
  List<String> columns() {
    return columns;
  }

  private static Field field(RiffleSchema schema, String where, String column) {
    int i = schema.fieldIndex(column);
    if (i < 0) {
      List<String> names = new ArrayList<>();
      schema.fields().forEach(f -> names.add(f.getName()));
      throw new IllegalArgumentException(
          "no column '" + column + "' in " + where + "; columns are " + names);
    }
    return schema.fields().get(i);
  }

  private static void check(RiffleSchema schema, String where, Feature feature, String column) {
    Field field = field(schema, where, column);
    if (field.getDictionary() != null) {
      throw new IllegalArgumentException(
          "column '"
              + column
              + "' is categorical; a feature must be numeric (use it as the label, or one-hot"
              + " encode it in the model)");
    }
    ArrowType t = field.getType();
    String problem = null;
    if (feature instanceof Feature.Dense) {
      if (!numeric(t)) {
        problem = "a dense feature needs an integer or floating-point column";
      }
    } else if (feature instanceof Feature.Vector) {
      // Lists too: Spark arrays and Parquet lists of one length (checked per row) are vectors.
      if (!(t instanceof ArrowType.FixedSizeList
              || t instanceof ArrowType.List
              || t instanceof ArrowType.LargeList)
          || !numeric(child(field))) {
        problem = "a vector feature needs a fixed-size list, or lists of one length, of numbers";
      }
    } else if (feature instanceof Feature.Sparse s && column.equals(s.indices())) {
      if (!(t instanceof ArrowType.List)
          || !(child(field) instanceof ArrowType.Int i && i.getBitWidth() == 32)) {
        problem = "the indices of a sparse feature must be a list of int32";
      }
    } else if (!(t instanceof ArrowType.List) || !numeric(child(field))) {
      problem = "the values of a sparse feature must be a list of integers or floats";
    }
    if (problem != null) {
      throw new IllegalArgumentException(
          "column '" + column + "' is " + TypeNames.of(schema, column) + "; " + problem);
    }
  }

  private static ArrowType child(Field f) {
    return f.getChildren().size() == 1 ? f.getChildren().get(0).getType() : null;
  }

  private static boolean numeric(ArrowType t) {
    return t instanceof ArrowType.Int
        || (t instanceof ArrowType.FloatingPoint fp
            && fp.getPrecision() != FloatingPointPrecision.HALF);
  }

  /** One batch's arrays: features, then labels. */
  record Converted(NDList data, NDList labels) {}

  /**
   * Converts a minibatch's rows, wherever they lie (a loader's fetch, a take's result). Copies go
   * into buffers of {@code buffers}, given back when {@code manager} closes.
   *
   * @param single one row without the batch dimension (a {@code RandomAccessDataset} record)
   */
  Converted convert(BatchRows src, boolean single, NDManager manager, BatchBuffers buffers) {
    Out out = new Out(manager, buffers, single, src.rowCount());
    NDList data = new NDList();
    try {
      for (Feature f : features) {
        if (f instanceof Feature.Dense d) {
          dense(src, d, out, data);
        } else if (f instanceof Feature.Vector v) {
          vector(src, v, out, data);
        } else {
          sparse(src, (Feature.Sparse) f, out, data);
        }
      }
      NDList labels = new NDList();
      if (label != null) {
        labels.add(labels(src, out));
      }
      return new Converted(data, labels);
    } catch (RuntimeException e) {
      data.close();
      throw e;
    }
  }

  /** Takes the copies' buffers and wraps them as arrays of the manager. */
  private static final class Out {
    final NDManager manager;
    final BatchBuffers buffers;
    final boolean single;
    final int rows;
    private BatchBuffers.Lease lease;

    Out(NDManager manager, BatchBuffers buffers, boolean single, int rows) {
      this.manager = manager;
      this.buffers = buffers;
      this.single = single;
      this.rows = rows;
    }

    /**
     * A buffer of {@code bytes}, back to the pool when the manager closes. Not zeroed: the caller
     * writes every byte the array covers.
     */
    ArrowBuf buffer(long bytes) {
      if (bytes > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "a batch array of " + bytes + " bytes is over 2 GiB: use a smaller batch");
      }
      if (lease == null) {
        lease = buffers.lease(manager);
      }
      return lease.take(bytes);
    }

    /** The shape of a per-row array of {@code width} (no batch dimension for a single row). */
    Shape rowsBy(long width) {
      return single ? new Shape(width) : new Shape(rows, width);
    }

    NDArray wrap(ArrowBuf b, long offset, long bytes, Shape shape, DataType type) {
      if (bytes == 0) {
        return manager.zeros(shape, type);
      }
      // Arrow's view is big-endian by default, the data native: said so for an engine that reads
      // through the view (PyTorch on CPU takes the address, torch::from_blob).
      return manager.create(
          b.nioBuffer(offset, (int) bytes).order(ByteOrder.nativeOrder()), shape, type);
    }
  }

  /** A column's vector in each part, looked up once a batch. */
  private static FieldVector[] columnOf(BatchRows src, String column) {
    List<VectorSchemaRoot> parts = src.parts();
    FieldVector[] v = new FieldVector[parts.size()];
    for (int p = 0; p < v.length; p++) {
      v[p] = parts.get(p).getVector(column);
    }
    return v;
  }

  private static String rowName(BatchRows src, int k) {
    return "row " + src.globalRow(k);
  }

  /**
   * Checks that no row is null, by row: a part is a fetch's chunk, far larger than the minibatch,
   * so counting its nulls would cost more than the rows.
   */
  private static void noNulls(FieldVector[] v, String column, BatchRows src) {
    for (int k = 0; k < src.rowCount(); k++) {
      if (v[src.part(k)].isNull(src.row(k))) {
        throw new IllegalArgumentException(
            "column '" + column + "' is null at " + rowName(src, k) + "; features cannot be null");
      }
    }
  }

  private static double number(FieldVector v, int i) {
    if (v instanceof Float4Vector f) {
      return f.get(i);
    }
    if (v instanceof Float8Vector f) {
      return f.get(i);
    }
    return ((BaseIntVector) v).getValueAsLong(i);
  }

  private void dense(BatchRows src, Feature.Dense d, Out out, NDList data) {
    int m = out.rows;
    int k = d.columns().size();
    ArrowBuf b = out.buffer(4L * m * k);
    for (int c = 0; c < k; c++) {
      String name = d.columns().get(c);
      FieldVector[] v = columnOf(src, name);
      noNulls(v, name, src);
      for (int i = 0; i < m; i++) {
        b.setFloat(4L * ((long) i * k + c), (float) number(v[src.part(i)], src.row(i)));
      }
    }
    data.add(out.wrap(b, 0, 4L * m * k, out.rowsBy(k), DataType.FLOAT32));
  }

  private void vector(BatchRows src, Feature.Vector f, Out out, NDList data) {
    FieldVector[] lists = columnOf(src, f.column());
    int m = out.rows;
    noNulls(lists, f.column(), src);
    int d = vectorWidth(src, m, f.column(), lists);
    ArrowBuf b = out.buffer(4L * m * d);
    for (int i = 0; i < m; i++) {
      int r = src.row(i);
      FieldVector v = lists[src.part(i)];
      FieldVector child = items(v);
      int first = itemStart(v, r, d);
      if (child instanceof Float4Vector
          && (!child.getField().isNullable()
              || allValid(child.getValidityBuffer().memoryAddress(), first, d))) {
        // float32 items without nulls: the row's bytes as they are.
        b.setBytes(4L * i * d, child.getDataBuffer(), 4L * first, 4L * d);
        continue;
      }
      for (int j = 0; j < d; j++) {
        int at = first + j;
        if (child.isNull(at)) {
          throw new IllegalArgumentException(
              "column '" + f.column() + "' has a null element at " + rowName(src, i));
        }
        b.setFloat(4L * ((long) i * d + j), (float) number(child, at));
      }
    }
    data.add(out.wrap(b, 0, 4L * m * d, out.rowsBy(d), DataType.FLOAT32));
  }

  /**
   * The width of a vector feature: a fixed-size list's size; for lists, the length of the batch's
   * first row, which every row must have, and every batch the same as the first one converted.
   */
  private int vectorWidth(BatchRows src, int m, String column, FieldVector[] lists) {
    if (lists[0] instanceof FixedSizeListVector fl) {
      return fl.getListSize();
    }
    int d = -1;
    for (int i = 0; i < m; i++) {
      FieldVector v = lists[src.part(i)];
      int r = src.row(i);
      int n =
          v instanceof LargeListVector l
              ? (int) (l.getElementEndIndex(r) - l.getElementStartIndex(r))
              : ((ListVector) v).getElementEndIndex(r) - ((ListVector) v).getElementStartIndex(r);
      d = d < 0 ? n : d;
      int want = listWidth.get() >= 0 ? listWidth.get() : d;
      if (n != want) {
        throw new IllegalArgumentException(
            "column '"
                + column
                + "' has a list of "
                + n
                + " items at "
                + rowName(src, i)
                + " where the vector feature has "
                + want
                + "; a vector feature needs lists of one length");
      }
    }
    listWidth.compareAndSet(-1, d);
    return d;
  }

  /** The items of a fixed-size list, list or large list vector. */
  private static FieldVector items(FieldVector v) {
    if (v instanceof FixedSizeListVector f) {
      return f.getDataVector();
    }
    return v instanceof LargeListVector l ? l.getDataVector() : ((ListVector) v).getDataVector();
  }

  /** Where row {@code r}'s {@code d} items start in a list vector's items. */
  private static int itemStart(FieldVector v, int r, int d) {
    if (v instanceof FixedSizeListVector) {
      return r * d;
    }
    return v instanceof LargeListVector l
        ? (int) l.getElementStartIndex(r)
        : ((ListVector) v).getElementStartIndex(r);
  }

  /** The length of every list of a vector feature over lists, once a batch has set it; else -1. */
  private final java.util.concurrent.atomic.AtomicInteger listWidth =
      new java.util.concurrent.atomic.AtomicInteger(-1);

  /**
   * A sparse feature's columns in each part, and each row's entries: row k's are [is[k], is[k] +
   * len[k]) of its part's indices and [vs[k], vs[k] + len[k]) of its values, checked against the
   * buffers before any raw read (the loops that copy then touch raw memory only).
   */
  private static final class SparseRows {
    final FieldVector[] vc;
    // Each part's raw addresses: index data, and float32 value data (0 for other value types).
    final long[] ia;
    final long[] va;
    final int[] len;
    final int[] is;
    final int[] vs;
    long nnz;

    SparseRows(BatchRows src, Feature.Sparse s) {
      List<VectorSchemaRoot> roots = src.parts();
      int parts = roots.size();
      vc = new FieldVector[parts];
      ia = new long[parts];
      va = new long[parts];
      // Each part's lists by address, read once a batch: the row loop below then reads raw memory
      // with one check a row instead of Arrow's checked accessors (a reference count and a range
      // check on every offset and bit).
      ListVector[] idx = new ListVector[parts];
      ListVector[] val = new ListVector[parts];
      long[] io = new long[parts];
      long[] iv = new long[parts];
      long[] vo = new long[parts];
      long[] vv = new long[parts];
      for (int p = 0; p < parts; p++) {
        idx[p] = (ListVector) roots.get(p).getVector(s.indices());
        val[p] = (ListVector) roots.get(p).getVector(s.values());
        vc[p] = val[p].getDataVector();
        ia[p] = idx[p].getDataVector().getDataBuffer().memoryAddress();
        va[p] = rawFloats(vc[p]);
        io[p] = idx[p].getOffsetBuffer().memoryAddress();
        iv[p] = idx[p].getValidityBuffer().memoryAddress();
        vo[p] = val[p].getOffsetBuffer().memoryAddress();
        vv[p] = val[p].getValidityBuffer().memoryAddress();
      }
      int m = src.rowCount();
      len = new int[m];
      is = new int[m];
      vs = new int[m];
      for (int k = 0; k < m; k++) {
        int p = src.part(k);
        int r = src.row(k);
        if (r < 0 || r >= idx[p].getValueCount() || r >= val[p].getValueCount()) {
          throw new IllegalStateException(
              "row " + r + " is outside part " + p + " at " + rowName(src, k));
        }
        int n = rawLength(io[p], iv[p], r);
        int nv = rawLength(vo[p], vv[p], r);
        if (n != nv) {
          throw new IllegalArgumentException(
              "columns '"
                  + s.indices()
                  + "' and '"
                  + s.values()
                  + "' differ in length at "
                  + rowName(src, k)
                  + " ("
                  + n
                  + " indices, "
                  + nv
                  + " values)");
        }
        len[k] = n;
        is[k] = MemoryUtil.getInt(io[p] + 4L * r);
        vs[k] = MemoryUtil.getInt(vo[p] + 4L * r);
        nnz += n;
        extents(is[k], n, idx[p].getDataVector(), s.indices(), src, k);
        extents(vs[k], n, vc[p], s.values(), src, k);
        // The field's nullability, not getNullCount(): that scans the whole part's bitmap, and a
        // part is a fetch's chunk, far larger than the row.
        if (vc[p].getField().isNullable()
            && !allValid(vc[p].getValidityBuffer().memoryAddress(), vs[k], n)) {
          throw new IllegalArgumentException(
              "column '" + s.values() + "' has a null value at " + rowName(src, k));
        }
      }
    }

    /** Row r's item count (0 if null), from its list's offsets and validity by address. */
    private static int rawLength(long offsets, long validity, int r) {
      if (((MemoryUtil.getByte(validity + (r >>> 3)) >>> (r & 7)) & 1) == 0) {
        return 0;
      }
      return MemoryUtil.getInt(offsets + 4L * r + 4) - MemoryUtil.getInt(offsets + 4L * r);
    }
  }

  private void sparse(BatchRows src, Feature.Sparse s, Out out, NDList data) {
    SparseRows rows = new SparseRows(src, s);
    if (s.csr()) {
      csr(s, rows, src, out, data);
      return;
    }
    int m = out.rows;
    int width = s.width();
    long rowBytes = 4L * width;
    // Beyond the array's m rows: one row of zeros, copied over each row before its values are
    // placed (the JIT's copy stub is vector-wide, where setMemory stores a word at a time), and one
    // float that takes the write of an index out of range (the row then fails, below).
    ArrowBuf b = out.buffer(rowBytes * (m + 1) + 4);
    long oa = b.memoryAddress();
    long zeros = oa + rowBytes * m;
    long sink = zeros + rowBytes;
    b.setZero(rowBytes * m, rowBytes);
    // One pass a row, while it is in cache: zero it, then place its values (scaled to the target
    // sum in the same pass; the log is left to the engine, below). float32 values are read raw,
    // anything else as a number.
    boolean scale = normalization.scaleRows();
    int last = width - 1;
    for (int k = 0; k < m; k++) {
      int p = src.part(k);
      int n = rows.len[k];
      long ie = rows.ia[p] + 4L * rows.is[k];
      int sv = rows.vs[k];
      long va = rows.va[p];
      FieldVector vc = rows.vc[p];
      long row = oa + rowBytes * k;
      MemoryUtil.copyMemory(zeros, row, rowBytes);
      float f = 1f;
      if (scale) {
        double sum = rowSum(vc, va, sv, n);
        f = sum == 0 ? 0f : (float) (normalization.targetSum() / sum);
      }
      long ve = va + 4L * sv;
      // Each index is checked as it is placed, without a branch: the sign bit of c | (width - 1 -
      // c) is set exactly when c is outside [0, width), and such a value goes to the sink instead
      // of its row; the row then fails after the loop, scanned again for the message.
      int bad = 0;
      if (va != 0 && !scale) {
        // float32 values as they are: raw bits, no trip through a float register.
        for (int e = 0; e < n; e++) {
          int c = MemoryUtil.getInt(ie + 4L * e);
          int out1 = (c | (last - c)) >> 31;
          bad |= out1;
          MemoryUtil.putInt(place(row, sink, c, out1), MemoryUtil.getInt(ve + 4L * e));
        }
      } else {
        for (int e = 0; e < n; e++) {
          int c = MemoryUtil.getInt(ie + 4L * e);
          int out1 = (c | (last - c)) >> 31;
          bad |= out1;
          float v =
              va != 0 ? Float.intBitsToFloat(MemoryUtil.getInt(ve + 4L * e)) : numberAt(vc, sv + e);
          MemoryUtil.putInt(place(row, sink, c, out1), Float.floatToRawIntBits(scale ? v * f : v));
        }
      }
      if (bad != 0) {
        checkIndices(s, ie, n, src, k);
      }
    }
    NDArray x = out.wrap(b, 0, rowBytes * m, out.rowsBy(width), DataType.FLOAT32);
    data.add(log1p(x));
  }

  /** Where index c of a row goes: its column, or the sink if c is out of range ({@code out} -1). */
  private static long place(long row, long sink, int c, int out) {
    long mask = out; // 0 or -1
    return ((row + 4L * c) & ~mask) | (sink & mask);
  }

  private static float numberAt(FieldVector vc, int i) {
    return (float) number(vc, i);
  }

  /**
   * ln(1 + x) of densified rows with the engine's vectorised kernel: on every value of the batch it
   * costs about a nanosecond there, where Java's log on each nonzero cost about 20 µs a 2,000-gene
   * row. In float32 (exact enough for counts: their scaled values are far above the 1e-4 where
   * float32 1 + x starts to lose digits), into a new array of the batch's manager.
   */
  private NDArray log1p(NDArray x) {
    if (!normalization.logTransform()) {
      return x;
    }
    NDArray y = x.addi(1).log();
    x.close();
    return y;
  }

  /**
   * Checks the {@code n} indices at {@code ia} (row k's) against the width: a CSR row's copy, or a
   * dense row's source after its placement found one out of range. Without a branch per index (the
   * sign bit of {@code c | (width - 1 - c)} is set exactly when c is outside [0, width)), which C2
   * unrolls: a checked loop cost as much as the whole CSR form. A row that fails is scanned again
   * for the message.
   */
  private static void checkIndices(Feature.Sparse s, long ia, int n, BatchRows src, int k) {
    int width = s.width();
    int last = width - 1;
    long to = ia + 4L * n;
    int bad = 0;
    for (long a = ia; a < to; a += 4) {
      int c = MemoryUtil.getInt(a);
      bad |= c | (last - c);
    }
    if (bad < 0) {
      for (long a = ia; a < to; a += 4) {
        int c = MemoryUtil.getInt(a);
        if (Integer.compareUnsigned(c, width) >= 0) {
          throw badIndex(s, c, width, src, k);
        }
      }
    }
  }

  private static IllegalArgumentException badIndex(
      Feature.Sparse s, int c, int width, BatchRows src, int k) {
    return new IllegalArgumentException(
        "column '"
            + s.indices()
            + "' has index "
            + c
            + " at "
            + rowName(src, k)
            + ", outside [0, "
            + width
            + ")");
  }

  /** Whether bits [from, from + n) of the validity bitmap at {@code bits} are all set. */
  private static boolean allValid(long bits, int from, int n) {
    int e = from;
    int end = from + n;
    for (; e < end && (e & 7) != 0; e++) {
      if (((MemoryUtil.getByte(bits + (e >>> 3)) >>> (e & 7)) & 1) == 0) {
        return false;
      }
    }
    for (; e + 8 <= end; e += 8) {
      if (MemoryUtil.getByte(bits + (e >>> 3)) != (byte) 0xFF) {
        return false;
      }
    }
    for (; e < end; e++) {
      if (((MemoryUtil.getByte(bits + (e >>> 3)) >>> (e & 7)) & 1) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The address of a float32 values child's data, for raw reads, or 0 for other types (read through
   * the vector). Raw: Arrow's bounds-checked getters cost about 30 ns an entry here, most of the
   * adapter's time on 2,000-gene rows; the offsets and indices are checked before any raw access
   * instead ({@link #extents}, the index check).
   */
  private static long rawFloats(FieldVector vc) {
    return vc instanceof Float4Vector f ? f.getDataBuffer().memoryAddress() : 0;
  }

  /** Checks that row k's n entries from {@code start} lie within the child's buffer. */
  private static void extents(
      int start, int n, FieldVector child, String column, BatchRows src, int k) {
    long end = (long) start + n;
    if (start < 0 || end > child.getValueCount() || 4L * end > child.getDataBuffer().capacity()) {
      throw new IllegalStateException(
          "column '" + column + "' has offsets past its values at " + rowName(src, k));
    }
  }

  private static double value(FieldVector vc, long va, int e) {
    return va != 0 ? Float.intBitsToFloat(MemoryUtil.getInt(va + 4L * e)) : number(vc, e);
  }

  private double rowSum(FieldVector vc, long va, int from, int n) {
    double sum = 0;
    for (int e = from; e < from + n; e++) {
      sum += value(vc, va, e);
    }
    return sum;
  }

  private void csr(Feature.Sparse s, SparseRows rows, BatchRows src, Out out, NDList data) {
    if (out.single) {
      throw new IllegalArgumentException(
          "feature '"
              + s.indices()
              + "' is kept as CSR, which has no per-row form: densify it for a"
              + " RandomAccessDataset");
    }
    int m = out.rows;
    long nnz = rows.nnz;
    ArrowBuf indptr = out.buffer(4L * (m + 1));
    ArrowBuf indices = out.buffer(4L * nnz);
    ArrowBuf values = out.buffer(4L * nnz);
    long ip = indptr.memoryAddress();
    long ix = indices.memoryAddress();
    long vx = values.memoryAddress();
    boolean raw = normalization.isNone();
    MemoryUtil.putInt(ip, 0);
    long at = 0;
    for (int k = 0; k < m; k++) {
      int p = src.part(k);
      int n = rows.len[k];
      // Copied, then checked where they landed: the copy streams the row in from memory, and the
      // check then reads it from cache (a failed row fails the batch, its arrays unused).
      MemoryUtil.copyMemory(rows.ia[p] + 4L * rows.is[k], ix + 4L * at, 4L * n);
      checkIndices(s, ix + 4L * at, n, src, k);
      int sv = rows.vs[k];
      long va = rows.va[p];
      if (raw && va != 0) {
        // float32 values as they are: one copy of the row's bytes.
        MemoryUtil.copyMemory(va + 4L * sv, vx + 4L * at, 4L * n);
      } else {
        double sum = normalization.scaleRows() ? rowSum(rows.vc[p], va, sv, n) : 0;
        for (int e = 0; e < n; e++) {
          float v = normalization.apply(value(rows.vc[p], va, sv + e), sum);
          MemoryUtil.putInt(vx + 4L * (at + e), Float.floatToRawIntBits(v));
        }
      }
      at += n;
      MemoryUtil.putInt(ip + 4L * (k + 1), (int) at);
    }
    data.add(out.wrap(indptr, 0, 4L * (m + 1), new Shape(m + 1), DataType.INT32));
    data.add(out.wrap(indices, 0, 4L * nnz, new Shape(nnz), DataType.INT32));
    data.add(out.wrap(values, 0, 4L * nnz, new Shape(nnz), DataType.FLOAT32));
  }

  private NDArray labels(BatchRows src, Out out) {
    FieldVector[] v = columnOf(src, label);
    int m = out.rows;
    ArrowBuf b = out.buffer(8L * m);
    for (int k = 0; k < m; k++) {
      FieldVector p = v[src.part(k)];
      int r = src.row(k);
      if (p.isNull(r)) {
        throw new IllegalArgumentException(
            "label column '" + label + "' is null at " + rowName(src, k));
      }
      long c = ((BaseIntVector) p).getValueAsLong(r);
      // One comparison: a negative label is a large unsigned one.
      if (Long.compareUnsigned(c, classes) >= 0) {
        throw new IllegalArgumentException(
            "label column '"
                + label
                + "' holds "
                + c
                + " at "
                + rowName(src, k)
                + ", outside [0, "
                + classes
                + "), "
                + classesFrom);
      }
      b.setLong(8L * k, c);
    }
    return out.wrap(b, 0, 8L * m, out.single ? new Shape() : new Shape(m), DataType.INT64);
  }
}
