package dev.riffle.format.read;

import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.PageStatsLayout.Kind;
import dev.riffle.format.PageStatsLayout.Order;
import dev.riffle.format.encoding.PageStatsCollector;
import dev.riffle.format.schema.StatsKinds;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A filter on field values that page statistics (FORMAT.md §4.5) can test: comparisons with a
 * literal, {@code IN}, null tests, and {@code AND} / {@code OR} of them. {@link
 * FileReader#candidateRows} turns it into the rows of the pages it cannot exclude, and a scan of
 * those rows reads no other page. It never excludes a row that matches; the rows it keeps may
 * include rows that do not match: {@link #matches} decides rows exactly, and {@link #matchingRows}
 * gives a file's matching rows (reading only the filter's fields, over the candidate pages).
 *
 * <p>Semantics are SQL's: a comparison is false for a null value. A page holding a NaN is never
 * excluded by a comparison on its field (engines order NaN differently: IEEE has it unequal to
 * everything, Spark and Parquet greatest), nor by one with a NaN literal. Floats compare
 * numerically ({@code -0.0 = 0.0}). Strings compare by their UTF-8 bytes, which is code point
 * order; a bound cut to its first 64 bytes still bounds.
 *
 * <p>Literals: a {@code Boolean} for bool fields; any {@code Byte}, {@code Short}, {@code Integer},
 * {@code Long}, {@code BigInteger}, {@code BigDecimal}, {@code Float} or {@code Double} for
 * integer, float and decimal fields, compared exactly whatever the field's type (so {@code n >
 * 500.5} on an integer field works); a number in the field's stored unit for date, time, timestamp
 * and duration fields; a {@code String} or {@code byte[]} for utf8, binary and fixed-size binary
 * fields. A dictionary-encoded field takes literals of its dictionary's value type and is tested
 * through the codes each page holds. Nested fields take null tests only. Anything else is an {@link
 * IllegalArgumentException} when the filter is applied, naming the field.
 */
public abstract class PageFilter {
  PageFilter() {}

  /** Rows whose {@code field} equals {@code value}. */
  public static PageFilter eq(String field, Object value) {
    return new Compare(field, Op.EQ, List.of(literal(value)));
  }

  /** Rows whose {@code field} is not null and differs from {@code value}. */
  public static PageFilter notEq(String field, Object value) {
    return new Compare(field, Op.NOT_EQ, List.of(literal(value)));
  }

  public static PageFilter lt(String field, Object value) {
    return new Compare(field, Op.LT, List.of(literal(value)));
  }

  public static PageFilter le(String field, Object value) {
    return new Compare(field, Op.LE, List.of(literal(value)));
  }

  public static PageFilter gt(String field, Object value) {
    return new Compare(field, Op.GT, List.of(literal(value)));
  }

  public static PageFilter ge(String field, Object value) {
    return new Compare(field, Op.GE, List.of(literal(value)));
  }

  /** Rows whose {@code field} equals one of {@code values} (none: no rows). */
  public static PageFilter in(String field, Collection<?> values) {
    List<Object> v = new ArrayList<>();
    for (Object o : values) {
      v.add(literal(o));
    }
    return new Compare(field, Op.IN, v);
  }

  public static PageFilter isNull(String field) {
    return new Compare(field, Op.IS_NULL, List.of());
  }

  public static PageFilter isNotNull(String field) {
    return new Compare(field, Op.IS_NOT_NULL, List.of());
  }

  /** Rows every filter keeps. */
  public static PageFilter and(PageFilter... filters) {
    return new Junction(true, List.of(filters));
  }

  /** Rows some filter keeps. */
  public static PageFilter or(PageFilter... filters) {
    return new Junction(false, List.of(filters));
  }

  private static Object literal(Object value) {
    if (value == null) {
      throw new IllegalArgumentException("a null literal compares with nothing; use isNull");
    }
    return value instanceof byte[] b ? b.clone() : value;
  }

  /** The rows of the pages of {@code reader}'s file that this filter cannot exclude. */
  abstract RowRanges rows(FileReader reader) throws IOException;

  /**
   * The rows of {@code batch} that match, exactly: the page statistics only bound a filter, this
   * decides it (see {@link RowMatch} for the semantics). {@code batch} holds every field of {@link
   * #fields()} by name, as a scan of those fields returns them; a dictionary-encoded field holds
   * codes, whose values {@code dictionaries} gives. Bit {@code i} is row {@code i}.
   *
   * @throws IllegalArgumentException if the batch lacks a field or a literal does not fit a field
   */
  public BitSet matches(VectorSchemaRoot batch, DictionaryProvider dictionaries) {
    return RowMatch.rows(this, batch, dictionaries);
  }

  /**
   * The rows of {@code within} (rows of {@code reader}'s file) that this filter matches, exactly:
   * only the filter's fields are read, and only over the pages their statistics cannot exclude,
   * each page checksummed as by any scan.
   */
  public RowRanges matchingRows(FileReader reader, RowRanges within) throws IOException {
    RowRanges candidates = reader.candidateRows(this).intersect(within);
    RowRanges.Builder out = new RowRanges.Builder();
    if (candidates.isEmpty()) {
      return out.build();
    }
    // The p-th row the scan returns is the p-th row of the candidate ranges.
    int range = 0;
    long passed = 0; // rows of the ranges before {@code range}
    long position = 0; // of the batch's first row in the scan
    ScanCursor cursor = reader.scan(new ArrayList<>(fields()), 1 << 14, candidates);
    try {
      for (VectorSchemaRoot next = cursor.next(); next != null; next = cursor.next()) {
        try (VectorSchemaRoot batch = next) {
          BitSet match = matches(batch, reader.dictionaries());
          for (int k = match.nextSetBit(0); k >= 0; k = match.nextSetBit(k + 1)) {
            long p = position + k;
            while (p - passed >= candidates.end(range) - candidates.start(range)) {
              passed += candidates.end(range) - candidates.start(range);
              range++;
            }
            long row = candidates.start(range) + (p - passed);
            out.add(row, row + 1);
          }
          position += batch.getRowCount();
        }
      }
    } finally {
      cursor.close();
    }
    return out.build();
  }

  /** The top-level fields this filter reads, in the order it names them. */
  public Set<String> fields() {
    Set<String> out = new LinkedHashSet<>();
    collectFields(out);
    return out;
  }

  abstract void collectFields(Set<String> out);

  enum Op {
    EQ("="),
    NOT_EQ("!="),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">="),
    IN("in"),
    IS_NULL("is null"),
    IS_NOT_NULL("is not null");

    final String text;

    Op(String text) {
      this.text = text;
    }
  }

  static final class Junction extends PageFilter {
    final boolean and;
    final List<PageFilter> parts;

    Junction(boolean and, List<PageFilter> parts) {
      this.and = and;
      this.parts = parts;
    }

    @Override
    RowRanges rows(FileReader reader) throws IOException {
      RowRanges r = and ? RowRanges.all(reader.rowCount()) : RowRanges.none();
      for (PageFilter f : parts) {
        r = and ? r.intersect(f.rows(reader)) : r.union(f.rows(reader));
      }
      return r;
    }

    @Override
    void collectFields(Set<String> out) {
      parts.forEach(p -> p.collectFields(out));
    }

    @Override
    public String toString() {
      List<String> s = new ArrayList<>();
      parts.forEach(p -> s.add(p.toString()));
      return "(" + String.join(and ? " and " : " or ", s) + ")";
    }
  }

  /** A test of one field: its pages' statistics decide. */
  static final class Compare extends PageFilter {
    final String field;
    final Op op;
    final List<Object> values;

    Compare(String field, Op op, List<Object> values) {
      this.field = field;
      this.op = op;
      this.values = values;
    }

    @Override
    RowRanges rows(FileReader reader) throws IOException {
      ColumnReader col = reader.columnOfField(field);
      Field f = reader.schema().fields().get(reader.schema().fieldIndex(field));
      int k = col.spec.fields().indexOf(reader.schema().fieldIndex(field));
      boolean nullTest = op == Op.IS_NULL || op == Op.IS_NOT_NULL;
      Test test = null;
      BitSet codes = null;
      if (!nullTest) {
        Field valueField =
            f.getDictionary() == null
                ? f
                : reader.schema().dictionaryValues(reader.schema().fieldIndex(field));
        test = new Test(valueField, op, values);
        if (f.getDictionary() != null) {
          codes = test.codes(col.dictionary());
        }
      }
      RowRanges.Builder out = new RowRanges.Builder();
      for (PageInfo p : col.pages) {
        if (p.stats().isEmpty() || mayMatch(p.stats().get(k), test, codes)) {
          out.add(p.firstRow(), p.firstRow() + p.rowCount());
        }
      }
      return out.build();
    }

    private boolean mayMatch(PageStats s, Test test, BitSet matchingCodes) {
      long values = s.rowCount() - s.nullCount();
      switch (op) {
        case IS_NULL:
          return s.nullCount() > 0;
        case IS_NOT_NULL:
          return values > 0;
        default:
          break;
      }
      if (values == 0) {
        return false;
      }
      if (s.isCodes()) {
        BitSet present = s.codeSet();
        if (present != null) {
          return present.intersects(matchingCodes);
        }
        int lo = (int) PageStatsLayout.longValue(s.minForm(), false);
        int hi = (int) PageStatsLayout.longValue(s.maxForm(), false);
        int next = matchingCodes.nextSetBit(lo);
        return next >= 0 && next <= hi;
      }
      return test.mayMatch(s);
    }

    @Override
    void collectFields(Set<String> out) {
      out.add(field);
    }

    @Override
    public String toString() {
      if (values.isEmpty()) {
        return field + " " + op.text;
      }
      List<String> v = new ArrayList<>();
      for (Object o : values) {
        v.add(o instanceof byte[] b ? "0x" + java.util.HexFormat.of().formatHex(b) : o.toString());
      }
      return field
          + " "
          + op.text
          + " "
          + (op == Op.IN ? "(" + String.join(", ", v) + ")" : v.get(0));
    }
  }

  /**
   * A comparison with literals converted to a field's order: exact numbers (or ±∞, or unknown for
   * NaN) for numeric orders, bytes for byte orders.
   */
  static final class Test {
    private final Field field;
    final Kind kind;
    private final Op op;
    final List<Object> literals = new ArrayList<>();

    Test(Field field, Op op, List<Object> values) {
      this.field = field;
      this.kind = StatsKinds.of(field);
      this.op = op;
      boolean halfFloat =
          field.getType() instanceof ArrowType.FloatingPoint && kind.order() == Order.NONE;
      if (kind.order() == Order.NONE && !halfFloat) {
        throw new IllegalArgumentException(
            "field '" + field.getName() + "' (" + field.getType() + ") has no order to compare");
      }
      for (Object v : values) {
        literals.add(halfFloat ? number(v) : convert(v));
      }
    }

    /** The codes of the dictionary values this test may match. */
    BitSet codes(FieldVector dictionary) {
      BitSet codes = new BitSet();
      if (dictionary == null) {
        return codes;
      }
      PageStatsCollector one = new PageStatsCollector(kind);
      for (int i = 0; i < dictionary.getValueCount(); i++) {
        one.add(dictionary, i);
        if (mayMatch(PageStats.of(field, kind, 1, one.takePage()))) {
          codes.set(i);
        }
      }
      return codes;
    }

    private Object convert(Object v) {
      switch (kind.order()) {
        case BOOL:
          if (v instanceof Boolean b) {
            return b ? BigDecimal.ONE : BigDecimal.ZERO;
          }
          throw mismatch(v);
        case BYTES:
          if (v instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
          }
          if (v instanceof byte[] b) {
            return b;
          }
          throw mismatch(v);
        default:
          return number(v);
      }
    }

    /** An exact number, {@link Double#POSITIVE_INFINITY} / negative, or NaN for unknown. */
    private Object number(Object v) {
      if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
        return BigDecimal.valueOf(((Number) v).longValue());
      }
      if (v instanceof BigInteger b) {
        return new BigDecimal(b);
      }
      if (v instanceof BigDecimal b) {
        return b;
      }
      if (v instanceof Float || v instanceof Double) {
        double d = ((Number) v).doubleValue();
        return Double.isFinite(d) ? new BigDecimal(d) : (Object) d;
      }
      throw mismatch(v);
    }

    private IllegalArgumentException mismatch(Object v) {
      return new IllegalArgumentException(
          "cannot compare field '"
              + field.getName()
              + "' ("
              + field.getType()
              + ") with "
              + v.getClass().getSimpleName()
              + " "
              + v);
    }

    /** Whether a page with these statistics (some non-null value) may hold a matching value. */
    boolean mayMatch(PageStats s) {
      if (s.hasNaN() || !s.hasMinMax()) {
        // NaN compares differently per engine; no bounds (half floats): nothing to go by.
        return true;
      }
      for (Object lit : literals) {
        if (lit instanceof Double d && d.isNaN()) {
          return true;
        }
        if (mayMatch(s, lit)) {
          return true;
        }
      }
      return false;
    }

    private boolean mayMatch(PageStats s, Object lit) {
      switch (op) {
        case EQ:
        case IN:
          return lowAtMost(s, lit, true) && highAtLeast(s, lit, true);
        case NOT_EQ:
          // Excluded only if every value equals the literal: exact bounds both equal to it.
          return s.minIsPrefix()
              || s.maxIsPrefix()
              || compare(s, s.minForm(), lit) != 0
              || compare(s, s.maxForm(), lit) != 0;
        case LT:
          return lowAtMost(s, lit, false);
        case LE:
          return lowAtMost(s, lit, true);
        case GT:
          return highAtLeast(s, lit, false);
        case GE:
          return highAtLeast(s, lit, true);
        default:
          throw new IllegalStateException(op.toString());
      }
    }

    /** Whether some value may be below {@code lit} (or equal, if {@code orEqual}). */
    private boolean lowAtMost(PageStats s, Object lit, boolean orEqual) {
      // A prefix of the min is at most the min, so it bounds from below as well.
      int c = compare(s, s.minForm(), lit);
      return orEqual ? c <= 0 : c < 0;
    }

    /** Whether some value may be above {@code lit} (or equal, if {@code orEqual}). */
    private boolean highAtLeast(PageStats s, Object lit, boolean orEqual) {
      if (s.maxIsPrefix()) {
        // Every value is at most M or starts with M, and the max is longer than M: some value
        // may exceed lit unless lit is above M without starting with it.
        byte[] m = s.maxForm();
        byte[] l = (byte[]) lit;
        boolean startsWith = l.length >= m.length && Arrays.equals(l, 0, m.length, m, 0, m.length);
        return startsWith || Arrays.compareUnsigned(l, m) <= 0;
      }
      int c = compare(s, s.maxForm(), lit);
      return orEqual ? c >= 0 : c > 0;
    }

    /** The sign of {@code bound − lit} in the field's order. */
    private int compare(PageStats s, byte[] bound, Object lit) {
      if (kind.order() == Order.BYTES) {
        return Arrays.compareUnsigned(bound, (byte[]) lit);
      }
      Object b = exact(bound);
      if (lit instanceof Double inf) {
        // ±∞ literal (NaN was handled before): compare with a finite bound, or an infinite one.
        double x = b instanceof Double d ? d : 0;
        return b instanceof Double ? Double.compare(x, inf) : inf > 0 ? -1 : 1;
      }
      if (b instanceof Double d) {
        return d > 0 ? 1 : -1;
      }
      return ((BigDecimal) b).compareTo((BigDecimal) lit);
    }

    /** A bound as an exact number, or ±∞ as a Double. */
    private Object exact(byte[] bound) {
      switch (kind.order()) {
        case SIGNED:
          return BigDecimal.valueOf(PageStatsLayout.longValue(bound, true));
        case UNSIGNED:
        case BOOL:
          return new BigDecimal(PageStats.unsigned(PageStatsLayout.longValue(bound, false)));
        case FLOAT:
          double d = PageStatsLayout.floatValue(bound);
          return Double.isInfinite(d) ? (Object) d : new BigDecimal(d);
        case DECIMAL:
          return new BigDecimal(
              PageStats.littleEndian(bound), ((ArrowType.Decimal) field.getType()).getScale());
        default:
          throw new IllegalStateException(kind.toString());
      }
    }
  }
}
