package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;

/**
 * The packed form of a list of non-null float32 or float64 items (format 1.4, FORMAT.md §5.3): a
 * varint count n, then for n ≥ 1 a form byte. Form {@link #FORM_PLAIN}: the n items as stored in a
 * plain record. Form {@link #FORM_INTEGERS}, when every item is an integer-valued float (counts):
 * the smallest as a zigzag varint {@code m}, a bit width w and every item's excess over {@code m}
 * bit-packed with width w; an item is restored as the float equal to {@code m + excess}, which
 * gives back its exact bits. Form {@link #FORM_DICTIONARY}, for other lists whose distinct values
 * are few: the distinct values (by bits, in order of first appearance) and every item's index into
 * them, bit-packed.
 *
 * <p>Why: single-cell counts are float32 values 1, 2, 3 … with a long tail. Stored as floats they
 * take 32 bits each and only zstd shrinks them, at the price of an inflate on every random read; as
 * integers they take the few bits their range needs and unpack at memory speed. Normalised counts
 * (log1p of counts scaled per cell, what most published atlases store as X) are no longer integers,
 * but a row holds only as many distinct values as it has distinct counts: a dictionary of those and
 * a few bits an item, again without an inflate.
 */
final class PackedFloats {
  private PackedFloats() {}

  static final int FORM_PLAIN = 0;
  static final int FORM_INTEGERS = 1;
  static final int FORM_DICTIONARY = 2;

  /**
   * Largest magnitude of an item packed as an integer: every float of at most this magnitude that
   * has an integer value converts to a {@code long} and back exactly, and the excesses over the
   * smallest item stay below 2^63.
   */
  static final double MAX_INTEGER = 0x1p62;

  private static double item(ByteBuffer src, int pos, int i, int width) {
    return width == 4 ? src.getFloat(pos + 4 * i) : src.getDouble(pos + 8 * i);
  }

  /** Whether {@code x} round-trips exactly through a {@code long}: integral, finite, not −0.0. */
  static boolean isInteger(double x) {
    // The range test first (it is false for NaN), then a round trip through long: a truncating
    // conversion each way, which costs the writer less than Math.rint on every stored value.
    return Math.abs(x) <= MAX_INTEGER
        && (double) (long) x == x
        && (x != 0 || Double.doubleToRawLongBits(x) == 0);
  }

  /**
   * Appends the packed form (count included) of the {@code n} plain items of {@code width} bytes (4
   * or 8) at {@code src[pos, pos + n·width)}; {@code src} must be little-endian.
   */
  static void pack(ByteBuffer src, int pos, int n, int width, ByteSink out) {
    out.putVarint(n);
    if (n == 0) {
      return;
    }
    // One pass: every item as an integer into the scratch array, with their range; then the
    // excesses in place. The first item that is not an integer sends the whole list plain.
    long[] values = PackedLists.writerScratch(n);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    boolean integers = true;
    if (width == 4 && src.hasArray() && int32Counts(src.array(), src.arrayOffset() + pos, n)) {
      // Every item converted to an int and back exactly: the values are those ints.
      for (int i = 0; i < n; i++) {
        long v = values[i];
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    } else {
      for (int i = 0; i < n; i++) {
        // A float32 item is widened exactly; NaN, infinities, -0.0 and fractions are not integers.
        double x = item(src, pos, i, width);
        if (!isInteger(x)) {
          integers = false;
          break;
        }
        long v = (long) x;
        values[i] = v;
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    }
    if (!integers) {
      if (!FloatDictionaries.pack(src, pos, n, width, out)) {
        out.put((byte) FORM_PLAIN);
        int at = out.reserve(n * width);
        src.get(pos, out.array(), at, n * width);
      }
      return;
    }
    out.put((byte) FORM_INTEGERS);
    PackedLists.putVarint64(out, PackedLists.zigzag(min));
    int w = BitPacking.bitWidth(max - min);
    out.put((byte) w);
    if (w == 0) {
      return;
    }
    for (int i = 0; i < n; i++) {
      values[i] -= min;
    }
    int bytes = BitPacking.packedBytes(n, w);
    int at = out.reserve(bytes);
    BitPacking.packInto(values, n, w, out.array(), at);
  }

  /**
   * Whether the {@code n} float32 items at {@code a[base]} are all ints that round-trip exactly
   * (not -0.0, not 2^31 or beyond, which the general test handles), leaving them in the writer's
   * scratch array. Branch-free over the items: lists of counts are the common case.
   */
  private static boolean int32Counts(byte[] a, int base, int n) {
    Objects.checkFromIndexSize(base, 4 * n, a.length);
    long[] values = PackedLists.writerScratch(n);
    boolean exact = true;
    // In blocks, so that a list of fractions stops after its first block.
    for (int from = 0; from < n && exact; from += 64) {
      int to = Math.min(n, from + 64);
      for (int i = from; i < to; i++) {
        int bits = (int) PackedLists.INTS.get(a, base + 4 * i);
        float f = Float.intBitsToFloat(bits);
        int k = (int) f;
        // NaN gives 0 and fails the compare; ±∞ and |f| ≥ 2^31 saturate; -0.0 is 0 with bits set.
        exact &= ((float) k == f) & (k != Integer.MAX_VALUE) & ((k != 0) | (bits == 0));
        values[i] = k;
      }
    }
    return exact;
  }

  /**
   * Decodes the packed items of a list of {@code n} items (its count already read) into slots
   * {@code [first, first + n)} of {@code v}, straight into its data buffer. Reads of the packed
   * bytes are bounds-checked as in {@link PackedLists#decode}; stores are checked once, here.
   */
  static void decode(RecordInput in, int n, int width, BaseFixedWidthVector v, int first)
      throws CorruptFileException {
    if (n == 0) {
      return;
    }
    int form = form(in);
    FixedCodec.ensureCapacity(v, first + n);
    ArrowBuf data = v.getDataBuffer();
    long slots = (long) first * width;
    Objects.checkFromIndexSize(slots, (long) n * width, data.capacity());
    if (form == FORM_PLAIN) {
      int at = in.take((long) n * width);
      ByteBuffer buf = in.buffer();
      data.setBytes(slots, buf.duplicate().limit(at + n * width).position(at));
    } else if (form == FORM_DICTIONARY) {
      FloatDictionaries.decode(in, n, width, data.memoryAddress() + slots);
    } else {
      long m = PackedLists.unzigzag(in.varint64());
      int w = PackedLists.bitWidth(in);
      int at = in.take(((long) n * w + 7) >>> 3);
      long addr = data.memoryAddress() + slots;
      if (w == 0) {
        for (int i = 0; i < n; i++) {
          store(addr, i, width, m);
        }
      } else if (w > 56) {
        ByteBuffer buf = in.buffer();
        for (int i = 0; i < n; i++) {
          store(addr, i, width, m + BitPacking.get(buf, at, i, w));
        }
      } else {
        unpack(in.buffer(), at, n, w, m, addr, width);
      }
    }
    Buffers.setValid(v.getValidityBuffer(), first, n);
  }

  /**
   * The hot loop: one bounds-checked 8-byte load per item from the record's array (or a padded copy
   * of the packed bytes of a direct buffer), shift, mask, add, convert.
   */
  private static void unpack(ByteBuffer buf, int at, int n, int w, long m, long addr, int width) {
    byte[] src;
    int off;
    int fast;
    if (buf.hasArray()) {
      src = buf.array();
      off = buf.arrayOffset() + at;
      fast = PackedLists.fastCount(buf.limit() - 8 - at, n, w);
    } else {
      int bytes = (int) (((long) n * w + 7) >>> 3);
      src = PackedLists.scratch(bytes + 8);
      buf.get(at, src, 0, bytes);
      Arrays.fill(src, bytes, bytes + 8, (byte) 0);
      off = 0;
      fast = n;
    }
    long mask = (1L << w) - 1;
    int i = 0;
    if (width == 4 && w <= 8) {
      // Counts: eight items of width w fill exactly w bytes, so one load serves a group of eight.
      int groups = fast >>> 3;
      floatGroups(src, off, groups, w, m, addr);
      i = groups << 3;
    }
    if (width == 4) {
      for (long bit = (long) i * w; i < fast; i++, bit += w) {
        long p = ((long) PackedLists.LONGS.get(src, off + (int) (bit >>> 3)) >>> (bit & 7)) & mask;
        MemoryUtil.putInt(addr + 4L * i, Float.floatToRawIntBits((float) (m + p)));
      }
    } else {
      for (long bit = 0; i < fast; i++, bit += w) {
        long p = ((long) PackedLists.LONGS.get(src, off + (int) (bit >>> 3)) >>> (bit & 7)) & mask;
        MemoryUtil.putLong(addr + 8L * i, Double.doubleToRawLongBits((double) (m + p)));
      }
    }
    for (; i < n; i++) {
      store(addr, i, width, m + BitPacking.get(buf, at, i, w));
    }
  }

  /*
   * Groups of eight float32 items of width w ≤ 8. As in PackedLists, the dispatch on w gives each
   * inlined copy of the loop a constant w, so that the JIT checks its loads once, before the loop;
   * unlike index deltas, items do not depend on each other, so the eight conversions overlap.
   */

  private static void floatGroups(byte[] src, int g, int groups, int w, long m, long out) {
    switch (w) {
      case 1:
        floatLoop(src, g, groups, 1, m, out);
        break;
      case 2:
        floatLoop(src, g, groups, 2, m, out);
        break;
      case 3:
        floatLoop(src, g, groups, 3, m, out);
        break;
      case 4:
        floatLoop(src, g, groups, 4, m, out);
        break;
      case 5:
        floatLoop(src, g, groups, 5, m, out);
        break;
      case 6:
        floatLoop(src, g, groups, 6, m, out);
        break;
      case 7:
        floatLoop(src, g, groups, 7, m, out);
        break;
      default:
        floatLoop(src, g, groups, 8, m, out);
    }
  }

  private static void floatLoop(byte[] src, int g, int groups, int w, long m, long out) {
    long mask = (1L << w) - 1;
    for (int t = 0; t < groups; t++, out += 32) {
      long word = (long) PackedLists.LONGS.get(src, g + t * w);
      MemoryUtil.putInt(out, Float.floatToRawIntBits((float) (m + (word & mask))));
      MemoryUtil.putInt(out + 4, Float.floatToRawIntBits((float) (m + ((word >>> w) & mask))));
      MemoryUtil.putInt(
          out + 8, Float.floatToRawIntBits((float) (m + ((word >>> (2 * w)) & mask))));
      MemoryUtil.putInt(
          out + 12, Float.floatToRawIntBits((float) (m + ((word >>> (3 * w)) & mask))));
      MemoryUtil.putInt(
          out + 16, Float.floatToRawIntBits((float) (m + ((word >>> (4 * w)) & mask))));
      MemoryUtil.putInt(
          out + 20, Float.floatToRawIntBits((float) (m + ((word >>> (5 * w)) & mask))));
      MemoryUtil.putInt(
          out + 24, Float.floatToRawIntBits((float) (m + ((word >>> (6 * w)) & mask))));
      MemoryUtil.putInt(
          out + 28, Float.floatToRawIntBits((float) (m + ((word >>> (7 * w)) & mask))));
    }
  }

  /** Writes item {@code i}, the float (width 4) or double (width 8) equal to {@code x}. */
  private static void store(long addr, int i, int width, long x) {
    if (width == 4) {
      MemoryUtil.putInt(addr + 4L * i, Float.floatToRawIntBits((float) x));
    } else {
      MemoryUtil.putLong(addr + 8L * i, Double.doubleToRawLongBits((double) x));
    }
  }

  private static int form(RecordInput in) throws CorruptFileException {
    int form = in.u8();
    if (form != FORM_PLAIN && form != FORM_INTEGERS && form != FORM_DICTIONARY) {
      throw new CorruptFileException(
          in.resource(), in.fileOffset() - 1, "unknown packed float list form " + form);
    }
    return form;
  }

  /** Reads past the packed items of a list of {@code n} items (its count already read). */
  static void skip(RecordInput in, int n, int width) throws CorruptFileException {
    if (n == 0) {
      return;
    }
    int form = form(in);
    if (form == FORM_PLAIN) {
      in.take((long) n * width);
      return;
    }
    if (form == FORM_DICTIONARY) {
      FloatDictionaries.skip(in, n, width);
      return;
    }
    in.varint64();
    int w = PackedLists.bitWidth(in);
    in.take(((long) n * w + 7) >>> 3);
  }
}
