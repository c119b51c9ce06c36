package dev.riffle.format.read;

import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.PageStatsLayout.Entry;
import dev.riffle.format.PageStatsLayout.Kind;
import dev.riffle.format.PageStatsLayout.Order;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The statistics of one field over one page (FORMAT.md §4.5), or over several pages {@link #merge
 * merged}: rows, null rows, and what the non-null values span. Bounds are exact unless {@link
 * #minIsPrefix()} / {@link #maxIsPrefix()} say they are the first 64 bytes of a longer value.
 * Immutable.
 *
 * <p>Java types of {@link #min()} and {@link #max()}: {@code Boolean} (bool); {@code Long} (signed
 * integers, unsigned integers up to 32 bits, and date, time, timestamp and duration in their stored
 * unit); {@code BigInteger} (uint64); {@code Float} / {@code Double}; {@code BigDecimal} (decimal,
 * at the field's scale); {@code String} (utf8; a prefix may end inside a character, decoded with
 * U+FFFD); {@code byte[]} (binary, fixed-size binary); {@code Integer} (the smallest and largest
 * dictionary code of a page of a dictionary with more than {@value
 * PageStatsLayout#MAX_BITMAP_CODES} entries; smaller dictionaries list the codes present in {@link
 * #codes()}).
 */
public final class PageStats {
  private final Field field;
  private final Kind kind;
  private final long rowCount;
  private final long nullCount;
  private final int flags;
  private final byte[] min;
  private final byte[] max;
  private final BitSet codes;

  private PageStats(
      Field field,
      Kind kind,
      long rowCount,
      long nullCount,
      int flags,
      byte[] min,
      byte[] max,
      BitSet codes) {
    this.field = field;
    this.kind = kind;
    this.rowCount = rowCount;
    this.nullCount = nullCount;
    this.flags = flags;
    this.min = min;
    this.max = max;
    this.codes = codes;
  }

  /** The statistics of one page as read from its column block. */
  static PageStats of(Field field, Kind kind, int rowCount, Entry e) {
    return new PageStats(
        field,
        kind,
        rowCount,
        e.nullCount(),
        e.flags(),
        e.min(),
        e.max(),
        e.codes() == null ? null : BitSet.valueOf(e.codes()));
  }

  /**
   * The statistics of all the given pages together (of one field, in any order): the file-level
   * figures a caller can test before reading any page.
   *
   * @throws IllegalArgumentException if the list is empty or mixes fields
   */
  public static PageStats merge(List<PageStats> pages) {
    if (pages.isEmpty()) {
      throw new IllegalArgumentException("no page statistics to merge");
    }
    PageStats first = pages.get(0);
    long rows = 0;
    long nulls = 0;
    int flags = 0;
    byte[] lo = null;
    byte[] hi = null;
    boolean loPrefix = false;
    boolean hiPrefix = false;
    BitSet codes = first.codes == null ? null : new BitSet();
    for (PageStats p : pages) {
      if (!p.field.equals(first.field) || !p.kind.equals(first.kind)) {
        throw new IllegalArgumentException(
            "statistics of '" + p.field.getName() + "' and '" + first.field.getName() + "' mixed");
      }
      rows += p.rowCount;
      nulls += p.nullCount;
      flags |= p.flags & PageStatsLayout.FLAG_NAN;
      if (codes != null) {
        codes.or(p.codes);
      }
      if (p.hasMinMax()) {
        if (lo == null
            || PageStatsLayout.compareBounds(first.kind, p.min, p.minIsPrefix(), lo, loPrefix)
                < 0) {
          lo = p.min;
          loPrefix = p.minIsPrefix();
        }
        if (hi == null
            || PageStatsLayout.compareBounds(first.kind, p.max, p.maxIsPrefix(), hi, hiPrefix)
                > 0) {
          hi = p.max;
          hiPrefix = p.maxIsPrefix();
        }
      }
    }
    if (lo != null) {
      flags |=
          PageStatsLayout.FLAG_RANGE
              | (loPrefix ? PageStatsLayout.FLAG_MIN_PREFIX : 0)
              | (hiPrefix ? PageStatsLayout.FLAG_MAX_PREFIX : 0);
    }
    return new PageStats(first.field, first.kind, rows, nulls, flags, lo, hi, codes);
  }

  /** The name of the field. */
  public String field() {
    return field.getName();
  }

  public long rowCount() {
    return rowCount;
  }

  public long nullCount() {
    return nullCount;
  }

  /** Whether some value is NaN (floats; NaN is never a bound). */
  public boolean hasNaN() {
    return (flags & PageStatsLayout.FLAG_NAN) != 0;
  }

  /**
   * Whether {@link #min()} and {@link #max()} are present: a page of a field with an order that has
   * a non-null (non-NaN) value. Nested fields and half floats have null counts only; pages of small
   * dictionaries list their {@link #codes()} instead.
   */
  public boolean hasMinMax() {
    return (flags & PageStatsLayout.FLAG_RANGE) != 0;
  }

  /** The smallest value (or a prefix of it, see {@link #minIsPrefix()}), or null. */
  public Object min() {
    return hasMinMax() ? value(min) : null;
  }

  /** The largest value (or a prefix of it, see {@link #maxIsPrefix()}), or null. */
  public Object max() {
    return hasMinMax() ? value(max) : null;
  }

  /** Whether {@link #min()} is the first 64 bytes of the smallest value, not the value. */
  public boolean minIsPrefix() {
    return (flags & PageStatsLayout.FLAG_MIN_PREFIX) != 0;
  }

  /**
   * Whether {@link #max()} is the first 64 bytes of the largest value: every value is then at most
   * {@code max} or starts with it.
   */
  public boolean maxIsPrefix() {
    return (flags & PageStatsLayout.FLAG_MAX_PREFIX) != 0;
  }

  /**
   * The dictionary codes present, for a dictionary-encoded field whose dictionary has at most
   * {@value PageStatsLayout#MAX_BITMAP_CODES} entries; else null. A copy.
   */
  public BitSet codes() {
    return codes == null ? null : (BitSet) codes.clone();
  }

  /** Whether the field is dictionary-encoded (its bounds are codes). */
  boolean isCodes() {
    return kind.order() == Order.CODES;
  }

  Kind kind() {
    return kind;
  }

  /** Bytes this object holds, about: fields, bounds and the code bitmap. */
  long ramBytes() {
    return 64L
        + (min == null ? 0 : 16L + min.length)
        + (max == null ? 0 : 16L + max.length)
        + (codes == null ? 0 : 32L + codes.size() / 8);
  }

  BitSet codeSet() {
    return codes;
  }

  byte[] minForm() {
    return min;
  }

  byte[] maxForm() {
    return max;
  }

  private Object value(byte[] b) {
    switch (kind.order()) {
      case SIGNED:
        return PageStatsLayout.longValue(b, true);
      case UNSIGNED:
        long u = PageStatsLayout.longValue(b, false);
        return b.length == 8 ? unsigned(u) : (Object) u;
      case BOOL:
        return b[0] != 0;
      case FLOAT:
        double d = PageStatsLayout.floatValue(b);
        return b.length == 4 ? (Object) (float) d : (Object) d;
      case DECIMAL:
        return new BigDecimal(littleEndian(b), ((ArrowType.Decimal) field.getType()).getScale());
      case CODES:
        return (int) PageStatsLayout.longValue(b, false);
      default:
        ArrowType.ArrowTypeID id = field.getType().getTypeID();
        return id == ArrowType.ArrowTypeID.Utf8 || id == ArrowType.ArrowTypeID.LargeUtf8
            ? new String(b, StandardCharsets.UTF_8)
            : b.clone();
    }
  }

  static BigInteger unsigned(long u) {
    return new BigInteger(Long.toUnsignedString(u));
  }

  /** A two's-complement little-endian integer. */
  static BigInteger littleEndian(byte[] b) {
    byte[] be = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      be[i] = b[b.length - 1 - i];
    }
    return new BigInteger(be);
  }

  @Override
  public String toString() {
    StringBuilder s =
        new StringBuilder(field.getName())
            .append(": rows=")
            .append(rowCount)
            .append(" nulls=")
            .append(nullCount);
    if (hasMinMax()) {
      s.append(" min=").append(text(min())).append(minIsPrefix() ? "…" : "");
      s.append(" max=").append(text(max())).append(maxIsPrefix() ? "…" : "");
    }
    if (hasNaN()) {
      s.append(" NaN");
    }
    if (codes != null) {
      s.append(" codes=").append(codes);
    }
    return s.toString();
  }

  private static String text(Object o) {
    return o instanceof byte[] b ? "0x" + java.util.HexFormat.of().formatHex(b) : String.valueOf(o);
  }
}
