package dev.riffle.spark;

import dev.riffle.format.read.RowRanges;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.roaringbitmap.longlong.PeekableLongIterator;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * The {@code _row_id} metadata column: a row's global id in the version (its file's first row plus
 * its row in the file), the id that takes, splits and deletions use. Predicates on it ({@code =},
 * {@code IN}, comparisons, and {@code AND} / {@code OR} of them, so {@code BETWEEN}) become the set
 * of ids they select, exactly: the scan reads only those rows (by takes when they are few), and
 * Spark need not evaluate them again.
 */
final class RowIds {
  static final String COLUMN = "_row_id";

  private RowIds() {}

  /**
   * The ids of {@code [0, total)} that a predicate selects, or null if it is not a predicate on
   * {@code _row_id} alone.
   */
  static Roaring64Bitmap of(Predicate p, long total) {
    Expression[] c = p.children();
    switch (p.name()) {
      case "AND":
      case "OR":
        {
          Roaring64Bitmap a = c[0] instanceof Predicate l ? of(l, total) : null;
          Roaring64Bitmap b = c[1] instanceof Predicate r ? of(r, total) : null;
          if (a == null || b == null) {
            return null;
          }
          if (p.name().equals("AND")) {
            a.and(b);
          } else {
            a.or(b);
          }
          return a;
        }
      case "IN":
        {
          if (!isRowId(c[0])) {
            return null;
          }
          Roaring64Bitmap out = new Roaring64Bitmap();
          for (int i = 1; i < c.length; i++) {
            if (!(c[i] instanceof Literal<?> l)) {
              return null;
            }
            Long v = id(l);
            if (v == null && l.value() != null) {
              return null;
            }
            if (v != null && v >= 0 && v < total) {
              out.addLong(v);
            }
          }
          return out;
        }
      case "=":
      case "<=>":
      case "<":
      case "<=":
      case ">":
      case ">=":
        {
          String op = p.name();
          Expression col = c[0];
          Expression lit = c[1];
          if (c[0] instanceof Literal<?>) {
            col = c[1];
            lit = c[0];
            op =
                op.equals("<")
                    ? ">"
                    : op.equals(">") ? "<" : op.equals("<=") ? ">=" : op.equals(">=") ? "<=" : op;
          }
          if (!isRowId(col) || !(lit instanceof Literal<?> l)) {
            return null;
          }
          Long v = id(l);
          Roaring64Bitmap out = new Roaring64Bitmap();
          if (v == null) {
            // _row_id is never null: a comparison with null selects nothing.
            return l.value() == null ? out : null;
          }
          long lo;
          long hi;
          switch (op) {
            case "=":
            case "<=>":
              lo = v;
              hi = v + 1;
              break;
            case "<":
              lo = 0;
              hi = v;
              break;
            case "<=":
              lo = 0;
              hi = v + 1;
              break;
            case ">":
              lo = v + 1;
              hi = total;
              break;
            default:
              lo = v;
              hi = total;
              break;
          }
          lo = Math.max(0, lo);
          hi = Math.min(total, hi);
          if (lo < hi) {
            out.addRange(lo, hi);
          }
          return out;
        }
      default:
        return null;
    }
  }

  private static boolean isRowId(Expression e) {
    return e instanceof NamedReference r
        && r.fieldNames().length == 1
        && r.fieldNames()[0].equals(COLUMN);
  }

  /** A literal as an id, clamped into longs' range; null for null or a non-integer. */
  private static Long id(Literal<?> l) {
    Object v = l.value();
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      // Clamped so that v + 1 does not overflow; no id is that large.
      return Math.min(((Number) v).longValue(), Long.MAX_VALUE - 1);
    }
    return null;
  }

  /**
   * The global ids of the rows a partition returns, in order: the rows of {@code ranges} (the
   * file's own numbers), and of those only the ones in {@code rows} (global ids) if given. A scan
   * of the same ranges and selection returns exactly these rows, so the ids of each batch are the
   * next ones here.
   */
  static final class Cursor {
    private final long firstRow;
    private final RowRanges ranges;
    private final Roaring64Bitmap rows;
    private int range;
    private long next;
    private PeekableLongIterator it;

    Cursor(long firstRow, RowRanges ranges, Roaring64Bitmap rows) {
      this.firstRow = firstRow;
      this.ranges = ranges;
      this.rows = rows;
      this.next = ranges.isEmpty() ? 0 : ranges.start(0);
    }

    /**
     * Puts up to {@code max} next ids into {@code out} (null: only counts them).
     *
     * @return how many
     */
    int next(int max, long[] out) {
      int n = 0;
      while (n < max && range < ranges.count()) {
        long end = ranges.end(range);
        if (rows == null) {
          int k = (int) Math.min(max - n, end - next);
          if (out != null) {
            for (int i = 0; i < k; i++) {
              out[n + i] = firstRow + next + i;
            }
          }
          n += k;
          next += k;
        } else {
          if (it == null) {
            it = rows.getLongIteratorFrom(firstRow + next);
          }
          it.advanceIfNeeded(firstRow + next);
          while (n < max && it.hasNext() && it.peekNext() < firstRow + end) {
            long id = it.next();
            if (out != null) {
              out[n] = id;
            }
            n++;
            next = id - firstRow + 1;
          }
          if (n < max) {
            next = end;
          }
        }
        if (next >= end) {
          range++;
          if (range < ranges.count()) {
            next = ranges.start(range);
          }
        }
      }
      return n;
    }
  }
}
