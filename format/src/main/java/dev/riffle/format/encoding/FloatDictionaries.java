package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Form DICTIONARY of a packed float list (format 1.4, FORMAT.md §5.3): a varint count d of entries,
 * the d distinct item values as stored in a plain record (compared by bits, in order of first
 * appearance), a width w and every item's index into them, bit-packed with width w. The writer uses
 * it for a list that is not all integers (form INTEGERS) when it is shorter than the plain items;
 * an index at or beyond d is corruption, checked on every decoded item.
 */
final class FloatDictionaries {
  private FloatDictionaries() {}

  /** Most entries of a dictionary: an item's index then takes at most 16 bits. */
  static final int MAX_ENTRIES = 1 << 16;

  /** Widest index. */
  static final int MAX_CODE_WIDTH = 16;

  /**
   * Appends form DICTIONARY of the {@code n} items (form byte included) and returns true if it is
   * strictly shorter than their plain {@code n·width} bytes and they hold at most {@link
   * #MAX_ENTRIES} distinct bit patterns; else appends nothing and returns false. Gives up as soon
   * as the entries found so far, with indices of their width, no longer fit in the plain bytes: a
   * list of distinct values costs a hash lookup for most of its items, not all of them.
   */
  static boolean pack(ByteBuffer src, int pos, int n, int width, ByteSink out) {
    int k = Math.min(n, MAX_ENTRIES);
    int capacity = Integer.highestOneBit(2 * k - 1) << 1; // a power of two, at least 2k
    int shift = 64 - Integer.numberOfTrailingZeros(capacity);
    DictionaryScratch t = DICTIONARY.get();
    t.ensure(capacity);
    Arrays.fill(t.slots, 0, capacity, 0);
    long[] codes = PackedLists.writerScratch(n);
    long plain = (long) n * width;
    int d = 0;
    for (int i = 0; i < n; i++) {
      long bits = width == 4 ? src.getInt(pos + 4 * i) & 0xFFFFFFFFL : src.getLong(pos + 8 * i);
      int h = (int) ((bits * 0x9E3779B97F4A7C15L) >>> shift);
      while (true) {
        int slot = t.slots[h];
        if (slot == 0) {
          if (d == MAX_ENTRIES || dictionaryBytes(n, d + 1, width) >= plain) {
            return false;
          }
          t.keys[h] = bits;
          t.entries[d] = bits;
          t.slots[h] = ++d;
          codes[i] = d - 1;
          break;
        }
        if (t.keys[h] == bits) {
          codes[i] = slot - 1;
          break;
        }
        h = (h + 1) & (capacity - 1);
      }
    }
    out.put((byte) PackedFloats.FORM_DICTIONARY);
    out.putVarint(d);
    int at = out.reserve(d * width);
    byte[] a = out.array();
    for (int j = 0; j < d; j++) {
      if (width == 4) {
        PackedLists.INTS.set(a, at + 4 * j, (int) t.entries[j]);
      } else {
        PackedLists.LONGS.set(a, at + 8 * j, t.entries[j]);
      }
    }
    int w = BitPacking.bitWidth(d - 1);
    out.put((byte) w);
    if (w > 0) {
      int bytes = BitPacking.packedBytes(n, w);
      int codesAt = out.reserve(bytes); // before out.array(): reserving may grow it
      BitPacking.packInto(codes, n, w, out.array(), codesAt);
    }
    return true;
  }

  /** Bytes of form DICTIONARY after the form byte, for n items and d entries. */
  private static long dictionaryBytes(int n, int d, int width) {
    int varint = d < (1 << 7) ? 1 : d < (1 << 14) ? 2 : 3;
    return varint + (long) d * width + 1 + BitPacking.packedBytes(n, BitPacking.bitWidth(d - 1));
  }

  /** The writer thread's hash table of the dictionary being built. */
  private static final class DictionaryScratch {
    int[] slots = new int[0]; // 0: empty, else the entry's index + 1
    long[] keys = new long[0];
    final long[] entries = new long[MAX_ENTRIES];

    void ensure(int capacity) {
      if (slots.length < capacity) {
        slots = new int[capacity];
        keys = new long[capacity];
      }
    }
  }

  private static final ThreadLocal<DictionaryScratch> DICTIONARY =
      ThreadLocal.withInitial(DictionaryScratch::new);

  /**
   * Form DICTIONARY: the entries into the reader thread's table, then each item's index looked up
   * and stored. The loads of the indices are bounds-checked as in {@link PackedLists#decode}; an
   * index is below 2^16, inside the table, whatever the bytes say, so the loops only keep the
   * largest index and check it against the entry count once, at the end (a damaged list then throws
   * before its items are used).
   */
  static void decode(RecordInput in, int n, int width, long addr) throws CorruptFileException {
    int d = entryCount(in, n);
    int at = in.take((long) d * width);
    ByteBuffer buf = in.buffer();
    Tables t = TABLES.get();
    for (int j = 0; j < d; j++) {
      if (width == 4) {
        t.ints[j] = buf.getInt(at + 4 * j);
      } else {
        t.longs[j] = buf.getLong(at + 8 * j);
      }
    }
    int w = codeWidth(in);
    long codesOffset = in.fileOffset();
    int codes = in.take(((long) n * w + 7) >>> 3);
    int max = 0;
    int i = 0;
    if (w > 0) {
      byte[] src;
      int off;
      int fast;
      if (buf.hasArray()) {
        src = buf.array();
        off = buf.arrayOffset() + codes;
        fast = PackedLists.fastCount(buf.limit() - 8 - codes, n, w);
      } else {
        int bytes = (int) (((long) n * w + 7) >>> 3);
        src = PackedLists.scratch(bytes + 8);
        buf.get(codes, src, 0, bytes);
        Arrays.fill(src, bytes, bytes + 8, (byte) 0);
        off = 0;
        fast = n;
      }
      if (width == 4 && w <= 8) {
        // Eight indices of width w fill exactly w bytes: one load serves a group of eight.
        int groups = fast >>> 3;
        max = intGroups(src, off, groups, w, t.ints, addr);
        i = groups << 3;
      }
      long mask = (1L << w) - 1;
      for (long bit = (long) i * w; i < fast; i++, bit += w) {
        int c =
            (int)
                (((long) PackedLists.LONGS.get(src, off + (int) (bit >>> 3)) >>> (bit & 7)) & mask);
        max = Math.max(max, c);
        if (width == 4) {
          MemoryUtil.putInt(addr + 4L * i, t.ints[c]);
        } else {
          MemoryUtil.putLong(addr + 8L * i, t.longs[c]);
        }
      }
    }
    for (; i < n; i++) {
      int c = w == 0 ? 0 : (int) BitPacking.get(buf, codes, i, w);
      max = Math.max(max, c);
      if (width == 4) {
        MemoryUtil.putInt(addr + 4L * i, t.ints[c]);
      } else {
        MemoryUtil.putLong(addr + 8L * i, t.longs[c]);
      }
    }
    if (max >= d) {
      for (int k = 0; ; k++) { // the first index out of range, for the message
        int c = (int) BitPacking.get(buf, codes, k, w);
        if (c >= d) {
          throw badCode(in, codesOffset, k, w, c, d);
        }
      }
    }
  }

  /** Groups of eight float32 items with indices of width w ≤ 8; returns the largest index. */
  private static int intGroups(byte[] src, int off, int groups, int w, int[] e, long out) {
    long mask = (1L << w) - 1;
    long max = 0;
    for (int g = 0; g < groups; g++, out += 32) {
      long word = (long) PackedLists.LONGS.get(src, off + g * w);
      long c0 = word & mask;
      long c1 = (word >>> w) & mask;
      long c2 = (word >>> (2 * w)) & mask;
      long c3 = (word >>> (3 * w)) & mask;
      long c4 = (word >>> (4 * w)) & mask;
      long c5 = (word >>> (5 * w)) & mask;
      long c6 = (word >>> (6 * w)) & mask;
      long c7 = (word >>> (7 * w)) & mask;
      max =
          Math.max(
              max,
              Math.max(
                  Math.max(Math.max(c0, c1), Math.max(c2, c3)),
                  Math.max(Math.max(c4, c5), Math.max(c6, c7))));
      MemoryUtil.putInt(out, e[(int) c0]);
      MemoryUtil.putInt(out + 4, e[(int) c1]);
      MemoryUtil.putInt(out + 8, e[(int) c2]);
      MemoryUtil.putInt(out + 12, e[(int) c3]);
      MemoryUtil.putInt(out + 16, e[(int) c4]);
      MemoryUtil.putInt(out + 20, e[(int) c5]);
      MemoryUtil.putInt(out + 24, e[(int) c6]);
      MemoryUtil.putInt(out + 28, e[(int) c7]);
    }
    return (int) max;
  }

  /** A reader thread's entries: every index of width ≤ 16 falls inside them. */
  private static final class Tables {
    final int[] ints = new int[MAX_ENTRIES];
    final long[] longs = new long[MAX_ENTRIES];
  }

  private static final ThreadLocal<Tables> TABLES = ThreadLocal.withInitial(Tables::new);

  /** The entry count of form DICTIONARY: 1 to {@code min(n, MAX_ENTRIES)}. */
  private static int entryCount(RecordInput in, int n) throws CorruptFileException {
    long at = in.fileOffset();
    long d = in.varint64();
    if (d < 1 || d > Math.min(n, MAX_ENTRIES)) {
      throw in.corruptAt(
          at,
          "packed float dictionary of "
              + Long.toUnsignedString(d)
              + " entries for "
              + n
              + " items (1 to "
              + Math.min(n, MAX_ENTRIES)
              + " allowed)");
    }
    return (int) d;
  }

  private static int codeWidth(RecordInput in) throws CorruptFileException {
    int w = in.u8();
    if (w > MAX_CODE_WIDTH) {
      throw in.corruptAt(
          in.fileOffset() - 1,
          "packed float dictionary index width " + w + " exceeds " + MAX_CODE_WIDTH);
    }
    return w;
  }

  private static CorruptFileException badCode(
      RecordInput in, long codesOffset, int i, int w, int c, int d) {
    return in.corruptAt(
        codesOffset + (long) i * w / 8,
        "packed float dictionary index "
            + c
            + " of item "
            + i
            + " is not below its "
            + d
            + " entries");
  }

  /** Reads past form DICTIONARY of a list of {@code n} items (count and form byte already read). */
  static void skip(RecordInput in, int n, int width) throws CorruptFileException {
    in.take((long) entryCount(in, n) * width);
    in.take(((long) n * codeWidth(in) + 7) >>> 3);
  }
}
