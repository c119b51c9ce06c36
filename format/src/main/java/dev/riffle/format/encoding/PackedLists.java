package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import dev.riffle.format.ZipLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
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
    long first = item(src, pos, 0, width, signed);
    putVarint64(out, zigzag(first));
    if (n == 1) {
      return;
    }
    // One pass: every delta into the scratch array, with their range; then the excesses in place.
    long[] excess = writerScratch(n - 1);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long prev = first;
    if (width == 4 && src.hasArray()) {
      byte[] a = src.array();
      int base = src.arrayOffset() + pos;
      Objects.checkFromIndexSize(base, 4 * n, a.length);
      long ext = signed ? -1L : 0xFFFFFFFFL;
      for (int i = 1; i < n; i++) {
        long x = (int) INTS.get(a, base + 4 * i) & ext;
        long d = x - prev;
        excess[i - 1] = d;
        min = Math.min(min, d);
        max = Math.max(max, d);
        prev = x;
      }
    } else {
      for (int i = 1; i < n; i++) {
        long x = item(src, pos, i, width, signed);
        long d = x - prev;
        excess[i - 1] = d;
        min = Math.min(min, d);
        max = Math.max(max, d);
        prev = x;
      }
    }
    // max - min, read unsigned, always fits: both are signed 64-bit deltas.
    int w = BitPacking.bitWidth(max - min);
    putVarint64(out, zigzag(min));
    out.put((byte) w);
    if (w == 0) {
      return;
    }
    for (int j = 0; j < n - 1; j++) {
      excess[j] -= min;
    }
    int bytes = BitPacking.packedBytes(n - 1, w);
    int at = out.reserve(bytes);
    BitPacking.packInto(excess, n - 1, w, out.array(), at);
  }

  /** The writer thread's scratch array, at least {@code n} long. */
  static long[] writerScratch(int n) {
    long[] a = SCRATCH.get();
    if (a.length < n) {
      a = new long[Math.max(n, 2 * a.length)];
      SCRATCH.set(a);
    }
    return a;
  }

  /** Little-endian 4-byte loads from a byte array, for the writer's one-pass loops. */
  static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * Decodes the packed items of a list of {@code n} items (its count already read) into slots
   * {@code [first, first + n)} of {@code v}, straight into its data buffer.
   *
   * <p>The packed bytes come from the file, so every read of them is bounds-checked: through
   * little-endian {@link VarHandle} views of the record's array, and before the word-at-a-time loop
   * explicitly ({@link #fastCount}), so that it reads only inside the input buffer. The stores go
   * to the slots by address, which are checked against the data buffer once, here: each store's
   * index runs below {@code n}, whatever the bytes say.
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
    FixedCodec.ensureCapacity(v, first + n);
    ArrowBuf data = v.getDataBuffer();
    long slots = (long) first * width;
    Objects.checkFromIndexSize(slots, (long) n * width, data.capacity());
    long addr = data.memoryAddress() + slots;
    store(addr, 0, width, x);
    int m = n - 1;
    if (w == 0) {
      for (int i = 1; i < n; i++) {
        x += base;
        store(addr, i, width, x);
      }
    } else if (w > 56) {
      // Rare: each value may straddle 9 bytes.
      ByteBuffer buf = in.buffer();
      for (int j = 0; j < m; j++) {
        x += base + BitPacking.get(buf, at, j, w);
        store(addr, j + 1, width, x);
      }
    } else {
      ByteBuffer buf = in.buffer();
      int bytes = (int) (((long) m * w + 7) >>> 3);
      byte[] src;
      int off;
      int fast;
      if (buf.hasArray()) {
        src = buf.array();
        off = buf.arrayOffset() + at;
        fast = fastCount(buf.limit() - 8 - at, m, w);
      } else {
        // A direct buffer: the packed bytes (about w/8 of the items' size) are copied to a padded
        // array, so that one loop serves both kinds of buffer.
        src = scratch(bytes + 8);
        buf.get(at, src, 0, bytes);
        Arrays.fill(src, bytes, bytes + 8, (byte) 0);
        off = 0;
        fast = m;
      }
      x = unpack(src, off, fast, w, base, x, addr, width);
      for (int j = fast; j < m; j++) {
        x += base + BitPacking.get(buf, at, j, w);
        store(addr, j + 1, width, x);
      }
    }
    Buffers.setValid(v.getValidityBuffer(), first, n);
  }

  /** Packed bytes of a list read from a direct buffer, one array per reader thread. */
  private static final ThreadLocal<byte[]> PACKED = ThreadLocal.withInitial(() -> new byte[4096]);

  static byte[] scratch(int size) {
    byte[] b = PACKED.get();
    if (b.length < size) {
      b = new byte[Math.max(size, 2 * b.length)];
      PACKED.set(b);
    }
    return b;
  }

  /**
   * How many of the first {@code m} values of width {@code w} start at most {@code room} bytes into
   * the stream: those can be read with one 8-byte load that stays inside the buffer.
   */
  static int fastCount(int room, int m, int w) {
    return room < 0 ? 0 : (int) Math.min(m, (long) room * 8 / w + 1);
  }

  /**
   * Little-endian 8-byte loads from a byte array. Each checks its index against the array; the JIT
   * hoists that check out of a loop whose index grows by a constant.
   */
  static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * The hot loop over the first {@code count} excesses of width {@code w ≤ 56} at {@code src[off]},
   * whose 8-byte loads the caller has checked to lie inside the input buffer; returns the last
   * item. Eight values of width {@code w} fill exactly {@code w} bytes, so for {@code w ≤ 8} one
   * load serves a group of eight (sorted ids with gaps below 256); wider values take one load each.
   * The running sum is the only chain between items.
   */
  private static long unpack(
      byte[] src, int off, int count, int w, long base, long x, long addr, int width) {
    int j = 0;
    if (w <= 8 && (width == 4 || width == 8)) {
      int groups = count >>> 3;
      x =
          width == 4
              ? intGroups(src, off, groups, w, base, x, addr + 4)
              : longGroups(src, off, groups, w, base, x, addr + 8);
      j = groups << 3;
    }
    long mask = (1L << w) - 1;
    for (long bit = (long) j * w; j < count; j++, bit += w) {
      x += base + (((long) LONGS.get(src, off + (int) (bit >>> 3)) >>> (bit & 7)) & mask);
      store(addr, j + 1, width, x);
    }
    return x;
  }

  /*
   * Groups of eight values, as int and as long items from address out on. The dispatch on w gives
   * each inlined copy of the loop a constant w, so that its load index g + t * w grows by a
   * constant and the JIT checks the loop's loads once, before it. With w a variable it checks
   * every load, which costs this loop a visible share of its time.
   */

  private static long intGroups(byte[] src, int g, int groups, int w, long base, long x, long out) {
    switch (w) {
      case 1:
        return intLoop(src, g, groups, 1, base, x, out);
      case 2:
        return intLoop(src, g, groups, 2, base, x, out);
      case 3:
        return intLoop(src, g, groups, 3, base, x, out);
      case 4:
        return intLoop(src, g, groups, 4, base, x, out);
      case 5:
        return intLoop(src, g, groups, 5, base, x, out);
      case 6:
        return intLoop(src, g, groups, 6, base, x, out);
      case 7:
        return intLoop(src, g, groups, 7, base, x, out);
      default:
        return intLoop(src, g, groups, 8, base, x, out);
    }
  }

  private static long intLoop(byte[] src, int g, int groups, int w, long base, long x, long out) {
    long mask = (1L << w) - 1;
    for (int t = 0; t < groups; t++, out += 32) {
      long word = (long) LONGS.get(src, g + t * w);
      // The steps are independent; only the running sum chains, and it advances by pairs of
      // steps, so that the chain is four additions per group instead of sixteen.
      long s0 = base + (word & mask);
      long s1 = base + ((word >>> w) & mask);
      long s2 = base + ((word >>> (2 * w)) & mask);
      long s3 = base + ((word >>> (3 * w)) & mask);
      long s4 = base + ((word >>> (4 * w)) & mask);
      long s5 = base + ((word >>> (5 * w)) & mask);
      long s6 = base + ((word >>> (6 * w)) & mask);
      long s7 = base + ((word >>> (7 * w)) & mask);
      long x0 = x + s0;
      long x1 = x + (s0 + s1);
      long x2 = x1 + s2;
      long x3 = x1 + (s2 + s3);
      long x4 = x3 + s4;
      long x5 = x3 + (s4 + s5);
      long x6 = x5 + s6;
      long x7 = x5 + (s6 + s7);
      MemoryUtil.putInt(out, (int) x0);
      MemoryUtil.putInt(out + 4, (int) x1);
      MemoryUtil.putInt(out + 8, (int) x2);
      MemoryUtil.putInt(out + 12, (int) x3);
      MemoryUtil.putInt(out + 16, (int) x4);
      MemoryUtil.putInt(out + 20, (int) x5);
      MemoryUtil.putInt(out + 24, (int) x6);
      MemoryUtil.putInt(out + 28, (int) x7);
      x = x7;
    }
    return x;
  }

  private static long longGroups(
      byte[] src, int g, int groups, int w, long base, long x, long out) {
    switch (w) {
      case 1:
        return longLoop(src, g, groups, 1, base, x, out);
      case 2:
        return longLoop(src, g, groups, 2, base, x, out);
      case 3:
        return longLoop(src, g, groups, 3, base, x, out);
      case 4:
        return longLoop(src, g, groups, 4, base, x, out);
      case 5:
        return longLoop(src, g, groups, 5, base, x, out);
      case 6:
        return longLoop(src, g, groups, 6, base, x, out);
      case 7:
        return longLoop(src, g, groups, 7, base, x, out);
      default:
        return longLoop(src, g, groups, 8, base, x, out);
    }
  }

  private static long longLoop(byte[] src, int g, int groups, int w, long base, long x, long out) {
    long mask = (1L << w) - 1;
    for (int t = 0; t < groups; t++, out += 64) {
      long word = (long) LONGS.get(src, g + t * w);
      // The steps are independent; only the running sum chains, and it advances by pairs of
      // steps, so that the chain is four additions per group instead of sixteen.
      long s0 = base + (word & mask);
      long s1 = base + ((word >>> w) & mask);
      long s2 = base + ((word >>> (2 * w)) & mask);
      long s3 = base + ((word >>> (3 * w)) & mask);
      long s4 = base + ((word >>> (4 * w)) & mask);
      long s5 = base + ((word >>> (5 * w)) & mask);
      long s6 = base + ((word >>> (6 * w)) & mask);
      long s7 = base + ((word >>> (7 * w)) & mask);
      long x0 = x + s0;
      long x1 = x + (s0 + s1);
      long x2 = x1 + s2;
      long x3 = x1 + (s2 + s3);
      long x4 = x3 + s4;
      long x5 = x3 + (s4 + s5);
      long x6 = x5 + s6;
      long x7 = x5 + (s6 + s7);
      MemoryUtil.putLong(out, x0);
      MemoryUtil.putLong(out + 8, x1);
      MemoryUtil.putLong(out + 16, x2);
      MemoryUtil.putLong(out + 24, x3);
      MemoryUtil.putLong(out + 32, x4);
      MemoryUtil.putLong(out + 40, x5);
      MemoryUtil.putLong(out + 48, x6);
      MemoryUtil.putLong(out + 56, x7);
      x = x7;
    }
    return x;
  }

  /** Writes item {@code i} (the low {@code width} bytes of {@code x}) at {@code addr}. */
  private static void store(long addr, int i, int width, long x) {
    switch (width) {
      case 1:
        MemoryUtil.putByte(addr + i, (byte) x);
        break;
      case 2:
        MemoryUtil.putShort(addr + 2L * i, (short) x);
        break;
      case 4:
        MemoryUtil.putInt(addr + 4L * i, (int) x);
        break;
      default:
        MemoryUtil.putLong(addr + 8L * i, x);
    }
  }

  static int bitWidth(RecordInput in) throws CorruptFileException {
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

  /** The excesses of the list being packed: one array per writer thread, not one per list. */
  private static final ThreadLocal<long[]> SCRATCH = ThreadLocal.withInitial(() -> new long[1024]);

  static void putVarint64(ByteSink out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.put((byte) (v | 0x80));
      v >>>= 7;
    }
    out.put((byte) v);
  }
}
