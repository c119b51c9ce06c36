package dev.riffle.format.encoding;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.ZipLayout;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;

/**
 * The packed form of a list of non-null integer-kind items (format 1.3, {@link
 * ZipLayout#CONTROL_PACKED}, FORMAT.md §5.3): varint count n; if n ≥ 1 the first item as a zigzag
 * varint; if n ≥ 2 the smallest delta between neighbours as a zigzag varint, a bit width byte and
 * every delta's excess over that base, bit-packed. Items are sign- or zero-extended to 64 bits and
 * deltas wrap modulo 2^64, so any list packs, sorted or not.
 */
final class PackedLists {
  private PackedLists() {}

  static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  static long unzigzag(long z) {
    return (z >>> 1) ^ -(z & 1);
  }

  /** Item {@code i} of a plain run at {@code pos}, extended to 64 bits. */
  private static long item(ByteBuffer src, int pos, int i, int width, boolean signed) {
    switch (width) {
      case 1:
        byte b = src.get(pos + i);
        return signed ? b : b & 0xFFL;
      case 2:
        short s = src.getShort(pos + 2 * i);
        return signed ? s : s & 0xFFFFL;
      case 4:
        int v = src.getInt(pos + 4 * i);
        return signed ? v : v & 0xFFFFFFFFL;
      default:
        return src.getLong(pos + 8 * i);
    }
  }

  /**
   * Appends the packed form (count included) of the {@code n} plain items of {@code width} bytes at
   * {@code src[pos, pos + n·width)}; {@code src} must be little-endian.
   */
  static void pack(ByteBuffer src, int pos, int n, int width, boolean signed, ByteSink out) {
    out.putVarint(n);
    if (n == 0) {
      return;
    }
    long prev = item(src, pos, 0, width, signed);
    putVarint64(out, zigzag(prev));
    if (n == 1) {
      return;
    }
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 1; i < n; i++) {
      long x = item(src, pos, i, width, signed);
      long d = x - prev;
      min = Math.min(min, d);
      max = Math.max(max, d);
      prev = x;
    }
    // max - min, read unsigned, always fits: both are signed 64-bit deltas.
    int w = BitPacking.bitWidth(max - min);
    putVarint64(out, zigzag(min));
    out.put((byte) w);
    if (w == 0) {
      return;
    }
    long[] excess = new long[n - 1];
    prev = item(src, pos, 0, width, signed);
    for (int i = 1; i < n; i++) {
      long x = item(src, pos, i, width, signed);
      excess[i - 1] = x - prev - min;
      prev = x;
    }
    int bytes = BitPacking.packedBytes(n - 1, w);
    int at = out.reserve(bytes);
    BitPacking.pack(
        excess,
        n - 1,
        w,
        ByteBuffer.wrap(out.array(), at, bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN));
  }

  /**
   * Decodes the packed items of a list of {@code n} items (its count already read) into slots
   * {@code [first, first + n)} of {@code v}, straight into its data buffer.
   */
  static void decode(RecordInput in, int n, int width, BaseFixedWidthVector v, int first)
      throws CorruptFileException {
    if (n == 0) {
      return;
    }
    long x = unzigzag(in.varint64());
    long base = 0;
    int w = 0;
    int at = 0;
    if (n > 1) {
      base = unzigzag(in.varint64());
      w = bitWidth(in);
      at = in.take(((long) (n - 1) * w + 7) >>> 3);
    }
    // Every byte read lies within the record, so the slots can be made ready and written blind.
    FixedCodec.ensureCapacity(v, first + n);
    long addr = v.getDataBuffer().memoryAddress() + (long) first * width;
    ByteBuffer buf = in.buffer();
    switch (width) {
      case 1:
        MemoryUtil.putByte(addr, (byte) x);
        for (int i = 1; i < n; i++) {
          x += base + excess(buf, at, i - 1, w);
          MemoryUtil.putByte(addr + i, (byte) x);
        }
        break;
      case 2:
        MemoryUtil.putShort(addr, (short) x);
        for (int i = 1; i < n; i++) {
          x += base + excess(buf, at, i - 1, w);
          MemoryUtil.putShort(addr + 2L * i, (short) x);
        }
        break;
      case 4:
        MemoryUtil.putInt(addr, (int) x);
        for (int i = 1; i < n; i++) {
          x += base + excess(buf, at, i - 1, w);
          MemoryUtil.putInt(addr + 4L * i, (int) x);
        }
        break;
      default:
        MemoryUtil.putLong(addr, x);
        for (int i = 1; i < n; i++) {
          x += base + excess(buf, at, i - 1, w);
          MemoryUtil.putLong(addr + 8L * i, x);
        }
    }
    FixedCodec.setValid(v.getValidityBuffer(), first, n);
  }

  /**
   * Excess {@code j} of width {@code w} in the stream at {@code at}: one unaligned 8-byte load
   * while 8 bytes remain in the buffer (bytes past the record are masked off), else byte by byte.
   */
  private static long excess(ByteBuffer buf, int at, int j, int w) {
    if (w == 0) {
      return 0;
    }
    long bit = (long) j * w;
    int idx = at + (int) (bit >>> 3);
    int sh = (int) bit & 7;
    if (idx <= buf.limit() - 8) {
      long v = buf.getLong(idx) >>> sh;
      if (sh + w > 64) {
        v |= (buf.get(idx + 8) & 0xFFL) << (64 - sh);
      }
      return w == 64 ? v : v & ((1L << w) - 1);
    }
    return BitPacking.get(buf, at, j, w);
  }

  private static int bitWidth(RecordInput in) throws CorruptFileException {
    int w = in.u8();
    if (w > ZipLayout.MAX_PACKED_BIT_WIDTH) {
      // Reported at the width byte itself.
      throw new CorruptFileException(
          in.resource(),
          in.fileOffset() - 1,
          "packed list bit width " + w + " exceeds " + ZipLayout.MAX_PACKED_BIT_WIDTH);
    }
    return w;
  }

  /** Reads past the packed items of a list of {@code n} items (its count already read). */
  static void skip(RecordInput in, int n) throws CorruptFileException {
    if (n == 0) {
      return;
    }
    in.varint64();
    if (n > 1) {
      in.varint64();
      int w = bitWidth(in);
      in.take(((long) (n - 1) * w + 7) >>> 3);
    }
  }

  static void putVarint64(ByteSink out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.put((byte) (v | 0x80));
      v >>>= 7;
    }
    out.put((byte) v);
  }
}
