package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Turns a column's plain records into packed records (ZipLayout.CONTROL_PACKED): the same bytes
 * with every packable list (integer lists, and float lists of format 1.4) in packed form. Working
 * from the plain record, not from the Arrow vectors, keeps the choice between plain and packed a
 * function of the record alone.
 */
public final class RecordPacker {
  private final ValueCodec codec;
  private final StructCodec group;

  private RecordPacker(ValueCodec codec, StructCodec group) {
    this.codec = codec;
    this.group = group;
  }

  /** A packer for a single-field column, or null if its records hold no packable list. */
  public static RecordPacker of(ValueCodec codec) {
    return codec.packs(true) ? new RecordPacker(codec, null) : null;
  }

  /** A packer for a column group, or null if its records hold no packable list. */
  public static RecordPacker of(StructCodec group) {
    return group.packs(true) ? new RecordPacker(null, group) : null;
  }

  /** Appends the packed form of the plain record {@code data[from, from + length)}. */
  public void pack(byte[] data, int from, int length, ByteSink out) {
    RecordInput in =
        new RecordInput("record")
            .reset(ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN), from, length, 0);
    try {
      if (codec != null) {
        codec.pack(in, out, true);
      } else {
        group.pack(in, out);
      }
    } catch (CorruptFileException e) {
      throw new IllegalStateException("a record the writer encoded does not parse", e);
    }
    if (in.remaining() != 0) {
      throw new IllegalStateException("a record the writer encoded has trailing bytes");
    }
  }
}
