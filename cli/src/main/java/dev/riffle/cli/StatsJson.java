package dev.riffle.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.riffle.format.read.PageStats;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.BitSet;
import java.util.HexFormat;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A field's statistics in {@code inspect --json}: its min and max written as {@code scan} writes a
 * value of the field's type ({@link ArrowJson}: ISO dates, times, timestamps and durations,
 * decimals as strings, integers beyond ±2^53 as decimal strings), so that a bound can be compared
 * with the rows it bounds; binary bounds in hex.
 */
final class StatsJson {
  private StatsJson() {}

  /** The statistics of a field of {@code type} (the index type for a dictionary field). */
  static ObjectNode of(PageStats s, ArrowType type) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("rows", s.rowCount());
    n.put("nullCount", s.nullCount());
    if (s.hasMinMax()) {
      n.putRawValue("min", new RawValue(bound(type, s.min())));
      n.putRawValue("max", new RawValue(bound(type, s.max())));
      if (s.minIsPrefix()) {
        n.put("minIsPrefix", true);
      }
      if (s.maxIsPrefix()) {
        n.put("maxIsPrefix", true);
      }
    }
    if (s.hasNaN()) {
      n.put("hasNaN", true);
    }
    BitSet codes = s.codes();
    if (codes != null) {
      n.put("codesPresent", codes.cardinality());
    }
    return n;
  }

  /** A bound (PageStats documents its Java types) as JSON text. */
  static String bound(ArrowType type, Object v) {
    StringWriter s = new StringWriter();
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(s)) {
      if (v instanceof Long l) {
        integer(g, type, l);
      } else if (v instanceof BigInteger b) {
        ArrowJson.writeUnsigned64(g, b.longValue());
      } else if (v instanceof BigDecimal b) {
        g.writeString(b.toPlainString());
      } else if (v instanceof Float f) {
        ArrowJson.writeFloat(g, f);
      } else if (v instanceof Double d) {
        ArrowJson.writeDouble(g, d);
      } else if (v instanceof Boolean b) {
        g.writeBoolean(b);
      } else if (v instanceof Integer i) {
        g.writeNumber(i);
      } else if (v instanceof byte[] b) {
        g.writeString("0x" + HexFormat.of().formatHex(b));
      } else {
        g.writeString(String.valueOf(v));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing to a string", e);
    }
    return s.toString();
  }

  /** An integer bound: a date, time, timestamp or duration in its stored unit, or a number. */
  private static void integer(JsonGenerator g, ArrowType type, long v) throws IOException {
    if (type instanceof ArrowType.Date date) {
      if (date.getUnit() == DateUnit.DAY) {
        g.writeString(LocalDate.ofEpochDay(v).toString());
      } else {
        ArrowJson.writeDateMillis(g, v);
      }
    } else if (type instanceof ArrowType.Time time) {
      ArrowJson.writeTimeOfDay(g, v, nanosPer(time.getUnit()));
    } else if (type instanceof ArrowType.Timestamp ts) {
      ArrowJson.writeTimestamp(g, v, ts, ArrowJson.zoneOf(ts.getTimezone()));
    } else if (type instanceof ArrowType.Duration d) {
      g.writeString(DurationVector.toDuration(v, d.getUnit()).toString());
    } else {
      ArrowJson.writeLong(g, v);
    }
  }

  private static long nanosPer(org.apache.arrow.vector.types.TimeUnit unit) {
    return 1_000_000_000L / ArrowJson.unitsPerSecond(unit);
  }
}
