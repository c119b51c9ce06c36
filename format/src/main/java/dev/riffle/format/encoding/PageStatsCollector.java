package dev.riffle.format.encoding;

import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.PageStatsLayout.Entry;
import dev.riffle.format.PageStatsLayout.Kind;
import dev.riffle.format.PageStatsLayout.Order;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Gathers one field's page statistics (FORMAT.md §4.5) row by row from the Arrow values the writer
 * encodes, page after page, and gives each page's {@link Entry}. Values are read straight from the
 * vectors' buffers, without allocating per row. The reader uses it too, to bound a single
 * dictionary value the same way the writer bounds a page.
 */
public final class PageStatsCollector {
  private final Kind kind;
  private final List<Entry> entries = new ArrayList<>();

  /** Dictionary codes per finished page: null count, codes present (null once dropped), range. */
  private final List<int[]> codeRanges = new ArrayList<>();

  private final List<BitSet> codeSets = new ArrayList<>();

  /** Whether a code beyond {@link PageStatsLayout#MAX_BITMAP_CODES} rules out bitmaps. */
  private boolean noBitmaps;

  private int nulls;
  private boolean any;
  private boolean nan;
  private long lo;
  private long hi;
  private double loFloat;
  private double hiFloat;
  private final byte[] loBytes;
  private final byte[] hiBytes;
  private int loLength;
  private int hiLength;
  private boolean loPrefix;
  private boolean hiPrefix;
  private final byte[] scratch;
  private BitSet codes = new BitSet();

  /**
   * @param kind the field's kind; for a dictionary field any {@link Order#CODES} kind (the
   *     dictionary's final size is given to {@link #entry})
   */
  public PageStatsCollector(Kind kind) {
    this.kind = kind;
    int bound =
        kind.order() == Order.BYTES
            ? PageStatsLayout.MAX_VALUE_BYTES
            : kind.order() == Order.DECIMAL ? kind.width() : 0;
    loBytes = new byte[bound];
    hiBytes = new byte[bound];
    scratch = new byte[bound];
  }

  public void addNull() {
    nulls++;
  }

  /** Adds the non-null value at {@code i} of {@code v}, a vector of the kind's type. */
  public void add(FieldVector v, int i) {
    switch (kind.order()) {
      case SIGNED:
      case UNSIGNED:
        addInteger(integer(v.getDataBuffer(), i));
        break;
      case BOOL:
        addInteger(((BitVector) v).get(i));
        break;
      case FLOAT:
        addFloat(
            kind.width() == 4
                ? v.getDataBuffer().getFloat((long) i * 4)
                : v.getDataBuffer().getDouble((long) i * 8));
        break;
      case DECIMAL:
        v.getDataBuffer().getBytes((long) i * kind.width(), scratch, 0, kind.width());
        addBytes(kind.width(), false);
        break;
      case BYTES:
        addBinary(v, i);
        break;
      default:
        any = true;
    }
  }

  /** Adds a dictionary code (a {@link Order#CODES} collector). */
  public void addCode(int code) {
    if (!any) {
      any = true;
      lo = code;
      hi = code;
    } else {
      lo = Math.min(lo, code);
      hi = Math.max(hi, code);
    }
    if (code >= PageStatsLayout.MAX_BITMAP_CODES) {
      // The dictionary ends up larger than a bitmap may cover: every page stores a code range.
      noBitmaps = true;
      codes = null;
      codeSets.replaceAll(s -> null);
    }
    if (!noBitmaps) {
      codes.set(code);
    }
  }

  private long integer(ArrowBuf data, int i) {
    return integer(data, i, kind.width(), kind.order() == Order.SIGNED);
  }

  /** Value {@code i} of an integer buffer of width {@code w}, sign- or zero-extended. */
  public static long integer(ArrowBuf data, int i, int w, boolean signed) {
    switch (w) {
      case 1:
        byte b = data.getByte(i);
        return signed ? b : b & 0xFF;
      case 2:
        short s = data.getShort((long) i * 2);
        return signed ? s : s & 0xFFFF;
      case 4:
        int x = data.getInt((long) i * 4);
        return signed ? x : x & 0xFFFFFFFFL;
      default:
        return data.getLong((long) i * 8);
    }
  }

  private void addInteger(long x) {
    if (!any) {
      any = true;
      lo = x;
      hi = x;
    } else if (kind.order() == Order.SIGNED) {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    } else {
      lo = Long.compareUnsigned(x, lo) < 0 ? x : lo;
      hi = Long.compareUnsigned(x, hi) > 0 ? x : hi;
    }
  }

  private void addFloat(double x) {
    if (Double.isNaN(x)) {
      nan = true;
    } else if (!any) {
      any = true;
      loFloat = x;
      hiFloat = x;
    } else {
      // Numeric order: of -0.0 and +0.0 the first seen stays; the entry writes zeros signed.
      loFloat = x < loFloat ? x : loFloat;
      hiFloat = x > hiFloat ? x : hiFloat;
    }
  }

  private void addBinary(FieldVector v, int i) {
    long start;
    long length;
    if (v instanceof BaseVariableWidthVector) {
      ArrowBuf offsets = v.getOffsetBuffer();
      start = offsets.getInt((long) i * 4);
      length = offsets.getInt((long) i * 4 + 4) - start;
    } else if (v instanceof BaseLargeVariableWidthVector) {
      ArrowBuf offsets = v.getOffsetBuffer();
      start = offsets.getLong((long) i * 8);
      length = offsets.getLong((long) i * 8 + 8) - start;
    } else {
      start = (long) i * kind.width();
      length = kind.width();
    }
    ArrowBuf data = v.getDataBuffer();
    if (any && length > 0 && loLength > 0 && hiLength > 0) {
      // Most values of a page start with a byte strictly between the bounds' first bytes, and
      // then change neither: no copy, no comparison.
      int first = data.getByte(start) & 0xFF;
      if (first > (loBytes[0] & 0xFF) && first < (hiBytes[0] & 0xFF)) {
        return;
      }
    }
    int n = (int) Math.min(length, PageStatsLayout.MAX_VALUE_BYTES);
    data.getBytes(start, scratch, 0, n);
    addBytes(n, length > n);
  }

  /** Takes the {@code n} bytes in {@code scratch} (a prefix if {@code prefix}) as a value. */
  private void addBytes(int n, boolean prefix) {
    if (!any) {
      any = true;
      set(true, n, prefix);
      set(false, n, prefix);
      return;
    }
    if (compareScratch(n, prefix, loBytes, loLength, loPrefix) < 0) {
      set(true, n, prefix);
    }
    if (compareScratch(n, prefix, hiBytes, hiLength, hiPrefix) > 0) {
      set(false, n, prefix);
    }
  }

  /**
   * Compares the value in {@code scratch} with a bound kept as a prefix: since cutting values to a
   * prefix keeps their order (a prefix after an exact value of the same bytes), the bound of the
   * smallest value is the smallest bound, and so on, without keeping whole values.
   */
  private int compareScratch(int n, boolean prefix, byte[] b, int bn, boolean bPrefix) {
    int c =
        kind.order() == Order.DECIMAL
            ? PageStatsLayout.compare(Order.DECIMAL, scratch, b)
            : Arrays.compareUnsigned(scratch, 0, n, b, 0, bn);
    return c != 0 ? c : Boolean.compare(prefix, bPrefix);
  }

  private void set(boolean low, int n, boolean prefix) {
    if (low) {
      System.arraycopy(scratch, 0, loBytes, 0, n);
      loLength = n;
      loPrefix = prefix;
    } else {
      System.arraycopy(scratch, 0, hiBytes, 0, n);
      hiLength = n;
      hiPrefix = prefix;
    }
  }

  /** Ends the page (the rows added since the last one, null or not) and starts the next. */
  public void finishPage() {
    if (kind.order() == Order.CODES) {
      codeRanges.add(new int[] {nulls, any ? (int) lo : -1, any ? (int) hi : -1});
      codeSets.add(noBitmaps ? null : codes);
      codes = noBitmaps ? null : new BitSet();
    } else {
      entries.add(valueEntry());
    }
    nulls = 0;
    any = false;
    nan = false;
  }

  /**
   * Ends the page without keeping it, and returns its entry (not for a dictionary field): bounds of
   * one value at a time, as the reader needs for dictionary values.
   */
  public Entry takePage() {
    if (kind.order() == Order.CODES) {
      throw new IllegalStateException("a dictionary field's entries need the final dictionary");
    }
    Entry e = valueEntry();
    nulls = 0;
    any = false;
    nan = false;
    return e;
  }

  /** Pages finished so far. */
  public int pages() {
    return kind.order() == Order.CODES ? codeRanges.size() : entries.size();
  }

  /**
   * The entry of page {@code page}; for a dictionary field {@code finalKind} is {@link
   * Kind#codes(int)} of the dictionary's final size, otherwise it is ignored.
   */
  public Entry entry(int page, Kind finalKind) {
    if (kind.order() != Order.CODES) {
      return entries.get(page);
    }
    int[] r = codeRanges.get(page);
    if (finalKind.codeBitmap()) {
      byte[] bitmap = Arrays.copyOf(codeSets.get(page).toByteArray(), finalKind.bitmapBytes());
      return new Entry(r[0], 0, null, null, bitmap);
    }
    if (r[1] < 0) {
      return new Entry(r[0], 0, null, null, null);
    }
    return new Entry(r[0], PageStatsLayout.FLAG_RANGE, le(r[1], 4), le(r[2], 4), null);
  }

  private Entry valueEntry() {
    Order order = kind.order();
    if (order == Order.NONE) {
      return new Entry(nulls, 0, null, null, null);
    }
    int flags = nan ? PageStatsLayout.FLAG_NAN : 0;
    if (!any) {
      return new Entry(nulls, flags, null, null, null);
    }
    flags |= PageStatsLayout.FLAG_RANGE;
    byte[] min;
    byte[] max;
    switch (order) {
      case FLOAT:
        // Zeros are signed so that min and max bound every zero under any comparison of floats:
        // numeric (-0.0 = +0.0), by bits, or IEEE total order.
        double a = loFloat == 0 ? -0.0 : loFloat;
        double b = hiFloat == 0 ? 0.0 : hiFloat;
        min = kind.width() == 4 ? le(Float.floatToRawIntBits((float) a), 4) : le(bits(a), 8);
        max = kind.width() == 4 ? le(Float.floatToRawIntBits((float) b), 4) : le(bits(b), 8);
        break;
      case DECIMAL:
      case BYTES:
        min = Arrays.copyOf(loBytes, loLength);
        max = Arrays.copyOf(hiBytes, hiLength);
        flags |=
            (loPrefix ? PageStatsLayout.FLAG_MIN_PREFIX : 0)
                | (hiPrefix ? PageStatsLayout.FLAG_MAX_PREFIX : 0);
        break;
      default:
        min = le(lo, kind.width());
        max = le(hi, kind.width());
    }
    return new Entry(nulls, flags, min, max, null);
  }

  private static long bits(double d) {
    return Double.doubleToRawLongBits(d);
  }

  private static byte[] le(long v, int width) {
    byte[] b = new byte[width];
    for (int k = 0; k < width; k++) {
      b[k] = (byte) (v >>> (8 * k));
    }
    return b;
  }
}
