package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionMapWriter;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** Arrow values of the types the generators do not produce, as JSON. */
class ArrowJsonTest {
  private static String json(FieldVector v, DictionaryProvider dictionaries) throws Exception {
    StringWriter out = new StringWriter();
    List<FieldVector> vectors = new ArrayList<>(List.of(v));
    VectorSchemaRoot root = new VectorSchemaRoot(vectors);
    JsonLines lines = new JsonLines(new PrintWriter(out));
    lines.write(root, dictionaries, 0, v.getValueCount());
    assertThat(lines.flushAndCheckClosed()).isFalse();
    return out.toString();
  }

  @Test
  void scalarsTemporalsAndDecimals() throws Exception {
    try (BufferAllocator a = new RootAllocator()) {
      try (UInt8Vector v = new UInt8Vector("u", a)) {
        v.allocateNew(3);
        v.set(0, -1L);
        v.set(1, 5L);
        v.setNull(2);
        v.setValueCount(3);
        assertThat(json(v, null))
            // Beyond 2^53 a decimal string: a double (jq, JavaScript) would round it.
            .isEqualTo("{\"u\":\"18446744073709551615\"}\n{\"u\":5}\n{\"u\":null}\n");
      }
      try (UInt1Vector v = new UInt1Vector("u", a)) {
        v.allocateNew(1);
        v.set(0, (byte) -1);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"u\":255}\n");
      }
      try (UInt4Vector v = new UInt4Vector("u", a)) {
        v.allocateNew(1);
        v.set(0, -1);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"u\":4294967295}\n");
      }
      try (Float4Vector v = new Float4Vector("f", a)) {
        v.allocateNew(3);
        v.set(0, 0.1f);
        v.set(1, Float.NaN);
        v.set(2, Float.NEGATIVE_INFINITY);
        v.setValueCount(3);
        assertThat(json(v, null))
            .isEqualTo("{\"f\":0.1}\n{\"f\":\"NaN\"}\n{\"f\":\"-Infinity\"}\n");
      }
      try (Float8Vector v = new Float8Vector("d", a)) {
        v.allocateNew(1);
        v.set(0, Double.POSITIVE_INFINITY);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"d\":\"Infinity\"}\n");
      }
      try (BitVector v = new BitVector("b", a)) {
        v.allocateNew(1);
        v.set(0, 1);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"b\":true}\n");
      }
      try (VarBinaryVector v = new VarBinaryVector("bin", a)) {
        v.allocateNew(1);
        v.set(0, new byte[] {1, 2, 3, (byte) 255});
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"bin\":\"AQID/w==\"}\n");
      }
      try (DateDayVector v = new DateDayVector("d", a)) {
        v.allocateNew(1);
        v.set(0, 19_000);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"d\":\"2022-01-08\"}\n");
      }
      try (TimeMilliVector v = new TimeMilliVector("t", a)) {
        v.allocateNew(1);
        v.set(0, 3_723_004);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"t\":\"01:02:03.004\"}\n");
      }
      try (TimeStampMilliVector v = new TimeStampMilliVector("ts", a)) {
        v.allocateNew(1);
        v.set(0, 1_700_000_000_123L);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"ts\":\"2023-11-14T22:13:20.123\"}\n");
      }
      FieldType tz =
          FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Europe/Paris"));
      try (TimeStampMicroTZVector v = new TimeStampMicroTZVector("ts", tz, a)) {
        v.allocateNew(1);
        v.set(0, 1_700_000_000_000_000L);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"ts\":\"2023-11-14T23:13:20+01:00\"}\n");
      }
      FieldType seconds = FieldType.nullable(new ArrowType.Duration(TimeUnit.SECOND));
      try (DurationVector v = new DurationVector("dur", seconds, a)) {
        v.allocateNew(1);
        v.set(0, 90L);
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"dur\":\"PT1M30S\"}\n");
      }
      try (DecimalVector v = new DecimalVector("dec", a, 20, 4)) {
        v.allocateNew(1);
        v.set(0, new BigDecimal("12345678901234.5678"));
        v.setValueCount(1);
        assertThat(json(v, null)).isEqualTo("{\"dec\":\"12345678901234.5678\"}\n");
      }
    }
  }

  @Test
  void structsMapsAndDictionaries() throws Exception {
    try (BufferAllocator a = new RootAllocator()) {
      try (StructVector s = StructVector.empty("s", a)) {
        VarCharVector name =
            s.addOrGet("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), VarCharVector.class);
        Float8Vector x =
            s.addOrGet(
                "x",
                FieldType.nullable(
                    new ArrowType.FloatingPoint(
                        org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)),
                Float8Vector.class);
        s.allocateNew();
        name.setSafe(0, "é".getBytes(StandardCharsets.UTF_8));
        x.setNull(0);
        s.setIndexDefined(0);
        s.setNull(1);
        name.setValueCount(2);
        x.setValueCount(2);
        s.setValueCount(2);
        assertThat(json(s, null)).isEqualTo("{\"s\":{\"name\":\"é\",\"x\":null}}\n{\"s\":null}\n");
      }
      try (MapVector m = MapVector.empty("m", a, false)) {
        UnionMapWriter w = m.getWriter();
        w.setPosition(0);
        w.startMap();
        w.startEntry();
        w.key().integer().writeInt(1);
        w.value().bigInt().writeBigInt(10L);
        w.endEntry();
        w.startEntry();
        w.key().integer().writeInt(2);
        w.value().bigInt().writeBigInt(20L);
        w.endEntry();
        w.endMap();
        w.setValueCount(1);
        assertThat(json(m, null))
            .isEqualTo("{\"m\":[{\"key\":1,\"value\":10},{\"key\":2,\"value\":20}]}\n");
      }
      DictionaryEncoding encoding = new DictionaryEncoding(7, false, new ArrowType.Int(16, true));
      try (VarCharVector values = new VarCharVector("v", a);
          SmallIntVector indices =
              new SmallIntVector(
                  "c", new FieldType(true, new ArrowType.Int(16, true), encoding), a)) {
        values.allocateNew(2);
        values.set(0, "red".getBytes(StandardCharsets.UTF_8));
        values.set(1, "blue".getBytes(StandardCharsets.UTF_8));
        values.setValueCount(2);
        indices.allocateNew(3);
        indices.set(0, 1);
        indices.setNull(1);
        indices.set(2, 0);
        indices.setValueCount(3);
        DictionaryProvider.MapDictionaryProvider provider =
            new DictionaryProvider.MapDictionaryProvider();
        provider.put(new Dictionary(values, encoding));
        assertThat(json(indices, provider))
            .isEqualTo("{\"c\":\"blue\"}\n{\"c\":null}\n{\"c\":\"red\"}\n");
      }
    }
  }
}
