package dev.riffle.format.encoding;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;

/**
 * Copies from read buffers into Arrow vectors. Arrow's {@code setBytes(index, ByteBuffer, srcIndex,
 * length)} moves the source's position when the range happens to be the whole heap buffer, which
 * corrupts later reads of a shared buffer; these helpers never touch the source's position.
 */
public final class Buffers {
  private Buffers() {}

  /** Copies {@code src[srcIndex, srcIndex + length)} to {@code dst} at {@code dstIndex}. */
  public static void copy(ArrowBuf dst, long dstIndex, ByteBuffer src, int srcIndex, int length) {
    if (src.hasArray()) {
      dst.setBytes(dstIndex, src.array(), src.arrayOffset() + srcIndex, length);
    } else {
      // The direct-buffer path of ArrowBuf copies by address and leaves the position alone.
      dst.setBytes(dstIndex, src, srcIndex, length);
    }
  }

  /**
   * Sets value {@code index} of a variable-width vector from {@code src[start, start + length)}.
   */
  static void setValue(
      VariableWidthFieldVector v, int index, ByteBuffer src, int start, int length) {
    if (src.hasArray()) {
      v.setSafe(index, src.array(), src.arrayOffset() + start, length);
    } else {
      v.setSafe(index, src.duplicate(), start, length);
    }
  }

  /**
   * Allocates {@code v} as {@code allocateNew()} does, except that the values buffer of its items
   * is not zeroed, when every item slot is written before it is read: a list of fixed-width items
   * (not bits), or a non-null fixed-size list of non-null ones. The items get {@code items} slots
   * and a value count the caller sets when it has filled them (a list's {@code setValueCount}
   * does); non-null items are all marked valid, nullable ones all null (a zeroed validity buffer)
   * until written, and whoever writes a null item zeroes its value ({@link #setNullZeroed}), so
   * that no stale bytes show through. Zeroing would be a pass over every byte of a batch of wide
   * rows that the decoder or copier then overwrites (on fresh memory, a second fault of every
   * page). Any other vector, or {@code items < 1}, is left unallocated.
   *
   * @return whether {@code v} was allocated
   */
  public static boolean allocateBareItems(FieldVector v, long items) {
    FieldVector child;
    if (v instanceof ListVector l) {
      child = l.getDataVector();
    } else if (v instanceof FixedSizeListVector f
        && !v.getField().isNullable()
        && !f.getDataVector().getField().isNullable()) {
      child = f.getDataVector();
    } else {
      return false;
    }
    if (!(child instanceof BaseFixedWidthVector c)
        || child instanceof BitVector
        || items < 1
        || items * c.getTypeWidth() > Integer.MAX_VALUE) {
      return false;
    }
    c.setInitialCapacity(1);
    v.allocateNew();
    ArrowBuf data = c.getAllocator().buffer(items * c.getTypeWidth());
    try {
      // Loading builds the validity (the first buffer is not read): all ones without nulls, all
      // zeros with every item null; it retains the data buffer, which this method then lets go of.
      long nulls = child.getField().isNullable() ? items : 0;
      c.loadFieldBuffers(
          new ArrowFieldNode(items, nulls), List.of(c.getAllocator().getEmpty(), data));
    } finally {
      data.getReferenceManager().release();
    }
    return true;
  }

  /**
   * Sets slots {@code [index, index + count)} of {@code v} null and, for fixed-width values (not
   * bits), zeroes their values: items of a list allocated by {@link #allocateBareItems} hold stale
   * bytes until written.
   */
  public static void setNullZeroed(FieldVector v, int index, int count) {
    for (int i = 0; i < count; i++) {
      v.setNull(index + i);
    }
    if (v instanceof BaseFixedWidthVector f && !(v instanceof BitVector)) {
      long w = f.getTypeWidth();
      f.getDataBuffer().setZero(index * w, count * w);
    }
  }

  /**
   * Marks slots {@code [start, start + count)} valid: after one bounds check for the range, by
   * address, whole bytes at a time in the middle. A list's items are marked per row, a few bytes at
   * a time, where a checked store per bit or a {@code setMemory} call per row costs more than the
   * bits themselves.
   *
   * @throws IndexOutOfBoundsException if the bits are not all inside {@code validity}
   */
  public static void setValid(ArrowBuf validity, int start, int count) {
    if (count <= 0) {
      return;
    }
    int end = start + count;
    if (start < 0 || end < start || ((end - 1L) >>> 3) >= validity.capacity()) {
      throw new IndexOutOfBoundsException(
          "validity bits ["
              + start
              + ", "
              + end
              + ") outside a buffer of "
              + validity.capacity()
              + " bytes");
    }
    long address = validity.memoryAddress();
    int i = start;
    for (; i < end && (i & 7) != 0; i++) {
      setBit(address, i);
    }
    long at = address + (i >>> 3);
    int bytes = (end - i) >>> 3;
    i += bytes << 3;
    for (; bytes >= 8; bytes -= 8, at += 8) {
      MemoryUtil.putLong(at, -1L);
    }
    for (; bytes > 0; bytes--, at++) {
      MemoryUtil.putByte(at, (byte) -1);
    }
    for (; i < end; i++) {
      setBit(address, i);
    }
  }

  private static void setBit(long address, int i) {
    long at = address + (i >>> 3);
    MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | (1 << (i & 7))));
  }
}
