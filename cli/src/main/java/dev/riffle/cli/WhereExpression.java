package dev.riffle.cli;

import dev.riffle.format.read.PageFilter;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeNames;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The filter language of {@code --where}, parsed into a {@link PageFilter} against a schema:
 *
 * <pre>
 *   expr      := term ("or" term)*
 *   term      := factor ("and" factor)*
 *   factor    := "(" expr ")" | predicate
 *   predicate := column op value | column "in" "(" value ("," value)* ")"
 *              | column "between" value "and" value | column "is" ["not"] "null"
 *   op        := "=" | "==" | "!=" | "&lt;&gt;" | "&lt;" | "&lt;=" | "&gt;" | "&gt;="
 * </pre>
 *
 * Keywords in any case; a column is a name or a name in backquotes; a value is a number, a string
 * in single or double quotes (a doubled quote stands for itself), {@code true}, {@code false},
 * {@code NaN}, {@code Infinity} or {@code -Infinity}. Values take the column's type: a number for a
 * float column is rounded to its precision (so {@code x = 0.1} finds the float32 0.1 that {@code
 * scan} prints); dates and timestamps take ISO strings ({@code '2024-05-01'}, {@code
 * '2024-05-01T12:00:00Z'}; a timestamp without an offset is in the column's zone, else UTC), times
 * as {@code '12:30:00.5'}, or a number in the stored unit; a categorical column compares its
 * values.
 */
final class WhereExpression {
  private final String text;
  private final RiffleSchema schema;
  private final String resource;
  private final List<String> tokens = new ArrayList<>();
  private final List<Integer> positions = new ArrayList<>();
  private int next;
  private int depth;

  /** The deepest nesting of parentheses a filter may have. */
  static final int MAX_DEPTH = 64;

  private WhereExpression(String text, RiffleSchema schema, String resource) {
    this.text = text;
    this.schema = schema;
    this.resource = resource;
  }

  /**
   * The filter {@code text} says, for rows of {@code schema} (of {@code resource}, named in
   * errors).
   *
   * @throws IllegalArgumentException naming the position, the column or the value that is wrong
   */
  static PageFilter parse(String text, RiffleSchema schema, String resource) {
    WhereExpression p = new WhereExpression(text, schema, resource);
    p.tokenize();
    if (p.tokens.isEmpty()) {
      throw new IllegalArgumentException("--where: empty filter");
    }
    PageFilter f = p.or();
    if (p.next < p.tokens.size()) {
      throw p.error("unexpected '" + p.tokens.get(p.next) + "'");
    }
    return f;
  }

  private PageFilter or() {
    List<PageFilter> parts = new ArrayList<>(List.of(and()));
    while (keyword("or")) {
      parts.add(and());
    }
    return parts.size() == 1 ? parts.get(0) : PageFilter.or(parts.toArray(new PageFilter[0]));
  }

  private PageFilter and() {
    List<PageFilter> parts = new ArrayList<>(List.of(factor()));
    while (keyword("and")) {
      parts.add(factor());
    }
    return parts.size() == 1 ? parts.get(0) : PageFilter.and(parts.toArray(new PageFilter[0]));
  }

  private PageFilter factor() {
    if (symbol("(")) {
      // Each level is a few frames of this parser: bounded, so that no filter overflows the stack.
      if (++depth > MAX_DEPTH) {
        next--;
        throw error("parentheses nested deeper than " + MAX_DEPTH);
      }
      PageFilter f = or();
      expect(")");
      depth--;
      return f;
    }
    if (peekKeyword("not")) {
      throw error("'not' is not supported; write the complement (!=, is not null, or ranges)");
    }
    String column = column();
    if (keyword("is")) {
      boolean not = keyword("not");
      if (!keyword("null")) {
        throw error("expected 'null' after 'is" + (not ? " not" : "") + "'");
      }
      return not ? PageFilter.isNotNull(column) : PageFilter.isNull(column);
    }
    if (keyword("in")) {
      expect("(");
      List<Object> values = new ArrayList<>(List.of(value(column)));
      while (symbol(",")) {
        values.add(value(column));
      }
      expect(")");
      return PageFilter.in(column, values);
    }
    if (keyword("between")) {
      Object lo = value(column);
      if (!keyword("and")) {
        throw error("expected 'and' in 'between … and …'");
      }
      Object hi = value(column);
      return PageFilter.and(PageFilter.ge(column, lo), PageFilter.le(column, hi));
    }
    String op = next("a comparison (=, !=, <, <=, >, >=, in, between, is null)");
    Object v = value(column);
    switch (op) {
      case "=":
      case "==":
        return PageFilter.eq(column, v);
      case "!=":
      case "<>":
        return PageFilter.notEq(column, v);
      case "<":
        return PageFilter.lt(column, v);
      case "<=":
        return PageFilter.le(column, v);
      case ">":
        return PageFilter.gt(column, v);
      case ">=":
        return PageFilter.ge(column, v);
      default:
        next--;
        throw error(
            "expected a comparison (=, !=, <, <=, >, >=, in, between, is null), not '" + op + "'");
    }
  }

  private String column() {
    String t = next("a column name");
    String name = t.startsWith("`") ? t.substring(1, t.length() - 1) : t;
    if (!t.startsWith("`") && !Character.isLetter(t.charAt(0)) && t.charAt(0) != '_') {
      next--;
      throw error("expected a column name, not '" + t + "'");
    }
    if (schema.fieldIndex(name) < 0) {
      List<String> all = new ArrayList<>();
      schema.fields().forEach(f -> all.add(f.getName()));
      next--;
      throw error("no column '" + name + "' in " + resource + "; columns are " + all);
    }
    return name;
  }

  /** The next token as a literal of {@code column}'s type (its dictionary's values, if any). */
  private Object value(String column) {
    int at = next;
    String t = next("a value");
    int f = schema.fieldIndex(column);
    Field field = schema.isDictionary(f) ? schema.dictionaryValues(f) : schema.fields().get(f);
    ArrowType type = field.getType();
    boolean quoted = t.startsWith("'") || t.startsWith("\"");
    String s = quoted ? unquote(t) : t;
    try {
      switch (type.getTypeID()) {
        case Utf8:
        case LargeUtf8:
        case Binary:
        case LargeBinary:
        case FixedSizeBinary:
          if (!quoted) {
            throw new IllegalArgumentException("a string in quotes");
          }
          return s;
        case Bool:
          if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(s.toLowerCase(Locale.ROOT));
          }
          throw new IllegalArgumentException("true or false");
        case FloatingPoint:
          double d = parseDouble(s);
          return ((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.SINGLE
              ? (Object) (float) d
              : (Object) d;
        case Date:
          if (quoted) {
            long day = LocalDate.parse(s).toEpochDay();
            return ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY
                ? (Object) day
                : (Object) (day * 86_400_000L);
          }
          return number(s);
        case Timestamp:
          if (quoted) {
            return timestamp(s, (ArrowType.Timestamp) type);
          }
          return number(s);
        case Duration:
          if (quoted) {
            // As scan prints a duration (PT1M30S), in the column's unit; exact below it.
            java.time.Duration given = java.time.Duration.parse(s);
            BigDecimal nanos =
                BigDecimal.valueOf(given.getSeconds())
                    .multiply(BigDecimal.valueOf(1_000_000_000L))
                    .add(BigDecimal.valueOf(given.getNano()));
            long perUnit =
                DurationVector.toDuration(1, ((ArrowType.Duration) type).getUnit()).toNanos();
            return number(
                nanos.divide(BigDecimal.valueOf(perUnit)).stripTrailingZeros().toPlainString());
          }
          return number(s);
        case Time:
          if (quoted) {
            long nanos = java.time.LocalTime.parse(s).toNanoOfDay();
            int digits;
            switch (((ArrowType.Time) type).getUnit()) {
              case SECOND:
                digits = 9;
                break;
              case MILLISECOND:
                digits = 6;
                break;
              case MICROSECOND:
                digits = 3;
                break;
              default:
                digits = 0;
            }
            // A fraction of the unit stays exact (a comparison with it is still exact).
            return number(
                new BigDecimal(nanos).movePointLeft(digits).stripTrailingZeros().toPlainString());
          }
          return number(s);
        default:
          return number(s);
      }
    } catch (IllegalArgumentException | DateTimeParseException | ArithmeticException e) {
      next = at;
      String want =
          e instanceof DateTimeParseException
              ? iso(type)
              : e.getMessage() != null && !(e instanceof NumberFormatException)
                  ? e.getMessage()
                  : "a number";
      throw error(
          "column '" + column + "' (" + TypeNames.of(type) + ") takes " + want + ", not " + t);
    }
  }

  private static double parseDouble(String s) {
    switch (s.toLowerCase(Locale.ROOT)) {
      case "nan":
        return Double.NaN;
      case "infinity":
      case "+infinity":
        return Double.POSITIVE_INFINITY;
      case "-infinity":
        return Double.NEGATIVE_INFINITY;
      default:
        return Double.parseDouble(requireNumber(s));
    }
  }

  /** An exact number: a long where it is one, else a decimal. */
  private static Object number(String s) {
    BigDecimal d = new BigDecimal(requireNumber(s));
    try {
      return d.longValueExact();
    } catch (ArithmeticException notALong) {
      return d;
    }
  }

  private static String requireNumber(String s) {
    if (!s.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?")) {
      throw new NumberFormatException(s);
    }
    return s;
  }

  /** What a quoted literal of a date, time or timestamp column must look like. */
  private static String iso(ArrowType type) {
    switch (type.getTypeID()) {
      case Date:
        return "an ISO date ('2024-05-01')";
      case Time:
        return "an ISO time of day ('13:45:00.5')";
      case Duration:
        return "an ISO duration ('PT1M30.5S')";
      default:
        return "an ISO date or timestamp ('2024-05-01', '2024-05-01T13:45:00.5Z')";
    }
  }

  /**
   * A timestamp literal in the column's unit: a long, or where the literal has digits below the
   * unit (.1234567 for microseconds), the exact decimal, so that comparisons with it stay exact as
   * for a time of day ({@code ts < '…:20.1234565'} keeps a value of {@code …:20.123456}).
   */
  private static Object timestamp(String s, ArrowType.Timestamp type) {
    String iso =
        s.length() > 10 && s.charAt(10) == ' ' ? s.substring(0, 10) + "T" + s.substring(11) : s;
    Instant instant;
    if (iso.length() == 10) {
      iso = iso + "T00:00:00";
    }
    try {
      instant = OffsetDateTime.parse(iso).toInstant();
    } catch (DateTimeParseException noOffset) {
      ZoneId zone = type.getTimezone() == null ? ZoneOffset.UTC : ZoneId.of(type.getTimezone());
      instant = LocalDateTime.parse(iso).atZone(zone).toInstant();
    }
    long perSecond = ArrowJson.unitsPerSecond(type.getUnit());
    long nanosPerUnit = 1_000_000_000L / perSecond;
    long whole =
        Math.addExact(
            Math.multiplyExact(instant.getEpochSecond(), perSecond),
            instant.getNano() / nanosPerUnit);
    long below = instant.getNano() % nanosPerUnit;
    if (below == 0) {
      return whole;
    }
    return BigDecimal.valueOf(whole)
        .add(BigDecimal.valueOf(below, 9).multiply(BigDecimal.valueOf(perSecond)))
        .stripTrailingZeros();
  }

  private static String unquote(String t) {
    char q = t.charAt(0);
    return t.substring(1, t.length() - 1).replace("" + q + q, "" + q);
  }

  // --- tokens

  private void tokenize() {
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      int start = i;
      if (c == '\'' || c == '"' || c == '`') {
        i++;
        while (true) {
          if (i >= n) {
            throw new IllegalArgumentException(
                "--where: unterminated "
                    + c
                    + " starting at position "
                    + (start + 1)
                    + ": "
                    + text);
          }
          if (text.charAt(i) == c) {
            if (c != '`' && i + 1 < n && text.charAt(i + 1) == c) {
              i += 2;
              continue;
            }
            i++;
            break;
          }
          i++;
        }
      } else if ("(),".indexOf(c) >= 0) {
        i++;
      } else if ("=!<>".indexOf(c) >= 0) {
        i++;
        if (i < n && "=>".indexOf(text.charAt(i)) >= 0 && !(c == '>' && text.charAt(i) == '>')) {
          i++;
        }
      } else {
        while (i < n
            && !Character.isWhitespace(text.charAt(i))
            && "(),=!<>'\"`".indexOf(text.charAt(i)) < 0) {
          i++;
        }
      }
      tokens.add(text.substring(start, i));
      positions.add(start);
    }
  }

  private String next(String what) {
    if (next >= tokens.size()) {
      throw new IllegalArgumentException("--where: expected " + what + " at the end of: " + text);
    }
    return tokens.get(next++);
  }

  private boolean keyword(String k) {
    if (peekKeyword(k)) {
      next++;
      return true;
    }
    return false;
  }

  private boolean peekKeyword(String k) {
    return next < tokens.size() && tokens.get(next).equalsIgnoreCase(k);
  }

  private boolean symbol(String s) {
    if (next < tokens.size() && tokens.get(next).equals(s)) {
      next++;
      return true;
    }
    return false;
  }

  private void expect(String s) {
    if (!symbol(s)) {
      throw error("expected '" + s + "'");
    }
  }

  private IllegalArgumentException error(String message) {
    int at = next < positions.size() ? positions.get(next) : text.length();
    // A long filter is shown around the position, so that the error stays one readable line.
    int from = text.length() <= 200 ? 0 : Math.max(0, at - 80);
    int to = text.length() <= 200 ? text.length() : Math.min(text.length(), at + 80);
    return new IllegalArgumentException(
        "--where: "
            + message
            + " at position "
            + (at + 1)
            + " of: "
            + (from > 0 ? "..." : "")
            + text.substring(from, to)
            + (to < text.length() ? "..." : ""));
  }
}
