package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Fixed-width values (integers, floats, decimals, dates, times, timestamps, durations, fixed-size
 * binary, dictionary indices): the value's {@code width} bytes exactly as Arrow holds them,
 * little-endian.
 */
final class FixedCodec extends ValueCodec {
  private final int width;

  FixedCodec(int width) {
    this.width = width;
  }

  @Override
  public int fixedWidth() {
    return width;
  }

  @Override
  public void encode(FieldVector vector, int index, ByteSink out, boolean whole) {
    encodeRun(vector, index, 1, out);
  }

  @Override
  public void encodeRun(FieldVector vector, int start, int count, ByteSink out) {
    int n = Math.multiplyExact(count, width);
    int at = out.reserve(n);
    vector.getDataBuffer().getBytes((long) start * width, out.array(), at, n);
  }

  @Override
  public void decode(RecordInput in, FieldVector vector, int index, boolean whole)
      throws CorruptFileException {
    decodeRun(in, vector, index, 1);
  }

  @Override
  public void decodeRun(RecordInput in, FieldVector vector, int start, int count)
      throws CorruptFileException {
    int n = in.take((long) count * width);
    BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
    ensureCapacity(v, start + count);
    Buffers.copy(v.getDataBuffer(), (long) start * width, in.buffer(), n, count * width);
    Buffers.setValid(v.getValidityBuffer(), start, count);
  }

  @Override
  public void skip(RecordInput in, boolean whole) throws CorruptFileException {
    in.take(width);
  }

  @Override
  public void skipRun(RecordInput in, int count) throws CorruptFileException {
    in.take((long) count * width);
  }

  @Override
  public void measure(RecordInput in, boolean whole, VectorSizes s) throws CorruptFileException {
    in.take(width);
    s.values++;
  }

  @Override
  public void measureRun(RecordInput in, int count, VectorSizes s) throws CorruptFileException {
    in.take((long) count * width);
    s.values += count;
  }

  static void ensureCapacity(BaseFixedWidthVector v, int slots) {
    while (v.getValueCapacity() < slots) {
      v.reAlloc();
    }
  }
}
