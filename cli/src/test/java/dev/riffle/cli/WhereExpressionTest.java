package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.read.PageFilter;
import dev.riffle.format.schema.RiffleSchema;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** Literals of {@code --where} take their column's type; the filter prints as parsed. */
class WhereExpressionTest {
  static Field f(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  static final RiffleSchema SCHEMA =
      RiffleSchema.forWriting(
          new Schema(
              List.of(
                  f("day", new ArrowType.Date(DateUnit.DAY)),
                  f("ms", new ArrowType.Date(DateUnit.MILLISECOND)),
                  f("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
                  f("tsz", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "Europe/Paris")),
                  f("tm", new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
                  f("dur", new ArrowType.Duration(TimeUnit.MILLISECOND)),
                  f("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                  f("n", new ArrowType.Int(32, true)),
                  f("s", ArrowType.Utf8.INSTANCE),
                  f("b", ArrowType.Bool.INSTANCE))),
          Map.of(),
          List.of());

  static String parse(String text) {
    return WhereExpression.parse(text, SCHEMA, "t").toString();
  }

  @Test
  void literalsTakeTheirColumnsType() {
    assertThat(parse("day = '1970-01-11'")).isEqualTo("day = 10");
    assertThat(parse("ms >= '1970-01-02'")).isEqualTo("ms >= 86400000");
    assertThat(parse("ts < '1970-01-01T00:00:01.5Z'")).isEqualTo("ts < 1500000");
    // Digits below the column's unit stay exact, as for a time of day: a microsecond column's
    // 1.0000015 s is not 1.000001 s (which it was, so that "<" dropped a value below it).
    assertThat(parse("ts < '1970-01-01T00:00:01.0000015Z'")).isEqualTo("ts < 1000001.5");
    assertThat(parse("ts = '1969-12-31T23:59:59.9999997Z'")).isEqualTo("ts = -0.3");
    // Without an offset, a timestamp is in its column's zone (Paris is UTC+1 in January).
    assertThat(parse("tsz = '1970-01-01 01:00:00'")).isEqualTo("tsz = 0");
    assertThat(parse("tm between '00:00:01' and '00:00:02.250'"))
        .isEqualTo("(tm >= 1000 and tm <= 2250)");
    // A duration as scan prints it; below the unit, exact.
    assertThat(parse("dur >= 'PT1M30.5S'")).isEqualTo("dur >= 90500");
    assertThat(parse("dur < 'PT0.0005S' or dur = 7")).isEqualTo("(dur < 0.5 or dur = 7)");
    assertThatThrownBy(() -> parse("dur = '90s'"))
        .hasMessageContaining("column 'dur' (duration[ms]) takes an ISO duration ('PT1M30.5S')");
    // A float32 column's literal is the float32 nearest to it, as scan prints its values.
    assertThat(parse("x = 0.1")).isEqualTo("x = " + 0.1f);
    assertThat(parse("x > NaN or x < -Infinity")).isEqualTo("(x > NaN or x < -Infinity)");
    assertThat(parse("n > 500.5 and n in (1, 2)")).isEqualTo("(n > 500.5 and n in (1, 2))");
    assertThat(parse("s = 'it''s' or `s` <> \"a\"")).isEqualTo("(s = it's or s != a)");
    assertThat(parse("b = TRUE AND s IS NOT NULL")).isEqualTo("(b = true and s is not null)");
    assertThat(parse("(n = 1 or n = 2) and (s is null)"))
        .isEqualTo("((n = 1 or n = 2) and s is null)");
  }

  @Test
  void aWrongLiteralNamesTheColumnAndThePosition() {
    assertThatThrownBy(() -> parse("day = 'May 1st'"))
        .hasMessageContaining("column 'day'")
        .hasMessageContaining(
            "(date32) takes an ISO date ('2024-05-01'), not 'May 1st' at position 7");
    // A date column takes a date, and says so (it said "an ISO date or timestamp").
    assertThatThrownBy(() -> parse("day = '2024-05-01T00:00:00'"))
        .hasMessageContaining("takes an ISO date ('2024-05-01'), not '2024-05-01T00:00:00'");
    assertThatThrownBy(() -> parse("ts = 'noon'"))
        .hasMessageContaining("column 'ts' (timestamp[us]) takes an ISO date or timestamp");
    assertThatThrownBy(() -> parse("n = 'one'"))
        .hasMessageContaining("column 'n' (int32) takes a number, not 'one'");
    assertThatThrownBy(() -> parse("b = 1")).hasMessageContaining("takes true or false");
    assertThatThrownBy(() -> parse("s = abc")).hasMessageContaining("takes a string in quotes");
  }

  /** Deep nesting is refused in one line; it overflowed the stack and printed a trace. */
  @Test
  void parenthesesNestDeepAsFarAsABound() {
    String ok =
        "(".repeat(WhereExpression.MAX_DEPTH) + "n = 1" + ")".repeat(WhereExpression.MAX_DEPTH);
    assertThat(parse(ok)).isEqualTo("n = 1");
    String deep = "(".repeat(20_000) + "n = 1" + ")".repeat(20_000);
    assertThatThrownBy(() -> parse(deep))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--where: parentheses nested deeper than 64 at position 65 of: (((")
        .hasMessageEndingWith("(((...")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
  }

  @Test
  void theResultIsAPageFilter() {
    PageFilter f = WhereExpression.parse("n = 1 and s = 'a' or b = false", SCHEMA, "t");
    assertThat(f.fields()).containsExactly("n", "s", "b");
  }
}
