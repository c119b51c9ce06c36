package dev.riffle.loader.pipeline;

import dev.riffle.format.encoding.Buffers;
import dev.riffle.format.read.RowCopy;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * Builds a batch from chosen rows of several source batches (one per data file of a fetch): the
 * in-memory shuffle. Fixed-width columns copy value by value by raw address; lists of fixed-width
 * values copy each row's child values with one buffer copy (a sparse row of 1,500 genes is two
 * memcpys, where Arrow's generic copy would make a transfer pair and copy element by element);
 * other types fall back to {@link RowCopy}, value by value (Arrow's generic copy fails on some
 * nestings, such as a list of fixed-size lists). No object is created per row.
 */
final class Gather {
  private Gather() {}

  /**
   * A new batch (the caller closes it) whose row k is row {@code row[from + k]} of source {@code
   * part[from + k]}, for k in [0, count).
   */
  static VectorSchemaRoot gather(
      List<VectorSchemaRoot> sources,
      int[] part,
      int[] row,
      int from,
      int count,
      BufferAllocator allocator) {
    VectorSchemaRoot first = sources.get(0);
    List<FieldVector> out = new ArrayList<>();
    try {
      for (int c = 0; c < first.getFieldVectors().size(); c++) {
        FieldVector[] src = new FieldVector[sources.size()];
        for (int p = 0; p < src.length; p++) {
          src[p] = sources.get(p).getVector(c);
        }
        FieldVector target = first.getVector(c).getField().createVector(allocator);
        out.add(target);
        copy(src, target, part, row, from, count);
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    VectorSchemaRoot root = new VectorSchemaRoot(out);
    root.setRowCount(count);
    return root;
  }

  private static void copy(
      FieldVector[] src, FieldVector target, int[] part, int[] row, int from, int count) {
    if (target instanceof BaseFixedWidthVector t && !(t instanceof BitVector)) {
      copyFixed(src, t, part, row, from, count);
    } else if (target instanceof ListVector t && fixedItems(t) && allLists(src)) {
      copyLists(src, t, part, row, from, count);
    } else {
      copyRows(src, target, part, row, from, count);
    }
  }

  /** Values of whole bytes (labels, ids): by raw address, like the lists below. */
  private static void copyFixed(
      FieldVector[] src, BaseFixedWidthVector t, int[] part, int[] row, int from, int count) {
    int n = src.length;
    long[] validity = new long[n];
    long[] values = new long[n];
    int[] rows = new int[n];
    for (int p = 0; p < n; p++) {
      validity[p] = src[p].getValidityBuffer().memoryAddress();
      values[p] = src[p].getDataBuffer().memoryAddress();
      rows[p] = src[p].getValueCount();
    }
    t.allocateNew(Math.max(1, count));
    int width = t.getTypeWidth();
    long out = t.getDataBuffer().memoryAddress();
    long outValidity = t.getValidityBuffer().memoryAddress();
    for (int k = 0; k < count; k++) {
      int p = part[from + k];
      int r = checkedRow(row[from + k], rows[p], p);
      if (isSet(validity[p], r)) {
        MemoryUtil.copyMemory(values[p] + (long) r * width, out + (long) k * width, width);
        long bits = outValidity + (k >>> 3);
        MemoryUtil.putByte(bits, (byte) (MemoryUtil.getByte(bits) | (1 << (k & 7))));
      }
    }
    t.setValueCount(count);
  }

  /** Any other type, row by row through {@link RowCopy}. */
  private static void copyRows(
      FieldVector[] src, FieldVector target, int[] part, int[] row, int from, int count) {
    target.setInitialCapacity(Math.max(1, count));
    target.allocateNew();
    for (int k = 0; k < count; k++) {
      RowCopy.copy(src[part[from + k]], row[from + k], target, k);
    }
    target.setValueCount(count);
  }

  private static boolean allLists(FieldVector[] src) {
    for (FieldVector v : src) {
      if (!(v instanceof ListVector l) || !fixedItems(l)) {
        return false;
      }
    }
    return true;
  }

  /** Items of a whole number of bytes each (booleans are bits: they take the general path). */
  private static boolean fixedItems(ListVector l) {
    return l.getDataVector() instanceof BaseFixedWidthVector
        && !(l.getDataVector() instanceof BitVector);
  }

  private static void copyLists(
      FieldVector[] src, ListVector target, int[] part, int[] row, int from, int count) {
    // Each source's buffers by address, read once per batch: the loops below then touch raw
    // memory only, with one bounds check a row, instead of Arrow's checked accessors (a reference
    // count and a range check on every offset and bit); that also keeps the compiled loop small.
    int n = src.length;
    long[] validity = new long[n];
    long[] offsets = new long[n];
    long[] values = new long[n];
    long[] valueBytes = new long[n];
    int[] rows = new int[n];
    boolean childNulls = false;
    for (int p = 0; p < n; p++) {
      ListVector l = (ListVector) src[p];
      BaseFixedWidthVector c = (BaseFixedWidthVector) l.getDataVector();
      // The field's nullability, not getNullCount(): counting scans the whole fetch's bitmap,
      // and this runs once per minibatch.
      childNulls |= c.getField().isNullable();
      validity[p] = l.getValidityBuffer().memoryAddress();
      offsets[p] = l.getOffsetBuffer().memoryAddress();
      values[p] = c.getDataBuffer().memoryAddress();
      valueBytes[p] = c.getDataBuffer().capacity();
      rows[p] = l.getValueCount();
    }
    int width = ((BaseFixedWidthVector) target.getDataVector()).getTypeWidth();
    long total = 0;
    for (int k = 0; k < count; k++) {
      int p = part[from + k];
      int r = checkedRow(row[from + k], rows[p], p);
      if (isSet(validity[p], r)) {
        total += extent(offsets[p], r, width, valueBytes[p], p) / width;
      }
    }
    if (total > Integer.MAX_VALUE) {
      throw new IllegalStateException("a batch holds more than 2^31 list values: " + total);
    }
    target.setInitialCapacity(Math.max(1, count));
    // Without child nulls, the values buffer is not zeroed first: that would be a second pass over
    // every byte of the batch (≈ 12 KB a sparse row) that the copies below overwrite anyway.
    if (childNulls || !Buffers.allocateBareItems(target, Math.max(1, total))) {
      target.allocateNew();
      ((BaseFixedWidthVector) target.getDataVector()).allocateNew((int) Math.max(1, total));
    }
    BaseFixedWidthVector child = (BaseFixedWidthVector) target.getDataVector();
    long out = child.getDataBuffer().memoryAddress();
    long outOffsets = target.getOffsetBuffer().memoryAddress();
    long outValidity = target.getValidityBuffer().memoryAddress();
    MemoryUtil.putInt(outOffsets, 0);
    int end = 0;
    for (int k = 0; k < count; k++) {
      int p = part[from + k];
      int r = row[from + k];
      if (isSet(validity[p], r)) {
        int start = MemoryUtil.getInt(offsets[p] + 4L * r);
        int len = MemoryUtil.getInt(offsets[p] + 4L * r + 4) - start;
        MemoryUtil.copyMemory(
            values[p] + (long) start * width, out + (long) end * width, (long) len * width);
        if (childNulls) {
          copyItemValidity((ListVector) src[p], start, child, end, len);
        }
        long bits = outValidity + (k >>> 3);
        MemoryUtil.putByte(bits, (byte) (MemoryUtil.getByte(bits) | (1 << (k & 7))));
        end += len;
      }
      MemoryUtil.putInt(outOffsets + 4L * (k + 1), end);
    }
    child.setValueCount(end);
    target.setLastSet(count - 1);
    target.setValueCount(count);
  }

  /**
   * Copies the validity of {@code len} items from {@code start} of a source list to {@code end} of
   * the target's items. Its own method: the rare case (items that may be null) then stays out of
   * the copy loop's compiled code, which the JIT compiler recompiles during a short run.
   */
  private static void copyItemValidity(
      ListVector source, int start, BaseFixedWidthVector child, int end, int len) {
    BaseFixedWidthVector sc = (BaseFixedWidthVector) source.getDataVector();
    for (int i = 0; i < len; i++) {
      BitVectorHelper.setValidityBit(child.getValidityBuffer(), end + i, sc.isSet(start + i));
    }
  }

  /** {@code r}, after checking that part {@code p} (of {@code rows} rows) has it. */
  private static int checkedRow(int r, int rows, int p) {
    if (r < 0 || r >= rows) {
      throw new IllegalStateException(
          "row " + r + " is outside part " + p + " of " + rows + " rows");
    }
    return r;
  }

  private static boolean isSet(long validity, int r) {
    return ((MemoryUtil.getByte(validity + (r >>> 3)) >>> (r & 7)) & 1) != 0;
  }

  /**
   * Bytes of row {@code r}'s items, after checking that they lie inside the source's values (the
   * raw copy relies on it; a decoded batch always passes).
   */
  private static long extent(long offsets, int r, int width, long valueBytes, int p) {
    long start = MemoryUtil.getInt(offsets + 4L * r);
    long end = MemoryUtil.getInt(offsets + 4L * r + 4);
    if (start < 0 || end < start || end * width > valueBytes) {
      throw new IllegalStateException(
          "list row "
              + r
              + " of part "
              + p
              + " has items ["
              + start
              + ", "
              + end
              + ") past its values");
    }
    return (end - start) * width;
  }
}
