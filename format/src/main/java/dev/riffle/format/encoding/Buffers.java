package dev.riffle.format.encoding;

import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VariableWidthFieldVector;

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
}
