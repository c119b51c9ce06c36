package dev.riffle.format.read;

import dev.riffle.format.PageStatsLayout.Order;
import dev.riffle.format.encoding.PageStatsCollector;
import dev.riffle.format.read.PageFilter.Compare;
import dev.riffle.format.read.PageFilter.Op;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Exact evaluation of a {@link PageFilter} on the rows of a batch, where the page statistics only
 * bound it. The semantics are SQL's as Spark has them: a comparison or {@code IN} is false for a
 * null value; numbers compare exactly whatever their types (an int32 field with 500.5, a float
 * field with a long); -0.0 equals 0.0; NaN equals NaN and is greater than every other number (the
 * order of Spark and PostgreSQL, so that a filter means the same in {@code riffle scan --where} as
 * in Spark); strings and binaries compare by their bytes, unsigned (code point order for UTF-8);
 * booleans as 0 and 1. A dictionary-encoded field is tested once per dictionary value, then by
 * code.
 */
final class RowMatch {
  private RowMatch() {}

  static BitSet rows(PageFilter f, VectorSchemaRoot batch, DictionaryProvider dictionaries) {
    int n = batch.getRowCount();
    if (f instanceof PageFilter.Junction j) {
      BitSet out = null;
      for (PageFilter p : j.parts) {
        BitSet r = rows(p, batch, dictionaries);
        if (out == null) {
          out = r;
        } else if (j.and) {
          out.and(r);
        } else {
          out.or(r);
        }
      }
      if (out == null) {
        out = new BitSet(n);
        if (j.and) {
          out.set(0, n);
        }
      }
      return out;
    }
    Compare c = (Compare) f;
    FieldVector v = batch.getVector(c.field);
    if (v == null) {
      throw new IllegalArgumentException("the rows to filter have no field '" + c.field + "'");
    }
    return compare(c, v, n, dictionaries);
  }

  private static BitSet compare(Compare c, FieldVector v, int n, DictionaryProvider dictionaries) {
    BitSet out = new BitSet(n);
    if (c.op == Op.IS_NULL || c.op == Op.IS_NOT_NULL) {
      boolean wantNull = c.op == Op.IS_NULL;
      for (int i = 0; i < n; i++) {
        if (v.isNull(i) == wantNull) {
          out.set(i);
        }
      }
      return out;
    }
    DictionaryEncoding encoding = v.getField().getDictionary();
    if (encoding != null) {
      Dictionary d = dictionaries == null ? null : dictionaries.lookup(encoding.getId());
      if (d == null) {
        throw new IllegalArgumentException("no dictionary for field '" + c.field + "'");
      }
      FieldVector values = d.getVector();
      BitSet codes = new BitSet();
      Values test = new Values(c, values);
      for (int k = 0; k < values.getValueCount(); k++) {
        if (!values.isNull(k) && test.matches(k)) {
          codes.set(k);
        }
      }
      BaseIntVector indices = (BaseIntVector) v;
      for (int i = 0; i < n; i++) {
        if (!v.isNull(i)) {
          long code = indices.getValueAsLong(i);
          if (code >= 0 && code < Integer.MAX_VALUE && codes.get((int) code)) {
            out.set(i);
          }
        }
      }
      return out;
    }
    Values test = new Values(c, v);
    for (int i = 0; i < n; i++) {
      if (!v.isNull(i) && test.matches(i)) {
        out.set(i);
      }
    }
    return out;
  }

  /** A comparison bound to one vector: reads its values in their order and compares them. */
  private static final class Values {
    private final Op op;
    private final FieldVector v;
    private final Order order;
    private final int width;
    private final Lit[] lits;

    Values(Compare c, FieldVector v) {
      this.op = c.op;
      this.v = v;
      // Named as the filter names it (a dictionary's vector has a name of its own).
      Field f = new Field(c.field, v.getField().getFieldType(), v.getField().getChildren());
      PageFilter.Test t = new PageFilter.Test(f, c.op, c.values);
      this.order = v instanceof Float2Vector ? Order.FLOAT : t.kind.order();
      this.width = t.kind.width();
      List<Object> converted = t.literals;
      lits = new Lit[converted.size()];
      for (int i = 0; i < lits.length; i++) {
        lits[i] = new Lit(converted.get(i));
      }
    }

    boolean matches(int i) {
      switch (op) {
        case EQ:
        case IN:
          for (Lit lit : lits) {
            if (compare(i, lit) == 0) {
              return true;
            }
          }
          return false;
        case NOT_EQ:
          return compare(i, lits[0]) != 0;
        case LT:
          return compare(i, lits[0]) < 0;
        case LE:
          return compare(i, lits[0]) <= 0;
        case GT:
          return compare(i, lits[0]) > 0;
        case GE:
          return compare(i, lits[0]) >= 0;
        default:
          throw new IllegalStateException(op.toString());
      }
    }

    /** The sign of value {@code i} − {@code lit}. */
    private int compare(int i, Lit lit) {
      switch (order) {
        case SIGNED:
          return lit.compareLong(integer(i, true));
        case UNSIGNED:
          long u = integer(i, false);
          return u >= 0
              ? lit.compareLong(u)
              : lit.compareDecimal(new BigDecimal(new BigInteger(Long.toUnsignedString(u))));
        case BOOL:
          return lit.compareLong(((BitVector) v).get(i));
        case FLOAT:
          double d =
              v instanceof Float2Vector h
                  ? h.getValueAsDouble(i)
                  : width == 4
                      ? v.getDataBuffer().getFloat((long) i * 4)
                      : v.getDataBuffer().getDouble((long) i * 8);
          return lit.compareDouble(d);
        case DECIMAL:
          return lit.compareDecimal(
              v instanceof DecimalVector dv
                  ? dv.getObject(i)
                  : ((Decimal256Vector) v).getObject(i));
        case BYTES:
          return Arrays.compareUnsigned(bytes(i), (byte[]) lit.raw);
        default:
          throw new IllegalStateException(order.toString());
      }
    }

    private long integer(int i, boolean signed) {
      return PageStatsCollector.integer(v.getDataBuffer(), i, width, signed);
    }

    private byte[] bytes(int i) {
      if (v instanceof VarCharVector x) {
        return x.get(i);
      }
      if (v instanceof VarBinaryVector x) {
        return x.get(i);
      }
      if (v instanceof LargeVarCharVector x) {
        return x.get(i);
      }
      if (v instanceof LargeVarBinaryVector x) {
        return x.get(i);
      }
      return ((FixedSizeBinaryVector) v).get(i);
    }
  }

  /**
   * A literal as the page filter converted it (an exact {@link BigDecimal}; a {@link Double} for ±∞
   * and NaN; bytes), with what makes the common comparisons cheap: its floor as a long, and whether
   * it is a double exactly.
   */
  private static final class Lit {
    final Object raw;
    private final BigDecimal dec;
    private final double special; // NaN or ±∞ when raw is a Double, else 0
    private final boolean isSpecial;
    private final long floor;
    private final boolean integral;
    private final int outsideLong; // -1 below Long.MIN_VALUE, 1 above Long.MAX_VALUE, else 0
    private final double asDouble;
    private final boolean doubleExact;

    Lit(Object raw) {
      this.raw = raw;
      this.isSpecial = raw instanceof Double;
      this.special = isSpecial ? (Double) raw : 0;
      this.dec = raw instanceof BigDecimal b ? b : null;
      if (dec != null) {
        BigDecimal fl = dec.setScale(0, java.math.RoundingMode.FLOOR);
        integral = fl.compareTo(dec) == 0;
        if (fl.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0) {
          outsideLong = -1;
          floor = Long.MIN_VALUE;
        } else if (fl.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
          outsideLong = 1;
          floor = Long.MAX_VALUE;
        } else {
          outsideLong = 0;
          floor = fl.longValueExact();
        }
        asDouble = dec.doubleValue();
        doubleExact = Double.isFinite(asDouble) && new BigDecimal(asDouble).compareTo(dec) == 0;
      } else {
        integral = false;
        outsideLong = 0;
        floor = 0;
        asDouble = 0;
        doubleExact = false;
      }
    }

    int compareLong(long x) {
      if (isSpecial) {
        // NaN is above every number; ±∞ beyond every integer.
        return Double.isNaN(special) || special > 0 ? -1 : 1;
      }
      if (outsideLong != 0) {
        return -outsideLong;
      }
      if (integral) {
        return Long.compare(x, floor);
      }
      return x <= floor ? -1 : 1;
    }

    int compareDouble(double x) {
      if (Double.isNaN(x)) {
        return isSpecial && Double.isNaN(special) ? 0 : 1;
      }
      if (isSpecial) {
        if (Double.isNaN(special)) {
          return -1;
        }
        return x < special ? -1 : x > special ? 1 : 0;
      }
      if (Double.isInfinite(x)) {
        return x > 0 ? 1 : -1;
      }
      if (doubleExact) {
        return x < asDouble ? -1 : x > asDouble ? 1 : 0;
      }
      return new BigDecimal(x).compareTo(dec);
    }

    int compareDecimal(BigDecimal x) {
      if (isSpecial) {
        return Double.isNaN(special) || special > 0 ? -1 : 1;
      }
      return x.compareTo(dec);
    }
  }
}
