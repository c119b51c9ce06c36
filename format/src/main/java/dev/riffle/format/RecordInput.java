package dev.riffle.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A bounds-checked little-endian cursor over the bytes of one record (or one sector). Every read
 * that would pass the end throws {@link CorruptFileException} naming the resource and the absolute
 * file offset, so decoders never see an index error from a damaged file.
 */
public final class RecordInput {
  private final String resource;
  private ByteBuffer buf;
  private long fileOffset;

  /** Whether the bytes were inflated from a frame, so that positions are not file positions. */
  private boolean inflated;

  private int position;
  private int limit;

  /** Whether packable lists are in packed form (a packed ZIP_VAR record). */
  private boolean packed;

  /** Whether float lists are packable too (a packed record of a 1.4 file). */
  private boolean packedFloats;

  /** Item bytes the packed lists of this record may still restore. */
  private long packedBudget;

  public RecordInput(String resource) {
    this.resource = resource;
  }

  /**
   * Points the cursor at {@code buf[start, start + length)}, whose first byte lies at {@code
   * fileOffset} in the resource.
   */
  public RecordInput reset(ByteBuffer buf, int start, int length, long fileOffset) {
    this.buf =
        buf.order() == ByteOrder.LITTLE_ENDIAN
            ? buf
            : buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    this.position = start;
    this.limit = start + length;
    this.fileOffset = fileOffset - start;
    this.inflated = false;
    this.packed = false;
    this.packedFloats = false;
    return this;
  }

  /**
   * Points the cursor at {@code buf[start, start + length)}, bytes inflated from the compressed
   * frame at {@code frameOffset}: a position inside them has no file offset of its own, so every
   * corruption is reported at the frame.
   */
  public RecordInput resetInflated(ByteBuffer buf, int start, int length, long frameOffset) {
    reset(buf, start, length, frameOffset);
    this.fileOffset = frameOffset;
    this.inflated = true;
    return this;
  }

  /**
   * Marks the bytes as a packed record (ZipLayout.CONTROL_PACKED): list codecs then read their
   * packable lists in packed form. Call after {@link #reset}.
   */
  public RecordInput packed(boolean floats) {
    this.packed = true;
    this.packedFloats = floats;
    this.packedBudget = dev.riffle.format.ZipLayout.MAX_PACKED_ITEM_BYTES;
    return this;
  }

  public boolean isPacked() {
    return packed;
  }

  /** Whether float lists are in packed form too (format 1.4). */
  public boolean packsFloats() {
    return packedFloats;
  }

  /**
   * Accounts for {@code bytes} restored by a packed list; packed items may take no space, so their
   * total per record is capped instead of their count being tied to the record's length.
   */
  public void spendPacked(long bytes) throws CorruptFileException {
    if (bytes > packedBudget) {
      throw corrupt(
          "packed lists restore more than "
              + dev.riffle.format.ZipLayout.MAX_PACKED_ITEM_BYTES
              + " item bytes");
    }
    packedBudget -= bytes;
  }

  public String resource() {
    return resource;
  }

  public ByteBuffer buffer() {
    return buf;
  }

  public int position() {
    return position;
  }

  public int limit() {
    return limit;
  }

  public int remaining() {
    return limit - position;
  }

  /** The absolute file offset of the cursor (of the frame, for inflated bytes). */
  public long fileOffset() {
    return inflated ? fileOffset : fileOffset + position;
  }

  /** A corruption at {@code fileOffset}, a position this input has read past. */
  public CorruptFileException corruptAt(long fileOffset, String message) {
    return new CorruptFileException(resource, fileOffset, message);
  }

  /** A corruption at the cursor. */
  public CorruptFileException corrupt(String message) {
    return new CorruptFileException(
        resource,
        fileOffset(),
        inflated ? message + " (in the bytes this compressed frame inflates to)" : message);
  }

  /** Checks that {@code n} bytes remain and returns the position they start at, advancing past. */
  public int take(long n) throws CorruptFileException {
    if (n < 0 || n > remaining()) {
      throw corrupt("record needs " + n + " bytes but only " + remaining() + " remain");
    }
    int start = position;
    position += (int) n;
    return start;
  }

  public int u8() throws CorruptFileException {
    return buf.get(take(1)) & 0xFF;
  }

  public int u16() throws CorruptFileException {
    return buf.getShort(take(2)) & 0xFFFF;
  }

  public int i32() throws CorruptFileException {
    return buf.getInt(take(4));
  }

  public long i64() throws CorruptFileException {
    return buf.getLong(take(8));
  }

  /** An unsigned LEB128 value that must be at most {@code max}. */
  public long varint(long max) throws CorruptFileException {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = u8();
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        if (v < 0 || v > max) {
          throw corrupt("count or length " + Long.toUnsignedString(v) + " exceeds " + max);
        }
        return v;
      }
    }
    throw corrupt("varint longer than 10 bytes");
  }

  /**
   * An unsigned LEB128 value of up to 64 bits, returned as its two's-complement {@code long}; the
   * 10th byte may only hold the top bit.
   */
  public long varint64() throws CorruptFileException {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = u8();
      if (shift == 63 && b > 1) {
        throw corrupt("varint exceeds 64 bits");
      }
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw corrupt("varint longer than 10 bytes");
  }
}
