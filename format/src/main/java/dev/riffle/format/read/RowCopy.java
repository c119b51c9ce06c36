package dev.riffle.format.read;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Copies one value between vectors of the same type, appending at {@code j} (the target is filled
 * in increasing positions). Lists (maps included), large lists, fixed-size lists and structs are
 * copied structurally, fixed width children in bulk; other vectors through {@link
 * ValueVector#copyFromSafe}. Arrow's own {@code copyFromSafe} of a list goes through its writers,
 * which do not support every nesting (a list of fixed-size lists fails), so every copy of rows
 * between batches (takes across files, the loader's shuffle) uses this one.
 */
public final class RowCopy {
  private RowCopy() {}

  /** Copies value {@code i} of {@code from} to position {@code j} of {@code to}. */
  public static void copy(ValueVector from, int i, ValueVector to, int j) {
    if (from instanceof LargeListVector) {
      LargeListVector f = (LargeListVector) from;
      LargeListVector t = (LargeListVector) to;
      if (f.isNull(i)) {
        t.setNull(j);
        return;
      }
      long s = f.getElementStartIndex(i);
      int count = Math.toIntExact(f.getElementEndIndex(i) - s);
      long at = t.startNewValue(j);
      copyRange(
          f.getDataVector(), Math.toIntExact(s), t.getDataVector(), Math.toIntExact(at), count);
      t.endValue(j, count);
    } else if (from instanceof ListVector) {
      ListVector f = (ListVector) from;
      ListVector t = (ListVector) to;
      if (f.isNull(i)) {
        t.setNull(j);
        return;
      }
      int s = f.getElementStartIndex(i);
      int count = f.getElementEndIndex(i) - s;
      int at = t.startNewValue(j);
      copyRange(f.getDataVector(), s, t.getDataVector(), at, count);
      t.endValue(j, count);
    } else if (from instanceof FixedSizeListVector) {
      FixedSizeListVector f = (FixedSizeListVector) from;
      FixedSizeListVector t = (FixedSizeListVector) to;
      if (f.isNull(i)) {
        t.setNull(j);
        return;
      }
      t.setNotNull(j);
      int m = f.getListSize();
      copyRange(f.getDataVector(), i * m, t.getDataVector(), j * m, m);
    } else if (from instanceof StructVector) {
      StructVector f = (StructVector) from;
      StructVector t = (StructVector) to;
      if (f.isNull(i)) {
        t.setNull(j);
        return;
      }
      t.setIndexDefined(j);
      for (int k = 0; k < f.size(); k++) {
        copy(f.getChildByOrdinal(k), i, t.getChildByOrdinal(k), j);
      }
    } else {
      to.copyFromSafe(i, j, from);
    }
  }

  /**
   * Copies values {@code [i, i + count)} of {@code from} to {@code [j, j + count)} of {@code to}.
   */
  public static void copyRange(ValueVector from, int i, ValueVector to, int j, int count) {
    if (count > 1 && from instanceof BaseFixedWidthVector && !(from instanceof BitVector)) {
      BaseFixedWidthVector f = (BaseFixedWidthVector) from;
      BaseFixedWidthVector t = (BaseFixedWidthVector) to;
      while (t.getValueCapacity() < j + count) {
        t.reAlloc();
      }
      long w = f.getTypeWidth();
      t.getDataBuffer().setBytes(j * w, f.getDataBuffer(), i * w, count * w);
      for (int k = 0; k < count; k++) {
        BitVectorHelper.setValidityBit(t.getValidityBuffer(), j + k, f.isSet(i + k));
      }
      return;
    }
    for (int k = 0; k < count; k++) {
      copy(from, i + k, to, j + k);
    }
  }
}
