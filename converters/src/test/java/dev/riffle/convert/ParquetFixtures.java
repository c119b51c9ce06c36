package dev.riffle.convert;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Parquet files written by parquet-mr itself (its example Group writer), with the values each row
 * must read back as, in the form of {@link ArrowValues}.
 */
final class ParquetFixtures {
  private ParquetFixtures() {}

  static final MessageType ALL_TYPES =
      MessageTypeParser.parseMessageType(
          "message all {\n"
              + "  optional boolean bool;\n"
              + "  optional int32 i8 (INTEGER(8,true));\n"
              + "  optional int32 u8 (INTEGER(8,false));\n"
              + "  optional int32 i16 (INTEGER(16,true));\n"
              + "  optional int32 u16 (INTEGER(16,false));\n"
              + "  optional int32 i32;\n"
              + "  optional int32 u32 (INTEGER(32,false));\n"
              + "  optional int64 i64;\n"
              + "  optional int64 u64 (INTEGER(64,false));\n"
              + "  optional float f32;\n"
              + "  optional double f64;\n"
              + "  optional int32 date (DATE);\n"
              + "  optional int32 time_ms (TIME(MILLIS,true));\n"
              + "  optional int64 time_us (TIME(MICROS,false));\n"
              + "  optional int64 time_ns (TIME(NANOS,true));\n"
              + "  optional int64 ts_ms (TIMESTAMP(MILLIS,true));\n"
              + "  optional int64 ts_us (TIMESTAMP(MICROS,false));\n"
              + "  optional int64 ts_ns (TIMESTAMP(NANOS,true));\n"
              + "  optional int96 ts96;\n"
              + "  optional int32 dec9 (DECIMAL(9,2));\n"
              + "  optional int64 dec18 (DECIMAL(18,4));\n"
              + "  optional fixed_len_byte_array(13) dec30 (DECIMAL(30,5));\n"
              + "  optional binary dec20 (DECIMAL(20,3));\n"
              + "  optional fixed_len_byte_array(21) dec50 (DECIMAL(50,10));\n"
              + "  optional binary str (STRING);\n"
              + "  optional binary enm (ENUM);\n"
              + "  optional binary jsn (JSON);\n"
              + "  optional binary bsn (BSON);\n"
              + "  optional binary bin;\n"
              + "  optional fixed_len_byte_array(16) uid (UUID);\n"
              + "  optional fixed_len_byte_array(5) fix;\n"
              + "  optional fixed_len_byte_array(2) f16 (FLOAT16);\n"
              + "  optional fixed_len_byte_array(12) ivl (INTERVAL);\n"
              + "  required int32 req;\n"
              + "}");

  static final MessageType NESTED =
      MessageTypeParser.parseMessageType(
          "message nested {\n"
              + "  required int32 id;\n"
              + "  optional group lst (LIST) { repeated group list { optional int32 element; } }\n"
              + "  optional group lstlst (LIST) { repeated group list {\n"
              + "    optional group element (LIST) { repeated group list { required binary element (STRING); } } } }\n"
              + "  optional group st { required int64 a; optional binary b (STRING);\n"
              + "    optional group inner (LIST) { repeated group list { optional double element; } } }\n"
              + "  optional group mp (MAP) { repeated group key_value {\n"
              + "    required binary key (STRING); optional int32 value; } }\n"
              + "  optional group legacy (LIST) { repeated int32 array; }\n"
              + "  repeated int64 rep;\n"
              + "  optional group lst_st (LIST) { repeated group list {\n"
              + "    optional group element { optional int32 x; optional binary y (STRING); } } }\n"
              + "}");

  /** Writes {@code rows} rows of every type; returns what each row must read back as. */
  static List<List<Object>> writeAllTypes(
      Path file, int rows, long seed, CompressionCodecName codec, int rowGroupBytes)
      throws IOException {
    return writeAllTypes(file, rows, seed, codec, rowGroupBytes, java.util.Set.of());
  }

  /** {@link #writeAllTypes} without the columns named in {@code omit}. */
  static List<List<Object>> writeAllTypes(
      Path file,
      int rows,
      long seed,
      CompressionCodecName codec,
      int rowGroupBytes,
      java.util.Set<String> omit)
      throws IOException {
    MessageType schema =
        new MessageType(
            ALL_TYPES.getName(),
            ALL_TYPES.getFields().stream().filter(f -> !omit.contains(f.getName())).toList());
    Random r = new Random(seed);
    List<List<Object>> expected = new ArrayList<>();
    try (ParquetWriter<Group> w = writer(file, schema, codec, rowGroupBytes)) {
      for (int row = 0; row < rows; row++) {
        SimpleGroup g = new SimpleGroup(schema);
        List<Object> values = new ArrayList<>();
        for (Type t : schema.getFields()) {
          boolean isNull = t.isRepetition(Type.Repetition.OPTIONAL) && r.nextInt(7) == 0;
          Object[] v = isNull ? new Object[] {null, null} : value(t.getName(), r, row);
          values.add(v[0]);
          if (v[1] != null) {
            add(g, t.asPrimitiveType(), v[1]);
          }
        }
        w.write(g);
        expected.add(values);
      }
    }
    return expected;
  }

  static ParquetWriter<Group> writer(
      Path file, MessageType schema, CompressionCodecName codec, int rowGroupBytes)
      throws IOException {
    return ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withType(schema)
        .withConf(new PlainParquetConfiguration())
        .withCompressionCodec(codec)
        .withRowGroupSize(rowGroupBytes)
        .withPageRowCountLimit(500)
        .withDictionaryEncoding(true)
        .build();
  }

  private static void add(Group g, PrimitiveType t, Object v) {
    String n = t.getName();
    switch (t.getPrimitiveTypeName()) {
      case BOOLEAN:
        g.add(n, (Boolean) v);
        break;
      case INT32:
        g.add(n, ((Number) v).intValue());
        break;
      case INT64:
        g.add(n, ((Number) v).longValue());
        break;
      case FLOAT:
        g.add(n, (Float) v);
        break;
      case DOUBLE:
        g.add(n, (Double) v);
        break;
      default:
        g.add(n, Binary.fromConstantByteArray((byte[]) v));
        break;
    }
  }

  private static byte[] bytes(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /** Big-endian two's complement padded to {@code width} bytes. */
  private static byte[] fixed(BigInteger v, int width) {
    byte[] min = v.toByteArray();
    byte[] out = new byte[width];
    byte fill = v.signum() < 0 ? (byte) -1 : 0;
    java.util.Arrays.fill(out, fill);
    System.arraycopy(min, 0, out, width - min.length, min.length);
    return out;
  }

  private static BigInteger unscaled(Random r, int digits) {
    BigInteger bound = BigInteger.TEN.pow(digits);
    BigInteger v = new BigInteger(bound.bitLength() + 8, r).mod(bound);
    return r.nextBoolean() ? v.negate() : v;
  }

  /** {the value as read back, the value given to parquet-mr} for a column of ALL_TYPES. */
  private static Object[] value(String name, Random r, int row) {
    switch (name) {
      case "bool":
        boolean b = r.nextBoolean();
        return new Object[] {b, b};
      case "i8":
        long i8 = r.nextInt(256) - 128;
        return new Object[] {i8, i8};
      case "u8":
        long u8 = r.nextInt(256);
        return new Object[] {u8, u8};
      case "i16":
        long i16 = r.nextInt(65536) - 32768;
        return new Object[] {i16, i16};
      case "u16":
        long u16 = r.nextInt(65536);
        return new Object[] {u16, u16};
      case "i32":
      case "date":
        long i32 = r.nextInt();
        return new Object[] {i32, i32};
      case "u32":
        long u32 = r.nextInt() & 0xFFFFFFFFL;
        return new Object[] {u32, (int) u32};
      case "i64":
      case "u64":
      case "ts_ms":
      case "ts_us":
      case "ts_ns":
        long l = r.nextLong();
        return new Object[] {l, l};
      case "f32":
        float f = (float) r.nextGaussian();
        return new Object[] {f, f};
      case "f64":
        double d = r.nextGaussian();
        return new Object[] {d, d};
      case "time_ms":
        long ms = r.nextInt(86_400_000);
        return new Object[] {ms, ms};
      case "time_us":
        long us = Math.floorMod(r.nextLong(), 86_400_000_000L);
        return new Object[] {us, us};
      case "time_ns":
        long ns = Math.floorMod(r.nextLong(), 86_400_000_000_000L);
        return new Object[] {ns, ns};
      case "ts96":
        long day = 2_440_588L + r.nextInt(40_000) - 20_000;
        long nanos = Math.floorMod(r.nextLong(), 86_400_000_000_000L);
        byte[] b96 =
            ByteBuffer.allocate(12)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(nanos)
                .putInt((int) day)
                .array();
        return new Object[] {(day - 2_440_588L) * 86_400_000_000_000L + nanos, b96};
      case "dec9":
        BigInteger u9 = unscaled(r, 9);
        return new Object[] {new BigDecimal(u9, 2), u9.longValue()};
      case "dec18":
        BigInteger u18 = unscaled(r, 18);
        return new Object[] {new BigDecimal(u18, 4), u18.longValue()};
      case "dec30":
        BigInteger u30 = unscaled(r, 30);
        return new Object[] {new BigDecimal(u30, 5), fixed(u30, 13)};
      case "dec20":
        BigInteger u20 = unscaled(r, 20);
        return new Object[] {new BigDecimal(u20, 3), u20.toByteArray()};
      case "dec50":
        BigInteger u50 = unscaled(r, 50);
        return new Object[] {new BigDecimal(u50, 10), fixed(u50, 21)};
      case "str":
        String s = "word-" + r.nextInt(20) + (r.nextInt(10) == 0 ? "-ünïcødé" : "");
        return new Object[] {s, s.getBytes(java.nio.charset.StandardCharsets.UTF_8)};
      case "enm":
        String e = new String[] {"RED", "GREEN", "BLUE"}[r.nextInt(3)];
        return new Object[] {e, e.getBytes(java.nio.charset.StandardCharsets.UTF_8)};
      case "jsn":
        String j = "{\"k\":" + r.nextInt(1000) + "}";
        return new Object[] {j, j.getBytes(java.nio.charset.StandardCharsets.UTF_8)};
      case "bsn":
      case "bin":
        byte[] bin = bytes(r, r.nextInt(24));
        return new Object[] {hex(bin), bin};
      case "uid":
        byte[] uid = bytes(r, 16);
        return new Object[] {hex(uid), uid};
      case "fix":
        byte[] fix = bytes(r, 5);
        return new Object[] {hex(fix), fix};
      case "f16":
        byte[] f16 = bytes(r, 2);
        return new Object[] {hex(f16), f16};
      case "ivl":
        byte[] ivl = bytes(r, 12);
        return new Object[] {hex(ivl), ivl};
      case "req":
        return new Object[] {(long) row, row};
      default:
        throw new IllegalArgumentException(name);
    }
  }

  /** Writes nested rows (lists, lists of lists, structs, maps, legacy and bare repeated fields). */
  static List<List<Object>> writeNested(Path file, int rows, long seed, int rowGroupBytes)
      throws IOException {
    Random r = new Random(seed);
    List<List<Object>> expected = new ArrayList<>();
    try (ParquetWriter<Group> w =
        writer(file, NESTED, CompressionCodecName.SNAPPY, rowGroupBytes)) {
      for (int row = 0; row < rows; row++) {
        SimpleGroup g = new SimpleGroup(NESTED);
        List<Object> values = new ArrayList<>();
        g.add("id", row);
        values.add((long) row);
        // lst: null, empty, or elements some of which are null.
        List<Object> lst = maybeList(r);
        if (lst != null) {
          Group lg = g.addGroup("lst");
          for (int k = 0; k < r.nextInt(4); k++) {
            Group e = lg.addGroup("list");
            if (r.nextInt(5) == 0) {
              lst.add(null);
            } else {
              int v = r.nextInt(100);
              e.add("element", v);
              lst.add((long) v);
            }
          }
        }
        values.add(lst);
        List<Object> ll = maybeList(r);
        if (ll != null) {
          Group lg = g.addGroup("lstlst");
          for (int k = 0; k < r.nextInt(3); k++) {
            Group e = lg.addGroup("list");
            if (r.nextInt(4) == 0) {
              ll.add(null);
              continue;
            }
            Group inner = e.addGroup("element");
            List<Object> in = new ArrayList<>();
            for (int m = 0; m < r.nextInt(3); m++) {
              String s = "s" + r.nextInt(9);
              inner.addGroup("list").add("element", s);
              in.add(s);
            }
            ll.add(in);
          }
        }
        values.add(ll);
        if (r.nextInt(6) == 0) {
          values.add(null);
        } else {
          Group st = g.addGroup("st");
          Map<String, Object> m = new LinkedHashMap<>();
          long a = r.nextLong();
          st.add("a", a);
          m.put("a", a);
          String b = r.nextBoolean() ? null : "b" + r.nextInt(50);
          if (b != null) {
            st.add("b", b);
          }
          m.put("b", b);
          List<Object> inner = maybeList(r);
          if (inner != null) {
            Group ig = st.addGroup("inner");
            for (int k = 0; k < r.nextInt(3); k++) {
              double d = r.nextDouble();
              ig.addGroup("list").add("element", d);
              inner.add(d);
            }
          }
          m.put("inner", inner);
          values.add(m);
        }
        List<Object> mp = maybeList(r);
        if (mp != null) {
          Group mg = g.addGroup("mp");
          for (int k = 0; k < r.nextInt(3); k++) {
            Group kv = mg.addGroup("key_value");
            Map<String, Object> entry = new LinkedHashMap<>();
            String key = "k" + k;
            kv.add("key", key);
            entry.put("key", key);
            Long v = r.nextBoolean() ? null : (long) r.nextInt(1000);
            if (v != null) {
              kv.add("value", v.intValue());
            }
            entry.put("value", v);
            mp.add(entry);
          }
        }
        values.add(mp);
        List<Object> legacy = maybeList(r);
        if (legacy != null) {
          Group lg = g.addGroup("legacy");
          for (int k = 0; k < r.nextInt(3); k++) {
            int v = r.nextInt(10);
            lg.add("array", v);
            legacy.add((long) v);
          }
        }
        values.add(legacy);
        List<Object> rep = new ArrayList<>();
        for (int k = 0; k < r.nextInt(3); k++) {
          long v = r.nextLong();
          g.add("rep", v);
          rep.add(v);
        }
        values.add(rep);
        List<Object> ls = maybeList(r);
        if (ls != null) {
          Group lg = g.addGroup("lst_st");
          for (int k = 0; k < r.nextInt(3); k++) {
            Group e = lg.addGroup("list");
            if (r.nextInt(4) == 0) {
              ls.add(null);
              continue;
            }
            Group s = e.addGroup("element");
            Map<String, Object> m = new LinkedHashMap<>();
            Long x = r.nextBoolean() ? null : (long) r.nextInt(9);
            if (x != null) {
              s.add("x", x.intValue());
            }
            m.put("x", x);
            String y = r.nextBoolean() ? null : "y" + r.nextInt(9);
            if (y != null) {
              s.add("y", y);
            }
            m.put("y", y);
            ls.add(m);
          }
        }
        values.add(ls);
        w.write(g);
        expected.add(values);
      }
    }
    return expected;
  }

  /** Null one time in five, else an empty list to fill. */
  private static List<Object> maybeList(Random r) {
    return r.nextInt(5) == 0 ? null : new ArrayList<>();
  }
}
