package dev.riffle.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;

/**
 * Writes Arrow values as JSON-friendly values: numbers for integers and floats (unsigned integers
 * as unsigned; an integer beyond ±2^53, which a double cannot hold and so most JSON readers round,
 * as its decimal string; NaN and infinities as the strings {@code "NaN"}, {@code "Infinity"},
 * {@code "-Infinity"}, since JSON has no such numbers), strings for utf8, base64 strings for
 * binary, arrays for lists, objects for structs, arrays of {@code {"key", "value"}} objects for
 * maps, ISO-8601 strings for dates, times, timestamps and durations, plain strings for decimals (a
 * JSON number would lose their precision in most parsers), and the dictionary value for a
 * dictionary-encoded field.
 */
final class ArrowJson {
  private ArrowJson() {}

  /** One value of a {@link #writerFor} writer as JSON text (a dictionary's values in info). */
  static String text(ValueWriter writer, int index) {
    StringWriter s = new StringWriter();
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(s)) {
      writer.write(g, index);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to a string", e);
    }
    return s.toString();
  }

  /** Writes the value at {@code index}, which is not null. */
  @FunctionalInterface
  interface ValueWriter {
    void write(JsonGenerator g, int index) throws IOException;
  }

  /**
   * A writer for the values of {@code vector}, nulls included.
   *
   * @param dictionaries where dictionary-encoded vectors find their values; may be null if there
   *     are none
   */
  static ValueWriter writerFor(ValueVector vector, DictionaryProvider dictionaries) {
    ValueWriter w = nonNull(vector, dictionaries);
    return (g, i) -> {
      if (vector.isNull(i)) {
        g.writeNull();
      } else {
        w.write(g, i);
      }
    };
  }

  private static ValueWriter nonNull(ValueVector v, DictionaryProvider dictionaries) {
    DictionaryEncoding encoding = v.getField().getDictionary();
    if (encoding != null) {
      return dictionary((BaseIntVector) v, encoding, dictionaries);
    }
    ArrowType type = v.getField().getType();
    if (v instanceof NullVector) {
      return (g, i) -> g.writeNull();
    }
    if (v instanceof UInt8Vector) {
      UInt8Vector u = (UInt8Vector) v;
      return (g, i) -> writeUnsigned64(g, u.get(i));
    }
    if (type instanceof ArrowType.Int) {
      BaseIntVector ints = (BaseIntVector) v;
      ArrowType.Int t = (ArrowType.Int) type;
      if (t.getIsSigned()) {
        return (g, i) -> writeLong(g, ints.getValueAsLong(i));
      }
      // Narrow unsigned vectors widen to long; the mask makes sure no sign bit leaks through.
      long mask = (1L << t.getBitWidth()) - 1;
      return (g, i) -> writeLong(g, ints.getValueAsLong(i) & mask);
    }
    if (v instanceof Float4Vector) {
      Float4Vector f = (Float4Vector) v;
      return (g, i) -> writeFloat(g, f.get(i));
    }
    if (v instanceof Float8Vector) {
      Float8Vector f = (Float8Vector) v;
      return (g, i) -> writeDouble(g, f.get(i));
    }
    if (v instanceof Float2Vector) {
      Float2Vector f = (Float2Vector) v;
      return (g, i) -> writeFloat(g, f.getValueAsFloat(i));
    }
    if (v instanceof BitVector) {
      BitVector b = (BitVector) v;
      return (g, i) -> g.writeBoolean(b.get(i) != 0);
    }
    if (v instanceof VarCharVector) {
      VarCharVector s = (VarCharVector) v;
      return (g, i) -> g.writeString(new String(s.get(i), StandardCharsets.UTF_8));
    }
    if (v instanceof LargeVarCharVector) {
      LargeVarCharVector s = (LargeVarCharVector) v;
      return (g, i) -> g.writeString(new String(s.get(i), StandardCharsets.UTF_8));
    }
    if (v instanceof VarBinaryVector) {
      VarBinaryVector b = (VarBinaryVector) v;
      return (g, i) -> g.writeBinary(b.get(i));
    }
    if (v instanceof LargeVarBinaryVector) {
      LargeVarBinaryVector b = (LargeVarBinaryVector) v;
      return (g, i) -> g.writeBinary(b.get(i));
    }
    if (v instanceof FixedSizeBinaryVector) {
      FixedSizeBinaryVector b = (FixedSizeBinaryVector) v;
      return (g, i) -> g.writeBinary(b.get(i));
    }
    if (v instanceof DecimalVector) {
      DecimalVector d = (DecimalVector) v;
      return (g, i) -> g.writeString(d.getObject(i).toPlainString());
    }
    if (v instanceof Decimal256Vector) {
      Decimal256Vector d = (Decimal256Vector) v;
      return (g, i) -> g.writeString(d.getObject(i).toPlainString());
    }
    ValueWriter temporal = temporal(v, type);
    if (temporal != null) {
      return temporal;
    }
    // MapVector is a ListVector, so it must be matched first.
    if (v instanceof MapVector) {
      return map((MapVector) v, dictionaries);
    }
    if (v instanceof ListVector) {
      ListVector l = (ListVector) v;
      ValueWriter item = writerFor(l.getDataVector(), dictionaries);
      return (g, i) -> array(g, item, l.getElementStartIndex(i), l.getElementEndIndex(i));
    }
    if (v instanceof LargeListVector) {
      LargeListVector l = (LargeListVector) v;
      ValueWriter item = writerFor(l.getDataVector(), dictionaries);
      return (g, i) ->
          array(g, item, (int) l.getElementStartIndex(i), (int) l.getElementEndIndex(i));
    }
    if (v instanceof FixedSizeListVector) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      ValueWriter item = writerFor(l.getDataVector(), dictionaries);
      int size = l.getListSize();
      return (g, i) -> array(g, item, i * size, i * size + size);
    }
    if (v instanceof StructVector) {
      return struct((StructVector) v, dictionaries);
    }
    // A type the format does not store today: say what Arrow says rather than fail.
    return (g, i) -> g.writeString(String.valueOf(v.getObject(i)));
  }

  private static ValueWriter dictionary(
      BaseIntVector indices, DictionaryEncoding encoding, DictionaryProvider dictionaries) {
    Dictionary d = dictionaries == null ? null : dictionaries.lookup(encoding.getId());
    if (d == null) {
      throw new IllegalStateException(
          "no dictionary "
              + encoding.getId()
              + " for field '"
              + indices.getField().getName()
              + "'");
    }
    ValueWriter values = writerFor(d.getVector(), dictionaries);
    // The reader has checked every index against the dictionary's size.
    return (g, i) -> values.write(g, (int) indices.getValueAsLong(i));
  }

  private static ValueWriter map(MapVector m, DictionaryProvider dictionaries) {
    StructVector entries = (StructVector) m.getDataVector();
    ValueWriter key = writerFor(entries.getChildByOrdinal(0), dictionaries);
    ValueWriter value = writerFor(entries.getChildByOrdinal(1), dictionaries);
    return (g, i) -> {
      g.writeStartArray();
      for (int e = m.getElementStartIndex(i); e < m.getElementEndIndex(i); e++) {
        g.writeStartObject();
        g.writeFieldName("key");
        key.write(g, e);
        g.writeFieldName("value");
        value.write(g, e);
        g.writeEndObject();
      }
      g.writeEndArray();
    };
  }

  private static ValueWriter struct(StructVector s, DictionaryProvider dictionaries) {
    List<FieldVector> children = s.getChildrenFromFields();
    String[] names = new String[children.size()];
    ValueWriter[] writers = new ValueWriter[children.size()];
    for (int c = 0; c < writers.length; c++) {
      names[c] = children.get(c).getName();
      writers[c] = writerFor(children.get(c), dictionaries);
    }
    return (g, i) -> {
      g.writeStartObject();
      for (int c = 0; c < writers.length; c++) {
        g.writeFieldName(names[c]);
        writers[c].write(g, i);
      }
      g.writeEndObject();
    };
  }

  private static void array(JsonGenerator g, ValueWriter item, int start, int end)
      throws IOException {
    g.writeStartArray();
    for (int e = start; e < end; e++) {
      item.write(g, e);
    }
    g.writeEndArray();
  }

  private static ValueWriter temporal(ValueVector v, ArrowType type) {
    if (v instanceof DateDayVector) {
      DateDayVector d = (DateDayVector) v;
      return (g, i) -> g.writeString(LocalDate.ofEpochDay(d.get(i)).toString());
    }
    if (v instanceof DateMilliVector) {
      DateMilliVector d = (DateMilliVector) v;
      return (g, i) -> writeDateMillis(g, d.get(i));
    }
    if (v instanceof TimeSecVector) {
      TimeSecVector t = (TimeSecVector) v;
      return (g, i) -> writeTimeOfDay(g, t.get(i), 1_000_000_000L);
    }
    if (v instanceof TimeMilliVector) {
      TimeMilliVector t = (TimeMilliVector) v;
      return (g, i) -> writeTimeOfDay(g, t.get(i), 1_000_000L);
    }
    if (v instanceof TimeMicroVector) {
      TimeMicroVector t = (TimeMicroVector) v;
      return (g, i) -> writeTimeOfDay(g, t.get(i), 1_000L);
    }
    if (v instanceof TimeNanoVector) {
      TimeNanoVector t = (TimeNanoVector) v;
      return (g, i) -> writeTimeOfDay(g, t.get(i), 1L);
    }
    if (v instanceof TimeStampVector) {
      TimeStampVector t = (TimeStampVector) v;
      ArrowType.Timestamp ts = (ArrowType.Timestamp) type;
      ZoneId zone = zoneOf(ts.getTimezone());
      return (g, i) -> writeTimestamp(g, t.get(i), ts, zone);
    }
    if (v instanceof DurationVector) {
      DurationVector d = (DurationVector) v;
      return (g, i) -> g.writeString(d.getObject(i).toString());
    }
    return null;
  }

  static ZoneId zoneOf(String timezone) {
    if (timezone == null) {
      return null;
    }
    try {
      return ZoneId.of(timezone);
    } catch (DateTimeException e) {
      // An unknown zone name still marks the values as instants; print them in UTC.
      return ZoneOffset.UTC;
    }
  }

  /** Values of a time unit in one second. */
  static long unitsPerSecond(org.apache.arrow.vector.types.TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return 1;
      case MILLISECOND:
        return 1_000;
      case MICROSECOND:
        return 1_000_000;
      default:
        return 1_000_000_000;
    }
  }

  static void writeTimestamp(JsonGenerator g, long raw, ArrowType.Timestamp type, ZoneId zone)
      throws IOException {
    long perSecond = unitsPerSecond(type.getUnit());
    try {
      Instant instant =
          Instant.ofEpochSecond(
              Math.floorDiv(raw, perSecond),
              Math.floorMod(raw, perSecond) * (1_000_000_000L / perSecond));
      // Without a time zone an Arrow timestamp is a wall-clock time, not an instant.
      g.writeString(
          zone == null
              ? DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
                  LocalDateTime.ofInstant(instant, ZoneOffset.UTC))
              : DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(instant.atZone(zone)));
    } catch (DateTimeException | ArithmeticException e) {
      // Beyond java.time's range: the raw count is still the value.
      g.writeNumber(raw);
    }
  }

  static void writeDateMillis(JsonGenerator g, long millis) throws IOException {
    try {
      LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
      // date64 values are meant to be whole days; print a time only if there is one.
      g.writeString(
          t.toLocalTime().equals(LocalTime.MIDNIGHT)
              ? t.toLocalDate().toString()
              : DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t));
    } catch (DateTimeException e) {
      g.writeNumber(millis);
    }
  }

  static void writeTimeOfDay(JsonGenerator g, long value, long nanosPerUnit) throws IOException {
    try {
      g.writeString(
          DateTimeFormatter.ISO_LOCAL_TIME.format(
              LocalTime.ofNanoOfDay(Math.multiplyExact(value, nanosPerUnit))));
    } catch (DateTimeException | ArithmeticException e) {
      g.writeNumber(value);
    }
  }

  /** Integers a double holds exactly, |v| ≤ 2^53: beyond, most JSON readers round a number. */
  static final long EXACT_IN_DOUBLE = 1L << 53;

  static void writeUnsigned64(JsonGenerator g, long raw) throws IOException {
    if (raw >= 0 && raw <= EXACT_IN_DOUBLE) {
      g.writeNumber(raw);
    } else {
      g.writeString(Long.toUnsignedString(raw));
    }
  }

  static void writeLong(JsonGenerator g, long v) throws IOException {
    if (v >= -EXACT_IN_DOUBLE && v <= EXACT_IN_DOUBLE) {
      g.writeNumber(v);
    } else {
      g.writeString(Long.toString(v));
    }
  }

  static void writeFloat(JsonGenerator g, float f) throws IOException {
    if (Float.isFinite(f)) {
      // Written as a float, so that 0.1f prints as 0.1 and not as its double expansion.
      g.writeNumber(f);
    } else {
      g.writeString(Float.toString(f));
    }
  }

  static void writeDouble(JsonGenerator g, double d) throws IOException {
    if (Double.isFinite(d)) {
      g.writeNumber(d);
    } else {
      g.writeString(Double.toString(d));
    }
  }
}
