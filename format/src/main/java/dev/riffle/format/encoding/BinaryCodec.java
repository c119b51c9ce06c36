package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VariableWidthFieldVector;

/**
 * Strings and binaries (normal and large): a varint byte length, then the bytes. When the value is
 * the whole record the length is omitted.
 */
final class BinaryCodec extends ValueCodec {
  /** Largest single value accepted on read; Arrow's int-indexed setters cannot take more. */
  static final int MAX_VALUE_BYTES = Integer.MAX_VALUE - 64;

  @Override
  public void encode(FieldVector vector, int index, ByteSink out, boolean whole) {
    long start;
    long end;
    ArrowBuf offsets = vector.getOffsetBuffer();
    if (vector instanceof BaseLargeVariableWidthVector) {
      start = offsets.getLong((long) index * 8);
      end = offsets.getLong((long) index * 8 + 8);
    } else {
      start = offsets.getInt((long) index * 4);
      end = offsets.getInt((long) index * 4 + 4);
    }
    int n = Math.toIntExact(end - start);
    if (!whole) {
      out.putVarint(n);
    }
    int at = out.reserve(n);
    vector.getDataBuffer().getBytes(start, out.array(), at, n);
  }

  @Override
  public void decode(RecordInput in, FieldVector vector, int index, boolean whole)
      throws CorruptFileException {
    int n = whole ? in.remaining() : (int) in.varint(MAX_VALUE_BYTES);
    int at = in.take(n);
    Buffers.setValue((VariableWidthFieldVector) vector, index, in.buffer(), at, n);
  }

  @Override
  public void skip(RecordInput in, boolean whole) throws CorruptFileException {
    in.take(whole ? in.remaining() : in.varint(MAX_VALUE_BYTES));
  }

  @Override
  public void measure(RecordInput in, boolean whole, VectorSizes s) throws CorruptFileException {
    int n = whole ? in.remaining() : (int) in.varint(MAX_VALUE_BYTES);
    in.take(n);
    s.values++;
    s.bytes += n;
  }

  @Override
  public boolean measureInflated(long size, VectorSizes s) {
    s.values++;
    s.bytes += size;
    return true;
  }

  @Override
  public boolean estimateRecords(long count, long bytes, VectorSizes s) {
    // A whole-form value is its bytes, without a length.
    s.values += count;
    s.bytes += bytes;
    return true;
  }

  @Override
  public void presize(FieldVector v, VectorSizes s) {
    s.sizeVariable(v);
  }

  static boolean handles(FieldVector v) {
    return v instanceof BaseVariableWidthVector || v instanceof BaseLargeVariableWidthVector;
  }
}
