package dev.riffle.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The statistics section of a column block (FORMAT.md §4.5, format 1.4): for every page, for each
 * field of the column, the null count and what the page's values span, so that a scan can skip
 * pages a filter cannot match. Read and written only here; what a field's entry holds (its {@link
 * Kind}) follows from the schema, never from the file.
 *
 * <pre>
 * section: entry[pageCount × m] (page by page, the column's m fields in column order)
 *          u32 statsLength (bytes of the entries) | u32 statsCrc32c (of the entries and statsLength)
 * entry:   0 u32 nullCount | 4 u8 flags (bit0 RANGE, bit1 NAN, bit2 MIN_PREFIX, bit3 MAX_PREFIX)
 *          | 5 min, max (if RANGE) | codes bitmap (CODES kind with a bitmap only)
 * min/max: INT-like, BOOL, FLOAT, DECIMAL and CODES ranges: the value's width bytes, little-endian;
 *          BYTES: u8 n (at most MAX_VALUE_BYTES), then n bytes
 * </pre>
 *
 * The section ends right before the block's own CRC, so that its trailer (and with it the section)
 * can be found from the block's end without the schema.
 */
public final class PageStatsLayout {
  private PageStatsLayout() {}

  /** Entry flag: {@code min} and {@code max} follow. */
  public static final int FLAG_RANGE = 1;

  /** Entry flag (floats): some value of the page is NaN; NaN is never in min or max. */
  public static final int FLAG_NAN = 2;

  /** Entry flag (bytes): {@code min} is the first {@value #MAX_VALUE_BYTES} bytes of the min. */
  public static final int FLAG_MIN_PREFIX = 4;

  /** Entry flag (bytes): {@code max} is the first {@value #MAX_VALUE_BYTES} bytes of the max. */
  public static final int FLAG_MAX_PREFIX = 8;

  public static final int NULL_COUNT_OFFSET = 0;
  public static final int FLAGS_OFFSET = 4;

  /** Where {@code min} starts in an entry that has one. */
  public static final int MIN_OFFSET = 5;

  /**
   * Longest binary or string bound: longer values are stored as their first this many bytes,
   * flagged. Parquet's column index truncates at the same length; 64 bytes keep barcodes, ids and
   * names whole.
   */
  public static final int MAX_VALUE_BYTES = 64;

  /**
   * Largest dictionary whose pages list the codes present as a bitmap (at most 1 KiB per page);
   * pages of larger dictionaries store their smallest and largest code.
   */
  public static final int MAX_BITMAP_CODES = 8192;

  /** Bytes after the entries: {@code u32 statsLength}, {@code u32 statsCrc32c}. */
  public static final int TRAILER_BYTES = 8;

  /** The order, and so the form, of a field's bounds (FORMAT.md §4.5, "Kinds"). */
  public enum Order {
    /** Null count only: nested types and half floats. */
    NONE,
    /** Two's-complement integers: INT (signed), DATE, TIME, TIMESTAMP, DURATION. */
    SIGNED,
    /** Unsigned integers: INT (unsigned); dictionary codes of a large dictionary. */
    UNSIGNED,
    /** One byte, 0 or 1. */
    BOOL,
    /** IEEE 754 binary32/64, compared numerically, NaN apart. */
    FLOAT,
    /** Unscaled decimal values, two's complement, 16 or 32 bytes. */
    DECIMAL,
    /** Unsigned bytes, lexicographic (UTF-8 in code point order). */
    BYTES,
    /** The dictionary codes present: a bitmap, or a code range for a large dictionary. */
    CODES
  }

  /**
   * What a field's entries hold.
   *
   * @param width bytes of a bound: the value width of fixed kinds (4 for a code range), the fixed
   *     width of a FIXED_SIZE_BINARY field for {@link Order#BYTES} (0 for variable-size values), 0
   *     otherwise
   * @param codeCount the dictionary's entries, for {@link Order#CODES}
   */
  public record Kind(Order order, int width, int codeCount) {
    public static final Kind NULLS = new Kind(Order.NONE, 0, 0);

    public static Kind codes(int count) {
      return new Kind(Order.CODES, count <= MAX_BITMAP_CODES ? 0 : 4, count);
    }

    /** Whether pages list their codes as a bitmap (else as a range). */
    public boolean codeBitmap() {
      return order == Order.CODES && codeCount <= MAX_BITMAP_CODES;
    }

    /** Whether entries may carry min and max. */
    public boolean hasRange() {
      return order != Order.NONE && !codeBitmap();
    }

    /** Flags an entry of this kind may set. */
    int allowedFlags() {
      switch (order) {
        case NONE:
          return 0;
        case FLOAT:
          return FLAG_RANGE | FLAG_NAN;
        case BYTES:
          return FLAG_RANGE | FLAG_MIN_PREFIX | FLAG_MAX_PREFIX;
        case CODES:
          return codeBitmap() ? 0 : FLAG_RANGE;
        default:
          return FLAG_RANGE;
      }
    }

    /** Bytes of a code bitmap. */
    public int bitmapBytes() {
      return codeBitmap() ? (codeCount + 7) >>> 3 : 0;
    }
  }

  /** One field's statistics of one page, as stored. Immutable. */
  public static final class Entry {
    private final int nullCount;
    private final int flags;
    private final byte[] min;
    private final byte[] max;
    private final byte[] codes;

    /**
     * @param min the smallest value's form (FORMAT.md §4.5), or null without {@link #FLAG_RANGE}
     * @param max the largest value's form, or null
     * @param codes the code bitmap ({@link Kind#codeBitmap()}), else null
     */
    public Entry(int nullCount, int flags, byte[] min, byte[] max, byte[] codes) {
      this.nullCount = nullCount;
      this.flags = flags;
      this.min = min;
      this.max = max;
      this.codes = codes;
    }

    public int nullCount() {
      return nullCount;
    }

    public int flags() {
      return flags;
    }

    public boolean has(int flag) {
      return (flags & flag) != 0;
    }

    /** The lower bound's form, or null; the caller must not change it. */
    public byte[] min() {
      return min;
    }

    /** The upper bound's form, or null; the caller must not change it. */
    public byte[] max() {
      return max;
    }

    /** The code bitmap, or null; the caller must not change it. */
    public byte[] codes() {
      return codes;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e
          && nullCount == e.nullCount
          && flags == e.flags
          && Arrays.equals(min, e.min)
          && Arrays.equals(max, e.max)
          && Arrays.equals(codes, e.codes);
    }

    @Override
    public int hashCode() {
      return 31 * (31 * nullCount + flags) + Arrays.hashCode(min) + 7 * Arrays.hashCode(max);
    }

    @Override
    public String toString() {
      return "Entry[nullCount="
          + nullCount
          + ", flags="
          + flags
          + ", min="
          + hex(min)
          + ", max="
          + hex(max)
          + ", codes="
          + hex(codes)
          + "]";
    }

    private static String hex(byte[] b) {
      return b == null ? "null" : java.util.HexFormat.of().formatHex(b);
    }
  }

  /** Appends one entry; the caller has made it follow the rules of {@link #read}. */
  public static void write(ByteSink out, Kind kind, Entry e) {
    out.putInt(e.nullCount());
    out.put((byte) e.flags());
    if (e.has(FLAG_RANGE)) {
      putBound(out, kind, e.min());
      putBound(out, kind, e.max());
    }
    if (kind.codeBitmap()) {
      out.put(e.codes(), 0, e.codes().length);
    }
  }

  private static void putBound(ByteSink out, Kind kind, byte[] v) {
    if (kind.order() == Order.BYTES) {
      out.put((byte) v.length);
    }
    out.put(v, 0, v.length);
  }

  /** Appends the trailer of a section whose entries start at {@code start} in {@code out}. */
  public static void writeTrailer(ByteSink out, int start) {
    out.putInt(out.length() - start);
    CRC32C crc = new CRC32C();
    crc.update(out.array(), start, out.length() - start);
    out.putInt((int) crc.getValue());
  }

  /**
   * Checks the trailer of the section that ends {@code end} bytes into {@code block} (where the
   * block's own CRC starts): its length fits, and its CRC matches. Returns the entries' length.
   *
   * @param minStart the first position the entries may start at (the end of the page entries)
   * @param fileOffset the file offset of position 0 of {@code block}
   */
  public static int checkTrailer(
      ByteBuffer block, int minStart, int end, long fileOffset, String resource, String column)
      throws CorruptFileException {
    ByteBuffer b = block.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int trailer = end - TRAILER_BYTES;
    if (trailer < minStart) {
      throw new CorruptFileException(
          resource,
          fileOffset + minStart,
          "column '" + column + "' has no room for its statistics section");
    }
    int length = b.getInt(trailer);
    if (length < 0 || length > trailer - minStart) {
      throw new CorruptFileException(
          resource,
          fileOffset + trailer,
          "statistics section of column '" + column + "' claims " + length + " bytes");
    }
    int stored = b.getInt(trailer + 4);
    CRC32C crc = new CRC32C();
    crc.update(b.limit(trailer + 4).position(trailer - length));
    if ((int) crc.getValue() != stored) {
      throw new CorruptFileException(
          resource,
          fileOffset + trailer + 4,
          "statistics checksum mismatch for column '" + column + "'");
    }
    return length;
  }

  /**
   * Reads one entry at the cursor and checks it against the rules of FORMAT.md §4.5: the null count
   * fits the page ({@code rowCount}) and agrees with the page's {@code HAS_NULLS} flag where it
   * must ({@code hasNulls}, null for a field of a column group); only the flags of the kind are
   * set, and {@code RANGE} exactly when the page has a value to bound; bounds are well formed
   * (booleans 0 or 1, no NaN, zeros signed as written, bytes no longer than {@value
   * #MAX_VALUE_BYTES} and prefixes exactly that long, codes below the dictionary's size) and {@code
   * min ≤ max}; a code bitmap has zero padding and between 1 and the page's non-null rows bits set,
   * or none if there are none.
   *
   * @param what names the page and field in messages
   */
  public static Entry read(RecordInput in, Kind kind, int rowCount, Boolean hasNulls, String what)
      throws CorruptFileException {
    long at = in.fileOffset();
    int nullCount = in.i32();
    int flags = in.u8();
    if (nullCount < 0 || nullCount > rowCount) {
      throw in.corruptAt(at, what + ": null count " + nullCount + " of " + rowCount + " rows");
    }
    if (hasNulls != null && hasNulls != (nullCount > 0)) {
      throw in.corruptAt(
          at, what + ": null count " + nullCount + " disagrees with the page's HAS_NULLS flag");
    }
    if ((flags & ~kind.allowedFlags()) != 0) {
      throw in.corruptAt(at + FLAGS_OFFSET, what + ": bad statistics flags " + flags);
    }
    int values = rowCount - nullCount;
    boolean range = (flags & FLAG_RANGE) != 0;
    boolean nan = (flags & FLAG_NAN) != 0;
    boolean consistent =
        kind.order() == Order.FLOAT
            ? (range || nan) == (values > 0) && (!(range && nan) || values >= 2)
            : !kind.hasRange() || range == (values > 0);
    if (!consistent) {
      throw in.corruptAt(
          at + FLAGS_OFFSET,
          what + ": statistics flags " + flags + " do not fit " + values + " non-null rows");
    }
    byte[] min = null;
    byte[] max = null;
    if (range) {
      min = bound(in, kind, (flags & FLAG_MIN_PREFIX) != 0, what);
      max = bound(in, kind, (flags & FLAG_MAX_PREFIX) != 0, what);
      checkBounds(in, kind, at, flags, min, max, what);
    } else if ((flags & (FLAG_MIN_PREFIX | FLAG_MAX_PREFIX)) != 0) {
      throw in.corruptAt(at + FLAGS_OFFSET, what + ": prefix flags without bounds");
    }
    byte[] codes = null;
    if (kind.codeBitmap()) {
      long bitmapAt = in.fileOffset();
      int start = in.take(kind.bitmapBytes());
      codes = new byte[kind.bitmapBytes()];
      in.buffer().duplicate().position(start).get(codes);
      int set = 0;
      for (byte b : codes) {
        set += Integer.bitCount(b & 0xFF);
      }
      int pad = kind.codeCount() & 7;
      boolean padding = pad != 0 && (codes[codes.length - 1] & 0xFF) >>> pad != 0;
      if (padding || set > values || (set == 0) != (values == 0)) {
        throw in.corruptAt(
            bitmapAt,
            what + ": code bitmap with " + set + " codes for " + values + " non-null rows");
      }
    }
    return new Entry(nullCount, flags, min, max, codes);
  }

  private static byte[] bound(RecordInput in, Kind kind, boolean prefix, String what)
      throws CorruptFileException {
    int n = kind.width();
    if (kind.order() == Order.BYTES) {
      long at = in.fileOffset();
      n = in.u8();
      // Fixed-size binary: bounds are whole values up to 64 bytes, prefixes beyond.
      int fixed = kind.width();
      boolean ok =
          prefix
              ? n == MAX_VALUE_BYTES && (fixed == 0 || fixed > MAX_VALUE_BYTES)
              : n <= MAX_VALUE_BYTES && (fixed == 0 || n == fixed);
      if (!ok) {
        throw in.corruptAt(at, what + ": bad bound length " + n);
      }
    }
    int start = in.take(n);
    byte[] b = new byte[n];
    in.buffer().duplicate().position(start).get(b);
    return b;
  }

  private static void checkBounds(
      RecordInput in, Kind kind, long at, int flags, byte[] min, byte[] max, String what)
      throws CorruptFileException {
    String bad = null;
    switch (kind.order()) {
      case BOOL:
        if ((min[0] & 0xFF) > 1 || (max[0] & 0xFF) > 1) {
          bad = "a boolean bound other than 0 or 1";
        }
        break;
      case FLOAT:
        double lo = floatValue(min);
        double hi = floatValue(max);
        if (Double.isNaN(lo) || Double.isNaN(hi)) {
          bad = "a NaN bound";
        } else if ((lo == 0 && !isNegative(min)) || (hi == 0 && isNegative(max))) {
          bad = "a zero bound of the wrong sign (min -0.0, max +0.0)";
        }
        break;
      case CODES:
        if (Integer.compareUnsigned(intValue(max), kind.codeCount()) >= 0) {
          bad = "a code outside the dictionary of " + kind.codeCount();
        }
        break;
      default:
        break;
    }
    if (bad == null
        && compareBounds(
                kind, min, (flags & FLAG_MIN_PREFIX) != 0, max, (flags & FLAG_MAX_PREFIX) != 0)
            > 0) {
      bad = "min greater than max";
    }
    if (bad != null) {
      throw in.corruptAt(at + MIN_OFFSET, what + ": statistics with " + bad);
    }
  }

  /**
   * Compares two bounds of one kind in its order. For {@link Order#BYTES}, equal bytes order an
   * exact bound before a prefix (the prefix stands for a longer value).
   */
  public static int compareBounds(Kind kind, byte[] a, boolean aPrefix, byte[] b, boolean bPrefix) {
    int c = compare(kind.order(), a, b);
    return c != 0 || kind.order() != Order.BYTES ? c : Boolean.compare(aPrefix, bPrefix);
  }

  /** Compares two bound forms of one order (floats numerically, -0.0 equal to +0.0). */
  public static int compare(Order order, byte[] a, byte[] b) {
    switch (order) {
      case SIGNED:
        return Long.compare(longValue(a, true), longValue(b, true));
      case UNSIGNED:
      case BOOL:
      case CODES:
        return Long.compareUnsigned(longValue(a, false), longValue(b, false));
      case FLOAT:
        double x = floatValue(a);
        double y = floatValue(b);
        return x < y ? -1 : x > y ? 1 : 0;
      case DECIMAL:
        for (int i = a.length - 1; i >= 0; i--) {
          int c =
              i == a.length - 1
                  ? Byte.compare(a[i], b[i])
                  : Integer.compare(a[i] & 0xFF, b[i] & 0xFF);
          if (c != 0) {
            return c;
          }
        }
        return 0;
      case BYTES:
        return Arrays.compareUnsigned(a, b);
      default:
        throw new IllegalArgumentException("no order for " + order);
    }
  }

  /** A little-endian integer bound of 1 to 8 bytes, sign- or zero-extended. */
  public static long longValue(byte[] b, boolean signed) {
    long v = 0;
    for (int i = b.length - 1; i >= 0; i--) {
      v = (v << 8) | (b[i] & 0xFF);
    }
    int shift = 64 - 8 * b.length;
    return shift == 0 ? v : signed ? (v << shift) >> shift : v;
  }

  /** A float bound of 4 or 8 bytes, as a double (exact for both). */
  public static double floatValue(byte[] b) {
    long bits = longValue(b, false);
    return b.length == 4 ? Float.intBitsToFloat((int) bits) : Double.longBitsToDouble(bits);
  }

  private static int intValue(byte[] b) {
    return (int) longValue(b, false);
  }

  private static boolean isNegative(byte[] floatBound) {
    return floatBound[floatBound.length - 1] < 0;
  }
}
