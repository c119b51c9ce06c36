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
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Turns Arrow batches into NDArrays: each value is copied at most once, from the Arrow buffers into
 * a direct buffer of {@link BatchBuffers} that the engine then wraps without copying ({@code
 * NDManager.create} of a direct native-order buffer: {@code torch::from_blob} on CPU, the buffer
 * held by the array), or not at all where the Arrow buffer already is the array (a float32 column
 * or fixed-size list, the CSR offsets and indices). Both kinds of memory belong to the batch: the
 * copies go back to the pool when its manager closes, and the arrays are not valid after that.
 *
 * <p>All checks of the columns against the features happen in the constructor, once, with the
 * column's name in the message; a batch can then only fail on its values (a null, an index out of
 * range), and that message names the column and the global row.
 *
 * <p>Why this file is a little long: each feature kind's checks, copy and zero-copy case belong
 * together, and the sparse one has three forms (dense, CSR, one row) over the same raw reads.
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
        throw new IllegalArgumentException(
            "label column '"
                + label
                + "' is "
                + field.getType()
                + "; it must be categorical (dictionary-encoded) or an integer");
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
      if (!(t instanceof ArrowType.FixedSizeList) || !numeric(child(field))) {
        problem = "a vector feature needs a fixed-size list of integers or floats";
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
      throw new IllegalArgumentException("column '" + column + "' is " + t + "; " + problem);
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

  /**
   * One batch's arrays, and whether they point into the Arrow batch (which must then stay open).
   */
  record Converted(NDList data, NDList labels, boolean borrowsBatch) {}

  /**
   * Converts a batch. Copies go into buffers of {@code buffers}, given back when {@code manager}
   * closes.
   *
   * @param rows the batch's global row ids, for messages
   * @param keep the batch rows to convert, or null for all (zero-copy needs all)
   * @param single one row without the batch dimension (a {@code RandomAccessDataset} record)
   */
  Converted convert(
      VectorSchemaRoot batch,
      long[] rows,
      int[] keep,
      boolean single,
      NDManager manager,
      BatchBuffers buffers) {
    int m = keep == null ? batch.getRowCount() : keep.length;
    Out out = new Out(manager, buffers, single, m);
    NDList data = new NDList();
    boolean borrows = false;
    try {
      for (Feature f : features) {
        if (f instanceof Feature.Dense d) {
          borrows |= dense(batch, d, rows, keep, out, data);
        } else if (f instanceof Feature.Vector v) {
          borrows |= vector(batch, v, rows, keep, out, data);
        } else {
          borrows |= sparse(batch, (Feature.Sparse) f, rows, keep, out, data);
        }
      }
      NDList labels = new NDList();
      if (label != null) {
        labels.add(labels(batch, rows, keep, out));
      }
      return new Converted(data, labels, borrows);
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

  private static int rowOf(int[] keep, int k) {
    return keep == null ? k : keep[k];
  }

  private static String rowName(long[] rows, int r) {
    return rows == null ? "batch row " + r : "row " + rows[r];
  }

  private static void noNulls(FieldVector v, String column, long[] rows, int[] keep, int m) {
    if (v.getNullCount() == 0) {
      return;
    }
    for (int k = 0; k < m; k++) {
      int r = rowOf(keep, k);
      if (v.isNull(r)) {
        throw new IllegalArgumentException(
            "column '" + column + "' is null at " + rowName(rows, r) + "; features cannot be null");
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

  private boolean dense(
      VectorSchemaRoot batch, Feature.Dense d, long[] rows, int[] keep, Out out, NDList data) {
    int m = out.rows;
    int k = d.columns().size();
    if (k == 1
        && keep == null
        && batch.getVector(d.columns().get(0)) instanceof Float4Vector f
        && f.getNullCount() == 0) {
      data.add(out.wrap(f.getDataBuffer(), 0, 4L * m, out.rowsBy(1), DataType.FLOAT32));
      return true;
    }
    ArrowBuf b = out.buffer(4L * m * k);
    for (int c = 0; c < k; c++) {
      String name = d.columns().get(c);
      FieldVector v = batch.getVector(name);
      noNulls(v, name, rows, keep, m);
      for (int i = 0; i < m; i++) {
        b.setFloat(4L * ((long) i * k + c), (float) number(v, rowOf(keep, i)));
      }
    }
    data.add(out.wrap(b, 0, 4L * m * k, out.rowsBy(k), DataType.FLOAT32));
    return false;
  }

  private boolean vector(
      VectorSchemaRoot batch, Feature.Vector f, long[] rows, int[] keep, Out out, NDList data) {
    FixedSizeListVector v = (FixedSizeListVector) batch.getVector(f.column());
    int m = out.rows;
    int d = v.getListSize();
    FieldVector child = v.getDataVector();
    noNulls(v, f.column(), rows, keep, m);
    if (keep == null && child instanceof Float4Vector fc && fc.getNullCount() == 0) {
      data.add(out.wrap(fc.getDataBuffer(), 0, 4L * m * d, out.rowsBy(d), DataType.FLOAT32));
      return true;
    }
    ArrowBuf b = out.buffer(4L * m * d);
    for (int i = 0; i < m; i++) {
      int r = rowOf(keep, i);
      for (int j = 0; j < d; j++) {
        int at = r * d + j;
        if (child.isNull(at)) {
          throw new IllegalArgumentException(
              "column '" + f.column() + "' has a null element at " + rowName(rows, r));
        }
        b.setFloat(4L * ((long) i * d + j), (float) number(child, at));
      }
    }
    data.add(out.wrap(b, 0, 4L * m * d, out.rowsBy(d), DataType.FLOAT32));
    return false;
  }

  private boolean sparse(
      VectorSchemaRoot batch, Feature.Sparse s, long[] rows, int[] keep, Out out, NDList data) {
    ListVector idx = (ListVector) batch.getVector(s.indices());
    ListVector val = (ListVector) batch.getVector(s.values());
    IntVector ic = (IntVector) idx.getDataVector();
    FieldVector vc = val.getDataVector();
    int m = out.rows;
    // Row r's entries: [start(r), end(r)) of both children (a null row is empty).
    long nnz = 0;
    for (int k = 0; k < m; k++) {
      int r = rowOf(keep, k);
      int n = length(idx, r);
      if (n != length(val, r)) {
        throw new IllegalArgumentException(
            "columns '"
                + s.indices()
                + "' and '"
                + s.values()
                + "' differ in length at "
                + rowName(rows, r)
                + " ("
                + n
                + " indices, "
                + length(val, r)
                + " values)");
      }
      nnz += n;
      extents(idx, ic, s.indices(), r, n, rows);
      extents(val, vc, s.values(), r, n, rows);
    }
    if (vc.getNullCount() > 0) {
      for (int k = 0; k < m; k++) {
        int r = rowOf(keep, k);
        int end = start(val, r) + length(val, r);
        for (int e = start(val, r); e < end; e++) {
          if (vc.isNull(e)) {
            throw new IllegalArgumentException(
                "column '" + s.values() + "' has a null value at " + rowName(rows, r));
          }
        }
      }
    }
    int width = s.width();
    long ia = ic.getDataBuffer().memoryAddress();
    long va = rawFloats(vc);
    if (s.csr()) {
      checkIndices(s, idx, ia, width, keep, m, rows);
      return csr(s, idx, val, ic, vc, nnz, keep, out, data);
    }
    ArrowBuf b = out.buffer(4L * m * width);
    long oa = b.memoryAddress();
    // One pass a row, while it is in cache: zero it, then place its values (scaled to the target
    // sum in the same pass; the log is left to the engine, below). float32 values are read raw,
    // anything else as a number.
    boolean scale = normalization.scaleRows();
    for (int k = 0; k < m; k++) {
      int r = rowOf(keep, k);
      int n = length(idx, r);
      long ie = ia + 4L * start(idx, r);
      int sv = start(val, r);
      long row = oa + 4L * k * width;
      b.setZero(4L * k * width, 4L * width);
      float f = 1f;
      if (scale) {
        double sum = rowSum(vc, va, sv, n);
        f = sum == 0 ? 0f : (float) (normalization.targetSum() / sum);
      }
      long ve = va + 4L * sv;
      if (va != 0 && !scale) {
        // float32 values as they are: raw bits, no trip through a float register.
        for (int e = 0; e < n; e++) {
          int c = MemoryUtil.getInt(ie + 4L * e);
          // Checked before the raw write it places (one comparison: a negative index is a large
          // unsigned one); a branch never taken costs next to nothing here.
          if (Integer.compareUnsigned(c, width) >= 0) {
            throw badIndex(s, c, width, rows, r);
          }
          MemoryUtil.putInt(row + 4L * c, MemoryUtil.getInt(ve + 4L * e));
        }
      } else if (va != 0) {
        for (int e = 0; e < n; e++) {
          int c = MemoryUtil.getInt(ie + 4L * e);
          if (Integer.compareUnsigned(c, width) >= 0) {
            throw badIndex(s, c, width, rows, r);
          }
          float v = Float.intBitsToFloat(MemoryUtil.getInt(ve + 4L * e));
          MemoryUtil.putInt(row + 4L * c, Float.floatToRawIntBits(v * f));
        }
      } else {
        for (int e = 0; e < n; e++) {
          int c = MemoryUtil.getInt(ie + 4L * e);
          if (Integer.compareUnsigned(c, width) >= 0) {
            throw badIndex(s, c, width, rows, r);
          }
          float v = (float) number(vc, sv + e);
          MemoryUtil.putInt(row + 4L * c, Float.floatToRawIntBits(scale ? v * f : v));
        }
      }
    }
    NDArray x = out.wrap(b, 0, 4L * m * width, out.rowsBy(width), DataType.FLOAT32);
    data.add(log1p(x));
    return false;
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
   * Checks every index of the kept rows against the width. Without a branch per index (the sign bit
   * of {@code c | (width - 1 - c)} is set exactly when c is outside [0, width)), which C2 unrolls:
   * the checked loop cost 1.5 µs a 1,000-nonzero row, the whole cost of the CSR form. A row that
   * fails is scanned again for the message.
   */
  private static void checkIndices(
      Feature.Sparse s, ListVector idx, long ia, int width, int[] keep, int m, long[] rows) {
    int last = width - 1;
    for (int k = 0; k < m; k++) {
      int r = rowOf(keep, k);
      long from = ia + 4L * start(idx, r);
      long to = from + 4L * length(idx, r);
      int bad = 0;
      for (long a = from; a < to; a += 4) {
        int c = MemoryUtil.getInt(a);
        bad |= c | (last - c);
      }
      if (bad < 0) {
        for (long a = from; a < to; a += 4) {
          int c = MemoryUtil.getInt(a);
          if (Integer.compareUnsigned(c, width) >= 0) {
            throw badIndex(s, c, width, rows, r);
          }
        }
      }
    }
  }

  private static IllegalArgumentException badIndex(
      Feature.Sparse s, int c, int width, long[] rows, int r) {
    return new IllegalArgumentException(
        "column '"
            + s.indices()
            + "' has index "
            + c
            + " at "
            + rowName(rows, r)
            + ", outside [0, "
            + width
            + ")");
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

  /** Checks that row r's entries lie within the child's buffer, before it is read raw. */
  private static void extents(
      ListVector list, FieldVector child, String column, int r, int n, long[] rows) {
    long end = (long) start(list, r) + n;
    if (start(list, r) < 0
        || end > child.getValueCount()
        || 4L * end > child.getDataBuffer().capacity()) {
      throw new IllegalStateException(
          "column '" + column + "' has offsets past its values at " + rowName(rows, r));
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

  private boolean csr(
      Feature.Sparse s,
      ListVector idx,
      ListVector val,
      IntVector ic,
      FieldVector vc,
      long nnz,
      int[] keep,
      Out out,
      NDList data) {
    if (out.single) {
      throw new IllegalArgumentException(
          "feature '"
              + s.indices()
              + "' is kept as CSR, which has no per-row form: densify it for a"
              + " RandomAccessDataset");
    }
    int m = out.rows;
    // The batch's own offsets and indices are the CSR arrays when all rows are kept, they start
    // at 0 and the values column has the same offsets (a gathered batch: always).
    boolean whole = keep == null && start(idx, 0) == 0 && sameOffsets(idx, val, m);
    boolean borrows = false;
    if (whole) {
      data.add(out.wrap(idx.getOffsetBuffer(), 0, 4L * (m + 1), new Shape(m + 1), DataType.INT32));
      data.add(out.wrap(ic.getDataBuffer(), 0, 4L * nnz, new Shape(nnz), DataType.INT32));
      borrows = true;
    } else {
      ArrowBuf indptr = out.buffer(4L * (m + 1));
      ArrowBuf indices = out.buffer(4L * nnz);
      indptr.setInt(0, 0);
      long at = 0;
      for (int k = 0; k < m; k++) {
        int r = rowOf(keep, k);
        int n = length(idx, r);
        indices.setBytes(4L * at, ic.getDataBuffer(), 4L * start(idx, r), 4L * n);
        at += n;
        indptr.setInt(4L * (k + 1), (int) at);
      }
      data.add(out.wrap(indptr, 0, 4L * (m + 1), new Shape(m + 1), DataType.INT32));
      data.add(out.wrap(indices, 0, 4L * nnz, new Shape(nnz), DataType.INT32));
    }
    if (whole && normalization.isNone() && vc instanceof Float4Vector fv) {
      data.add(out.wrap(fv.getDataBuffer(), 0, 4L * nnz, new Shape(nnz), DataType.FLOAT32));
      return true;
    }
    ArrowBuf values = out.buffer(4L * nnz);
    long va = rawFloats(vc);
    long at = 0;
    for (int k = 0; k < m; k++) {
      int r = rowOf(keep, k);
      int n = length(val, r);
      int sv = start(val, r);
      double sum = normalization.scaleRows() ? rowSum(vc, va, sv, n) : 0;
      for (int e = 0; e < n; e++) {
        values.setFloat(4L * (at + e), normalization.apply(value(vc, va, sv + e), sum));
      }
      at += n;
    }
    data.add(out.wrap(values, 0, 4L * nnz, new Shape(nnz), DataType.FLOAT32));
    return borrows;
  }

  private static boolean sameOffsets(ListVector a, ListVector b, int m) {
    for (int r = 0; r <= m; r++) {
      if (a.getOffsetBuffer().getInt(4L * r) != b.getOffsetBuffer().getInt(4L * r)) {
        return false;
      }
    }
    return true;
  }

  private static int start(ListVector v, int r) {
    return v.getOffsetBuffer().getInt(4L * r);
  }

  private static int length(ListVector v, int r) {
    return v.isNull(r) ? 0 : v.getOffsetBuffer().getInt(4L * (r + 1)) - start(v, r);
  }

  private NDArray labels(VectorSchemaRoot batch, long[] rows, int[] keep, Out out) {
    FieldVector v = batch.getVector(label);
    BaseIntVector codes = (BaseIntVector) v;
    int m = out.rows;
    ArrowBuf b = out.buffer(8L * m);
    for (int k = 0; k < m; k++) {
      int r = rowOf(keep, k);
      if (v.isNull(r)) {
        throw new IllegalArgumentException(
            "label column '" + label + "' is null at " + rowName(rows, r));
      }
      long c = codes.getValueAsLong(r);
      // One comparison: a negative label is a large unsigned one.
      if (Long.compareUnsigned(c, classes) >= 0) {
        throw new IllegalArgumentException(
            "label column '"
                + label
                + "' holds "
                + c
                + " at "
                + rowName(rows, r)
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
