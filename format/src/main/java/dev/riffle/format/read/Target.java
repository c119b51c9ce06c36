package dev.riffle.format.read;

import dev.riffle.format.CorruptFileException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Where a reader writes a column's decoded rows: one vector, or the vectors of a group; and the
 * writing of fixed-width values straight into a vector's buffers.
 */
final class Target {
  final FieldVector single;
  final List<FieldVector> group;

  Target(FieldVector single, List<FieldVector> group) {
    this.single = single;
    this.group = group;
  }

  void setNull(int j) {
    if (single != null) {
      single.setNull(j);
    } else {
      for (FieldVector v : group) {
        if (v != null) {
          v.setNull(j);
        }
      }
    }
  }

  static void writeFixed(
      String resource, FieldVector v, int j, long value, int width, long fileOffset)
      throws CorruptFileException {
    if (v instanceof BitVector) {
      if ((value & ~1L) != 0) {
        throw new CorruptFileException(resource, fileOffset, "boolean value " + value);
      }
      ((BitVector) v).setSafe(j, (int) value);
      return;
    }
    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
    while (f.getValueCapacity() <= j) {
      f.reAlloc();
    }
    long at = (long) j * width;
    switch (width) {
      case 1:
        f.getDataBuffer().setByte(at, (byte) value);
        break;
      case 2:
        f.getDataBuffer().setShort(at, (short) value);
        break;
      case 4:
        f.getDataBuffer().setInt(at, (int) value);
        break;
      default:
        f.getDataBuffer().setLong(at, value);
    }
    org.apache.arrow.vector.BitVectorHelper.setBit(f.getValidityBuffer(), j);
  }

  static void copyFixed(
      String resource, FieldVector v, int j, ByteBuffer buf, int pos, int width, long fileOffset)
      throws CorruptFileException {
    if (v instanceof BitVector) {
      writeFixed(resource, v, j, buf.get(pos), 1, fileOffset);
      return;
    }
    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
    while (f.getValueCapacity() <= j) {
      f.reAlloc();
    }
    dev.riffle.format.encoding.Buffers.copy(f.getDataBuffer(), (long) j * width, buf, pos, width);
    org.apache.arrow.vector.BitVectorHelper.setBit(f.getValidityBuffer(), j);
  }
}
