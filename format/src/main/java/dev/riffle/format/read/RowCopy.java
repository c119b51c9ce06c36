package dev.riffle.format.read;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Copies one value between vectors of the same type, appending at {@code j} (the target is filled
 * in increasing positions). Lists, fixed-size lists and structs are copied structurally, fixed
 * width children in bulk; other vectors through {@link ValueVector#copyFromSafe}.
 */
final class RowCopy {
  private RowCopy() {}

  static void copy(ValueVector from, int i, ValueVector to, int j) {
    if (from instanceof ListVector) {
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

  static void copyRange(ValueVector from, int i, ValueVector to, int j, int count) {
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
