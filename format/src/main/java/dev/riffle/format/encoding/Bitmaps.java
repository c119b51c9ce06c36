package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import java.nio.ByteBuffer;
import org.apache.arrow.vector.FieldVector;

/** Validity bitmaps inside records and sectors: bit k is bit (k % 8) of byte k / 8; 1 = valid. */
public final class Bitmaps {
  private Bitmaps() {}

  public static int bytes(int bits) {
    return (bits + 7) >>> 3;
  }

  /**
   * Appends the validity of {@code vector[start, start + count)} and returns how many are valid.
   */
  static int write(FieldVector vector, int start, int count, ByteSink out) {
    int at = out.reserve(bytes(count));
    byte[] a = out.array();
    java.util.Arrays.fill(a, at, at + bytes(count), (byte) 0);
    int valid = 0;
    for (int k = 0; k < count; k++) {
      if (!vector.isNull(start + k)) {
        a[at + (k >>> 3)] |= (byte) (1 << (k & 7));
        valid++;
      }
    }
    return valid;
  }

  public static boolean get(ByteBuffer buf, int base, int k) {
    return (buf.get(base + (k >>> 3)) & (1 << (k & 7))) != 0;
  }

  /** Number of set bits among the first {@code k} bits. */
  public static int rank(ByteBuffer buf, int base, int k) {
    int count = 0;
    int full = k >>> 3;
    int i = 0;
    for (; i + 8 <= full; i += 8) {
      count += Long.bitCount(buf.getLong(base + i));
    }
    for (; i < full; i++) {
      count += Integer.bitCount(buf.get(base + i) & 0xFF);
    }
    int rest = k & 7;
    if (rest != 0) {
      count += Integer.bitCount(buf.get(base + full) & ((1 << rest) - 1));
    }
    return count;
  }

  /**
   * Reads a bitmap of {@code count} bits from the record, checks that its padding bits are zero (so
   * that every file has one byte form), and returns its start position.
   */
  static int read(RecordInput in, int count) throws CorruptFileException {
    int at = in.take(bytes(count));
    int rest = count & 7;
    if (rest != 0) {
      int last = in.buffer().get(at + (count >>> 3)) & 0xFF;
      if ((last >>> rest) != 0) {
        throw new CorruptFileException(
            in.resource(), in.fileOffset() - 1, "validity bitmap has bits set past its length");
      }
    }
    return at;
  }
}
