package dev.riffle.format.encoding;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * LSB-first bit packing of unsigned values of a fixed width into a byte stream.
 *
 * <p>Value {@code j} of width {@code w} occupies bits {@code [j*w, (j+1)*w)} of the stream, where
 * stream bit {@code k} is bit {@code k % 8} of byte {@code k / 8}. This is the same bit order as a
 * sequence of little-endian 64-bit words, which is what lets readers extract a value with one
 * unaligned 8-byte load. Widths range from 0 (every value is zero and takes no space) to 64.
 */
public final class BitPacking {

  private BitPacking() {}

  /**
   * Bytes needed for {@code n} values of width {@code w}: {@code ceil(n*w/8)}.
   *
   * @throws IllegalArgumentException if {@code n < 0}, {@code w} is outside {@code [0, 64]}, or the
   *     result does not fit in an {@code int}
   */
  public static int packedBytes(int n, int w) {
    checkWidth(w);
    if (n < 0) {
      throw new IllegalArgumentException("negative value count " + n);
    }
    long bytes = ((long) n * w + 7) >>> 3;
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(n + " values of width " + w + " exceed 2 GiB");
    }
    return (int) bytes;
  }

  /**
   * Packs {@code values[0..n)} into {@code out} starting at its position, advancing the position by
   * {@link #packedBytes(int, int) packedBytes(n, w)}. Only the low {@code w} bits of each value are
   * used. The byte order of {@code out} does not matter and is left unchanged.
   *
   * @throws IllegalArgumentException if {@code w} is outside {@code [0, 64]} or {@code n} is
   *     negative or larger than {@code values.length}
   * @throws BufferOverflowException if {@code out} has fewer than {@code packedBytes(n, w)} bytes
   *     remaining; nothing is written in that case
   */
  public static void pack(long[] values, int n, int w, ByteBuffer out) {
    int bytes = packedBytes(n, w);
    if (n > values.length) {
      throw new IllegalArgumentException(n + " values requested, array holds " + values.length);
    }
    if (out.remaining() < bytes) {
      // Checked up front so that a failed call leaves no half-written stream behind.
      throw new BufferOverflowException();
    }
    if (w == 0) {
      return;
    }
    boolean le = out.order() == ByteOrder.LITTLE_ENDIAN;
    long mask = mask(w);
    // acc holds the 0..63 stream bits not yet written; whole 64-bit words are flushed at once so
    // that the common case costs one putLong per 64 bits instead of a put per byte.
    long acc = 0;
    int bits = 0;
    for (int j = 0; j < n; j++) {
      long v = values[j] & mask;
      acc |= v << bits;
      int total = bits + w;
      if (total >= 64) {
        out.putLong(le ? acc : Long.reverseBytes(acc));
        // The bits of v that did not fit above bit 63. Java masks shift counts to 6 bits, so a
        // shift by 64 (bits == 0) would return v itself instead of nothing.
        acc = bits == 0 ? 0 : v >>> (64 - bits);
        total -= 64;
      }
      bits = total;
    }
    for (; bits > 0; bits -= 8) {
      out.put((byte) acc);
      acc >>>= 8;
    }
  }

  /**
   * {@link #pack} into {@code dst[at, at + packedBytes(n, w))} of a byte array, for writers: the
   * same stream, flushed as little-endian words straight into the array.
   *
   * @throws IndexOutOfBoundsException if the stream does not fit in {@code dst} from {@code at}
   */
  static void packInto(long[] values, int n, int w, byte[] dst, int at) {
    int bytes = packedBytes(n, w);
    java.util.Objects.checkFromIndexSize(at, bytes, dst.length);
    if (n > values.length) {
      throw new IllegalArgumentException(n + " values requested, array holds " + values.length);
    }
    if (w == 0) {
      return;
    }
    long mask = mask(w);
    int p = at;
    int j = 0;
    if (w <= 8) {
      // Eight values of width w fill exactly w bytes: build each group's word at once and store
      // it with one 8-byte write (its high bytes, zero, are overwritten by the next group's).
      int end = at + bytes;
      for (; j + 8 <= n; j += 8, p += w) {
        long word =
            (values[j] & mask)
                | (values[j + 1] & mask) << w
                | (values[j + 2] & mask) << 2 * w
                | (values[j + 3] & mask) << 3 * w
                | (values[j + 4] & mask) << 4 * w
                | (values[j + 5] & mask) << 5 * w
                | (values[j + 6] & mask) << 6 * w
                | (values[j + 7] & mask) << 7 * w;
        if (p + 8 <= end) {
          PackedLists.LONGS.set(dst, p, word);
        } else {
          for (int b = 0; b < w; b++) {
            dst[p + b] = (byte) (word >>> (8 * b));
          }
        }
      }
    }
    // The rest (all of it for w > 8) from a byte boundary: j·w is a multiple of 8 here.
    long acc = 0;
    int bits = 0;
    for (; j < n; j++) {
      long v = values[j] & mask;
      acc |= v << bits;
      int total = bits + w;
      if (total >= 64) {
        // A whole word of the stream: its 8 bytes lie inside [at, at + bytes).
        PackedLists.LONGS.set(dst, p, acc);
        p += 8;
        acc = bits == 0 ? 0 : v >>> (64 - bits);
        total -= 64;
      }
      bits = total;
    }
    for (; bits > 0; bits -= 8) {
      dst[p++] = (byte) acc;
      acc >>>= 8;
    }
  }

  /**
   * Extracts value {@code j} of width {@code w} from a packed stream starting at absolute index
   * {@code base} of {@code buf}. The buffer's position is not changed.
   *
   * <p>No byte beyond the last one that holds the value is required to be inside the buffer: when
   * fewer than 8 bytes remain before the buffer's limit the value is assembled byte by byte, so a
   * buffer that ends exactly at {@code base + packedBytes(j + 1, w)} is fine. {@code buf} should be
   * little-endian; other byte orders give the same result at a small extra cost.
   *
   * @throws IllegalArgumentException if {@code w} is outside {@code [0, 64]}
   * @throws IndexOutOfBoundsException if {@code base} or {@code j} is negative, or a byte holding
   *     the value lies at or beyond the buffer's limit
   */
  public static long get(ByteBuffer buf, int base, int j, int w) {
    checkWidth(w);
    if (base < 0 || j < 0) {
      throw new IndexOutOfBoundsException("base " + base + ", index " + j);
    }
    if (w == 0) {
      return 0;
    }
    long bitPos = (long) j * w;
    return read(
        buf,
        byteIndex(base, bitPos),
        (int) (bitPos & 7),
        w,
        mask(w),
        buf.order() == ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Unpacks {@code n} values, starting at value index {@code first}, of a packed stream starting at
   * absolute index {@code base} of {@code buf} into {@code dst[0..n)}. The buffer's position is not
   * changed. Reads no byte beyond the last one that holds value {@code first + n - 1}.
   *
   * @throws IllegalArgumentException if {@code w} is outside {@code [0, 64]} or {@code n} is
   *     negative
   * @throws IndexOutOfBoundsException if {@code base} or {@code first} is negative, {@code dst} is
   *     shorter than {@code n}, or a byte holding a requested value is outside the buffer
   */
  public static void unpack(ByteBuffer buf, int base, int first, int n, int w, long[] dst) {
    checkWidth(w);
    if (n < 0) {
      throw new IllegalArgumentException("negative value count " + n);
    }
    if (base < 0 || first < 0 || n > dst.length) {
      throw new IndexOutOfBoundsException(
          "base " + base + ", first " + first + ", count " + n + ", dst length " + dst.length);
    }
    if (w == 0) {
      Arrays.fill(dst, 0, n, 0L);
      return;
    }
    if (n == 0) {
      return;
    }
    long bitPos = (long) first * w;
    // Validates the whole range once, so the loop below can use int arithmetic.
    byteIndex(base, bitPos + (long) (n - 1) * w);
    boolean le = buf.order() == ByteOrder.LITTLE_ENDIAN;
    long mask = mask(w);
    for (int i = 0; i < n; i++, bitPos += w) {
      dst[i] = read(buf, base + (int) (bitPos >>> 3), (int) (bitPos & 7), w, mask, le);
    }
  }

  /** Number of bits needed to represent {@code v} as unsigned: 0 for 0, 64 for negative values. */
  public static int bitWidth(long v) {
    return 64 - Long.numberOfLeadingZeros(v);
  }

  private static long read(ByteBuffer buf, int idx, int shift, int w, long mask, boolean le) {
    // idx <= limit - 8 rather than idx + 8 <= limit: the latter overflows near Integer.MAX_VALUE.
    if (idx <= buf.limit() - 8) {
      long word = buf.getLong(idx);
      if (!le) {
        word = Long.reverseBytes(word);
      }
      long v = word >>> shift;
      if (shift + w > 64) {
        // The value straddles 9 bytes; the 9th holds its top bits, so reading it is in bounds.
        v |= (buf.get(idx + 8) & 0xFFL) << (64 - shift);
      }
      return v & mask;
    }
    // Near the end of the buffer: touch only the bytes that hold the value, so that a stream
    // ending flush with the buffer limit is never read past.
    int nBytes = (shift + w + 7) >>> 3;
    long v = 0;
    for (int k = 0, end = Math.min(nBytes, 8); k < end; k++) {
      v |= (buf.get(idx + k) & 0xFFL) << (k << 3);
    }
    v >>>= shift;
    if (nBytes == 9) {
      v |= (buf.get(idx + 8) & 0xFFL) << (64 - shift);
    }
    return v & mask;
  }

  private static int byteIndex(int base, long bitPos) {
    long idx = base + (bitPos >>> 3);
    if (idx > Integer.MAX_VALUE) {
      throw new IndexOutOfBoundsException("bit position " + bitPos + " beyond 2 GiB");
    }
    return (int) idx;
  }

  private static long mask(int w) {
    return w == 64 ? -1L : (1L << w) - 1;
  }

  private static void checkWidth(int w) {
    if (w < 0 || w > 64) {
      throw new IllegalArgumentException("bit width " + w + " outside [0, 64]");
    }
  }
}
