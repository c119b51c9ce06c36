package dev.riffle.spark;

import dev.riffle.format.read.PageFilter;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark predicate that page statistics can test, in a form the tasks receive (Spark's own
 * expressions are not meant to travel): comparisons of a top-level column with a literal, {@code
 * IN}, null tests, and {@code AND} / {@code OR} of them. In the task it becomes a {@link
 * PageFilter}, which keeps every page that may hold a matching row; Spark still evaluates the
 * predicate on the rows read, so a filter here only saves reading.
 *
 * <p>Only columns whose values Spark sees as stored are pushed (booleans, signed and unsigned
 * integers, float and double, decimal128, strings and binary with Spark's binary collation, date32,
 * timestamps in s, ms or µs, and categorical columns of strings): a column the connector converts
 * on the way (nanosecond timestamps rounded, date64, times, decimal256) would need the conversion
 * undone for each literal, and is left to Spark.
 *
 * @param op {@code = <> < <= > >= IN IS_NULL IS_NOT_NULL AND OR}
 * @param field the column (for comparisons and null tests)
 * @param literals the literals, in the field's stored unit (comparisons), or empty
 * @param parts the operands of {@code AND} / {@code OR}, or empty
 */
record PushedFilter(String op, String field, List<Object> literals, List<PushedFilter> parts)
    implements Serializable {

  /**
   * The filter a Spark predicate becomes, or null if statistics cannot test it (Spark then
   * evaluates it alone).
   *
   * @param fields the dataset's top-level Arrow fields by name
   * @param sparkTypes their Spark types, as the scan reads them
   */
  static PushedFilter of(Predicate p, Map<String, Field> fields, Map<String, DataType> sparkTypes) {
    Expression[] c = p.children();
    switch (p.name()) {
      case "AND":
      case "OR":
        {
          PushedFilter a = c[0] instanceof Predicate l ? of(l, fields, sparkTypes) : null;
          PushedFilter b = c[1] instanceof Predicate r ? of(r, fields, sparkTypes) : null;
          if (p.name().equals("OR")) {
            return a == null || b == null
                ? null
                : new PushedFilter("OR", null, List.of(), List.of(a, b));
          }
          // A part of an AND that cannot be tested leaves the other part to prune with.
          if (a == null || b == null) {
            return a == null ? b : a;
          }
          return new PushedFilter("AND", null, List.of(), List.of(a, b));
        }
      case "IS_NULL":
      case "IS_NOT_NULL":
        {
          String f = column(c[0], fields);
          return f == null ? null : new PushedFilter(p.name(), f, List.of(), List.of());
        }
      case "IN":
        {
          String f = column(c[0], fields);
          if (f == null || !comparable(fields.get(f), sparkTypes.get(f))) {
            return null;
          }
          List<Object> values = new ArrayList<>();
          for (int i = 1; i < c.length; i++) {
            Object v = c[i] instanceof Literal<?> l ? value(l, fields.get(f)) : null;
            if (v == null) {
              // A null in the list matches nothing; anything else unknown stops the push.
              if (c[i] instanceof Literal<?> l && l.value() == null) {
                continue;
              }
              return null;
            }
            values.add(v);
          }
          return new PushedFilter("IN", f, values, List.of());
        }
      case "=":
      case "<=>":
      case "<>":
      case "<":
      case "<=":
      case ">":
      case ">=":
        {
          String op = p.name();
          Expression col = c[0];
          Expression lit = c[1];
          if (c[0] instanceof Literal<?> && !(c[1] instanceof Literal<?>)) {
            col = c[1];
            lit = c[0];
            op = flip(op);
          }
          String f = column(col, fields);
          if (f == null || !(lit instanceof Literal<?> l)) {
            return null;
          }
          if (l.value() == null) {
            return op.equals("<=>") ? new PushedFilter("IS_NULL", f, List.of(), List.of()) : null;
          }
          if (!comparable(fields.get(f), sparkTypes.get(f))) {
            return null;
          }
          Object v = value(l, fields.get(f));
          return v == null
              ? null
              : new PushedFilter(op.equals("<=>") ? "=" : op, f, List.of(v), List.of());
        }
      default:
        return null;
    }
  }

  private static String flip(String op) {
    switch (op) {
      case "<":
        return ">";
      case "<=":
        return ">=";
      case ">":
        return "<";
      case ">=":
        return "<=";
      default:
        return op;
    }
  }

  /** The top-level column a reference names, or null. */
  private static String column(Expression e, Map<String, Field> fields) {
    if (e instanceof NamedReference r && r.fieldNames().length == 1) {
      String name = r.fieldNames()[0];
      return fields.containsKey(name) ? name : null;
    }
    return null;
  }

  /** Whether Spark sees the column's values as stored, so that a literal compares the same. */
  private static boolean comparable(Field f, DataType spark) {
    if (spark == null) {
      return false;
    }
    if (spark instanceof org.apache.spark.sql.types.StringType
        && !spark.equals(DataTypes.StringType)) {
      return false; // a collation other than binary orders differently
    }
    ArrowType t = f.getDictionary() != null ? null : f.getType();
    if (t == null) {
      // Categorical: its values are strings (or numbers) compared through the codes pages hold.
      return spark.equals(DataTypes.StringType)
          || spark instanceof org.apache.spark.sql.types.NumericType;
    }
    switch (t.getTypeID()) {
      case Bool:
      case Int:
      case Utf8:
      case LargeUtf8:
      case Binary:
      case LargeBinary:
        return true;
      case FloatingPoint:
        return !spark.equals(DataTypes.FloatType)
            || ((ArrowType.FloatingPoint) t).getPrecision()
                == org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE;
      case Decimal:
        return ((ArrowType.Decimal) t).getBitWidth() == 128;
      case Date:
        return ((ArrowType.Date) t).getUnit() == DateUnit.DAY;
      case Timestamp:
        return ((ArrowType.Timestamp) t).getUnit() != TimeUnit.NANOSECOND;
      default:
        return false;
    }
  }

  /** A literal as the page filter takes it: Java values, in the field's stored unit; or null. */
  private static Object value(Literal<?> l, Field f) {
    Object v = l.value();
    if (v == null) {
      return null;
    }
    if (v instanceof UTF8String s) {
      return s.toString();
    }
    if (v instanceof Decimal d) {
      return d.toJavaBigDecimal();
    }
    if (f.getType() instanceof ArrowType.Timestamp ts && v instanceof Long micros) {
      // Spark's timestamps are µs; the file's may be s or ms (exact: a fraction compares exactly).
      BigDecimal us = BigDecimal.valueOf(micros);
      switch (ts.getUnit()) {
        case SECOND:
          return us.movePointLeft(6);
        case MILLISECOND:
          return us.movePointLeft(3);
        default:
          return micros;
      }
    }
    if (v instanceof Boolean || v instanceof Number || v instanceof byte[]) {
      return v;
    }
    return null;
  }

  /** The format's page filter. */
  PageFilter toPageFilter() {
    switch (op) {
      case "AND":
        return PageFilter.and(
            parts.stream().map(PushedFilter::toPageFilter).toArray(PageFilter[]::new));
      case "OR":
        return PageFilter.or(
            parts.stream().map(PushedFilter::toPageFilter).toArray(PageFilter[]::new));
      case "IS_NULL":
        return PageFilter.isNull(field);
      case "IS_NOT_NULL":
        return PageFilter.isNotNull(field);
      case "IN":
        return PageFilter.in(field, literals);
      case "=":
        return PageFilter.eq(field, literals.get(0));
      case "<>":
        return PageFilter.notEq(field, literals.get(0));
      case "<":
        return PageFilter.lt(field, literals.get(0));
      case "<=":
        return PageFilter.le(field, literals.get(0));
      case ">":
        return PageFilter.gt(field, literals.get(0));
      case ">=":
        return PageFilter.ge(field, literals.get(0));
      default:
        throw new IllegalStateException(op);
    }
  }

  @Override
  public String toString() {
    return toPageFilter().toString();
  }
}
