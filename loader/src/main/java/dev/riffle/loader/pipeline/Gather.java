package dev.riffle.loader.pipeline;

import dev.riffle.format.encoding.Buffers;
import dev.riffle.format.read.RowCopy;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;

/**
 * Builds a batch from chosen rows of several source batches (one per data file of a fetch): the
 * in-memory shuffle. Fixed-width columns copy value by value; lists of fixed-width values copy each
 * row's child values with one buffer copy (a sparse row of 1,500 genes is two memcpys, where
 * Arrow's generic copy would make a transfer pair and copy element by element); other types fall
 * back to {@link RowCopy}, value by value (Arrow's generic copy fails on some nestings, such as a
 * list of fixed-size lists). No object is created per row.
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
    if (target instanceof BaseFixedWidthVector t) {
      t.allocateNew(Math.max(1, count));
      for (int k = 0; k < count; k++) {
        t.copyFrom(row[from + k], k, src[part[from + k]]);
      }
      t.setValueCount(count);
    } else if (target instanceof ListVector t && fixedItems(t) && allLists(src)) {
      copyLists(src, t, part, row, from, count);
    } else {
      target.setInitialCapacity(Math.max(1, count));
      target.allocateNew();
      for (int k = 0; k < count; k++) {
        RowCopy.copy(src[part[from + k]], row[from + k], target, k);
      }
      target.setValueCount(count);
    }
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
    long total = 0;
    boolean childNulls = false;
    for (FieldVector v : src) {
      // The field's nullability, not getNullCount(): counting scans the whole fetch's bitmap,
      // and this runs once per minibatch.
      childNulls |= ((ListVector) v).getDataVector().getField().isNullable();
    }
    for (int k = 0; k < count; k++) {
      ListVector s = (ListVector) src[part[from + k]];
      int r = row[from + k];
      if (!s.isNull(r)) {
        total += s.getElementEndIndex(r) - s.getElementStartIndex(r);
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
    int width = child.getTypeWidth();
    ArrowBuf data = child.getDataBuffer();
    ArrowBuf offsets = target.getOffsetBuffer();
    ArrowBuf validity = target.getValidityBuffer();
    offsets.setInt(0, 0);
    int end = 0;
    for (int k = 0; k < count; k++) {
      ListVector s = (ListVector) src[part[from + k]];
      int r = row[from + k];
      if (!s.isNull(r)) {
        int start = s.getElementStartIndex(r);
        int len = s.getElementEndIndex(r) - start;
        BaseFixedWidthVector sc = (BaseFixedWidthVector) s.getDataVector();
        data.setBytes(
            (long) end * width, sc.getDataBuffer(), (long) start * width, (long) len * width);
        if (childNulls) {
          for (int i = 0; i < len; i++) {
            BitVectorHelper.setValidityBit(child.getValidityBuffer(), end + i, sc.isSet(start + i));
          }
        }
        BitVectorHelper.setBit(validity, k);
        end += len;
      }
      offsets.setInt((long) (k + 1) * ListVector.OFFSET_WIDTH, end);
    }
    child.setValueCount(end);
    target.setLastSet(count - 1);
    target.setValueCount(count);
  }
}
