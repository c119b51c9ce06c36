package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/** A boolean inside a record: one byte, 0 or 1 (sector pages bit-pack top-level booleans). */
final class BoolCodec extends ValueCodec {

  @Override
  public int fixedWidth() {
    return 1;
  }

  @Override
  public void encode(FieldVector vector, int index, ByteSink out, boolean whole) {
    out.put((byte) ((BitVector) vector).get(index));
  }

  @Override
  public void decode(RecordInput in, FieldVector vector, int index, boolean whole)
      throws CorruptFileException {
    int b = in.u8();
    if (b > 1) {
      throw new dev.riffle.format.CorruptFileException(
          in.resource(), in.fileOffset() - 1, "boolean byte " + b + " is neither 0 nor 1");
    }
    ((BitVector) vector).setSafe(index, b);
  }

  @Override
  public void skip(RecordInput in, boolean whole) throws CorruptFileException {
    in.take(1);
  }
}
