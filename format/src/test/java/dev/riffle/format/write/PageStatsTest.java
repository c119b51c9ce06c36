package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.PageStats;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Page statistics (FORMAT.md §4.5) round trip: for every type case, at null rates 0, 0.1 and 1, in
 * files of several 4 KiB pages, each page's statistics equal those computed here from the rows
 * themselves, with Java's own comparisons of the values Arrow returns (not the writer's byte
 * orders); merged over the pages they equal the file's. Special values — NaN, ±0.0, ±∞, extreme
 * integers, empty, 64-, 65-byte and multi-byte strings, 0xFF bytes, pages of nulls only or of NaN
 * only — get their own checks.
 *
 * <p>Longer than most tests: the statistics expected are computed here for every type, from the
 * values Arrow returns, independently of the writer's code.
 */
@ExtendWith(SeedExtension.class)
class PageStatsTest {
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  static Stream<TypeCase> cases() {
    List<TypeCase> c = new ArrayList<>(TypeCase.all());
    c.addAll(CorruptionTest.fileCases());
    return c.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void statisticsAreThoseOfTheRows(TypeCase c, @Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    for (double nullRate : new double[] {0, 0.1, 1}) {
      int rows = Math.max(1, Math.min(c.severalPagesRows, 6000)) + r.nextInt(50);
      byte[] file = write(c, rows, r.nextLong(), nullRate, allocator);
      String name = c.name + "-nulls-" + nullRate;
      try (FileReader reader = FileReader.open(new BytesSource(name, file), true, allocator)) {
        checkAgainstRows(reader, name);
      }
    }
  }

  /** Every page's statistics of every field against those computed from a take of all rows. */
  void checkAgainstRows(FileReader reader, String name) throws IOException {
    long[] all = new long[(int) reader.rowCount()];
    Arrays.setAll(all, i -> i);
    try (VectorSchemaRoot rows = reader.take(all, null)) {
      for (int c = 0; c < reader.schema().columns().size(); c++) {
        List<PageInfo> pages = reader.pages(c);
        List<Integer> fieldIndexes = reader.schema().columns().get(c).fields();
        for (int k = 0; k < fieldIndexes.size(); k++) {
          Field field = reader.schema().fields().get(fieldIndexes.get(k));
          FieldVector v = rows.getVector(field.getName());
          List<PageStats> stats = reader.pageStats(field.getName());
          assertThat(stats).as("%s %s", name, field.getName()).hasSize(pages.size());
          for (int p = 0; p < pages.size(); p++) {
            PageInfo page = pages.get(p);
            assertThat(page.stats().get(k)).isSameAs(stats.get(p));
            Expected e = Expected.of(v, (int) page.firstRow(), page.rowCount());
            e.check(stats.get(p), name + " " + field.getName() + " page " + p);
          }
          if (!pages.isEmpty()) {
            Expected.of(v, 0, v.getValueCount())
                .check(PageStats.merge(stats), name + " " + field.getName() + " merged");
          }
        }
      }
    }
  }

  /** Statistics computed from Arrow values with Java's comparisons. */
  static final class Expected {
    long rows;
    long nulls;
    boolean nan;
    boolean ordered;
    BigDecimal min;
    BigDecimal max;
    byte[] minBytes;
    byte[] maxBytes;
    BitSet codes;

    static Expected of(FieldVector v, int from, int count) {
      Expected e = new Expected();
      e.rows = count;
      boolean dictionary = v.getField().getDictionary() != null;
      if (dictionary) {
        e.codes = new BitSet();
      }
      for (int i = from; i < from + count; i++) {
        if (v.isNull(i)) {
          e.nulls++;
          continue;
        }
        if (dictionary) {
          e.codes.set((int) ((BaseIntVector) v).getValueAsLong(i));
          continue;
        }
        Object x = value(v, i);
        if (x == null) {
          continue; // no order: null counts only
        }
        e.ordered = true;
        if (x instanceof Double d && d.isNaN()) {
          e.nan = true;
          continue;
        }
        if (x instanceof byte[] b) {
          if (e.minBytes == null || Arrays.compareUnsigned(b, e.minBytes) < 0) {
            e.minBytes = b;
          }
          if (e.maxBytes == null || Arrays.compareUnsigned(b, e.maxBytes) > 0) {
            e.maxBytes = b;
          }
          continue;
        }
        BigDecimal c = (BigDecimal) x;
        if (e.min == null || c.compareTo(e.min) < 0) {
          e.min = c;
        }
        if (e.max == null || c.compareTo(e.max) > 0) {
          e.max = c;
        }
      }
      if (!dictionary && value0(v) == null) {
        e.ordered = false;
      }
      return e;
    }

    /** Whether the field's type has an order in the statistics (a probe of its vector type). */
    static Object value0(FieldVector v) {
      ArrowType t = v.getField().getType();
      switch (t.getTypeID()) {
        case Bool:
        case Int:
        case Decimal:
        case Date:
        case Time:
        case Timestamp:
        case Duration:
        case Utf8:
        case LargeUtf8:
        case Binary:
        case LargeBinary:
        case FixedSizeBinary:
          return Boolean.TRUE;
        case FloatingPoint:
          return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.HALF
              ? null
              : Boolean.TRUE;
        default:
          return null;
      }
    }

    /**
     * Row {@code i}'s value as a comparable number (BigDecimal, NaN as a Double), a byte[] for
     * binary types, or null for types without an order.
     */
    static Object value(FieldVector v, int i) {
      if (value0(v) == null) {
        return null;
      }
      ArrowType t = v.getField().getType();
      switch (t.getTypeID()) {
        case Bool:
          return BigDecimal.valueOf(((BitVector) v).get(i));
        case Int:
          ArrowType.Int it = (ArrowType.Int) t;
          long raw = ((BaseIntVector) v).getValueAsLong(i);
          if (it.getIsSigned()) {
            return BigDecimal.valueOf(raw);
          }
          return it.getBitWidth() == 64
              ? new BigDecimal(((UInt8Vector) v).getObjectNoOverflow(i))
              : BigDecimal.valueOf(raw & ((1L << it.getBitWidth()) - 1));
        case FloatingPoint:
          double d = v instanceof Float4Vector f ? (double) f.get(i) : ((Float8Vector) v).get(i);
          if (Double.isNaN(d)) {
            return Double.NaN;
          }
          return d == Double.POSITIVE_INFINITY
              ? new BigDecimal("1e400")
              : d == Double.NEGATIVE_INFINITY ? new BigDecimal("-1e400") : new BigDecimal(d);
        case Decimal:
          return v.getObject(i);
        case Date:
        case Time:
        case Timestamp:
        case Duration:
          BaseFixedWidthVector f = (BaseFixedWidthVector) v;
          return BigDecimal.valueOf(
              f.getTypeWidth() == 4
                  ? f.getDataBuffer().getInt(i * 4L)
                  : f.getDataBuffer().getLong(i * 8L));
        case FixedSizeBinary:
          return ((FixedSizeBinaryVector) v).get(i);
        default:
          return ((VariableWidthFieldVector) v).get(i);
      }
    }

    void check(PageStats s, String what) {
      assertThat(s.rowCount()).as(what + " rows").isEqualTo(rows);
      assertThat(s.nullCount()).as(what + " nulls").isEqualTo(nulls);
      assertThat(s.hasNaN()).as(what + " NaN").isEqualTo(nan);
      if (codes != null) {
        assertThat(s.hasMinMax()).as(what).isFalse();
        assertThat(s.codes()).as(what + " codes").isEqualTo(codes);
        return;
      }
      assertThat(s.codes()).as(what).isNull();
      boolean bounded = ordered && (min != null || minBytes != null);
      assertThat(s.hasMinMax()).as(what + " has min/max").isEqualTo(bounded);
      if (!bounded) {
        assertThat(s.min()).isNull();
        return;
      }
      if (minBytes != null) {
        checkBytes(s.min(), s.minIsPrefix(), minBytes, what + " min");
        checkBytes(s.max(), s.maxIsPrefix(), maxBytes, what + " max");
        return;
      }
      assertThat(s.minIsPrefix() || s.maxIsPrefix()).isFalse();
      assertThat(number(s.min())).as(what + " min").isEqualByComparingTo(min);
      assertThat(number(s.max())).as(what + " max").isEqualByComparingTo(max);
      if (s.min() instanceof Float || s.min() instanceof Double) {
        // Zeros are written signed: a zero min is -0.0, a zero max +0.0.
        double lo = ((Number) s.min()).doubleValue();
        double hi = ((Number) s.max()).doubleValue();
        assertThat(lo != 0 || 1 / lo < 0).as(what + " zero min is -0.0").isTrue();
        assertThat(hi != 0 || 1 / hi > 0).as(what + " zero max is +0.0").isTrue();
      }
    }

    private static void checkBytes(Object got, boolean prefix, byte[] value, String what) {
      assertThat(prefix).as(what + " is a prefix").isEqualTo(value.length > 64);
      byte[] bound = Arrays.copyOf(value, Math.min(64, value.length));
      if (got instanceof String text) {
        assertThat(text).as(what).isEqualTo(new String(bound, StandardCharsets.UTF_8));
      } else {
        assertThat((byte[]) got).as(what).isEqualTo(bound);
      }
    }

    private static BigDecimal number(Object o) {
      if (o instanceof Boolean b) {
        return b ? BigDecimal.ONE : BigDecimal.ZERO;
      }
      if (o instanceof BigDecimal b) {
        return b;
      }
      if (o instanceof BigInteger b) {
        return new BigDecimal(b);
      }
      if (o instanceof Float || o instanceof Double) {
        double d = ((Number) o).doubleValue();
        return d == Double.POSITIVE_INFINITY
            ? new BigDecimal("1e400")
            : d == Double.NEGATIVE_INFINITY ? new BigDecimal("-1e400") : new BigDecimal(d);
      }
      return BigDecimal.valueOf(((Number) o).longValue());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Special values

  @Test
  void floatsBoundWithoutNaNAndWithSignedZeros() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                TypeCase.f("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                TypeCase.f("f", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))));
    // Pages of 512 float64 rows (4 KiB): each block of 512 rows below is one page of "d".
    double[][] pages = {
      {Double.NaN, 1.5, -2.5, Double.NaN},
      {Double.NaN, Double.NaN},
      {0.0, -0.0, 0.0},
      {0.0, 3.0},
      {-7.0, -0.0},
      {Double.NEGATIVE_INFINITY, 5, Double.POSITIVE_INFINITY},
      {Double.MIN_VALUE, -Double.MIN_VALUE},
      {Double.longBitsToDouble(0x7ff8_0000_0000_0123L), 1.0}, // a NaN with a payload
    };
    int perPage = 512;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      Float8Vector d = (Float8Vector) root.getVector("d");
      Float4Vector f = (Float4Vector) root.getVector("f");
      int rows = pages.length * perPage;
      for (int p = 0; p < pages.length; p++) {
        for (int i = 0; i < perPage; i++) {
          double x = pages[p][i % pages[p].length];
          d.setSafe(p * perPage + i, x);
          f.setSafe(p * perPage + i, (float) x);
        }
      }
      d.setValueCount(rows);
      f.setValueCount(rows);
      root.setRowCount(rows);
      byte[] file = write(root, null, WriterOptions.defaults().withPageBytes(4096));
      try (FileReader r = FileReader.open(new BytesSource("floats", file), true, allocator)) {
        List<PageStats> s = r.pageStats("d");
        assertThat(s).hasSize(pages.length);
        assertThat(s.get(0).hasNaN()).isTrue();
        assertThat(s.get(0).min()).isEqualTo(-2.5);
        assertThat(s.get(0).max()).isEqualTo(1.5);
        assertThat(s.get(1).hasNaN()).isTrue();
        assertThat(s.get(1).hasMinMax()).as("NaN only").isFalse();
        assertThat(s.get(1).nullCount()).isZero();
        assertThat(s.get(2).min()).isEqualTo(-0.0);
        assertThat(s.get(2).max()).isEqualTo(0.0);
        assertThat(s.get(3).min()).isEqualTo(-0.0);
        assertThat(s.get(3).max()).isEqualTo(3.0);
        assertThat(s.get(4).min()).isEqualTo(-7.0);
        assertThat(s.get(4).max()).isEqualTo(0.0);
        assertThat(s.get(5).min()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(s.get(5).max()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(s.get(6).min()).isEqualTo(-Double.MIN_VALUE);
        assertThat(s.get(6).max()).isEqualTo(Double.MIN_VALUE);
        assertThat(s.get(7).hasNaN()).isTrue();
        assertThat(s.get(7).min()).isEqualTo(1.0);
        for (PageStats p : s) {
          assertThat(p.minIsPrefix() || p.maxIsPrefix()).isFalse();
        }
        checkAgainstRows(r, "floats");
      }
    }
  }

  @Test
  void integersAtTheirExtremes() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                TypeCase.f("i64", new ArrowType.Int(64, true)),
                TypeCase.f("u64", new ArrowType.Int(64, false))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      BigIntVector i = (BigIntVector) root.getVector("i64");
      UInt8Vector u = (UInt8Vector) root.getVector("u64");
      long[] values = {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE};
      for (int k = 0; k < values.length; k++) {
        i.setSafe(k, values[k]);
        u.setSafe(k, values[k]);
      }
      i.setNull(4);
      u.setNull(4);
      i.setValueCount(5);
      u.setValueCount(5);
      root.setRowCount(5);
      byte[] file = write(root, null, WriterOptions.defaults());
      try (FileReader r = FileReader.open(new BytesSource("ints", file), true, allocator)) {
        PageStats s = r.pageStats("i64").get(0);
        assertThat(s.min()).isEqualTo(Long.MIN_VALUE);
        assertThat(s.max()).isEqualTo(Long.MAX_VALUE);
        assertThat(s.nullCount()).isOne();
        PageStats t = r.pageStats("u64").get(0);
        assertThat(t.min()).isEqualTo(BigInteger.ZERO);
        assertThat(t.max()).isEqualTo(new BigInteger("18446744073709551615"));
        checkAgainstRows(r, "ints");
      }
    }
  }

  @Test
  void bytesAreBoundedByPrefixesOf64Bytes() throws Exception {
    Schema schema =
        new Schema(List.of(TypeCase.f("s", ArrowType.Utf8.INSTANCE), TypeCase.f("b", bin())));
    String a64 = "a".repeat(64);
    String[][] pages = {
      {"", "b", "a"}, // the empty string is the smallest
      {a64, "a".repeat(63)}, // 64 bytes: exact, no prefix
      {a64 + "b", a64 + "a", "zz"}, // 65 bytes: the min is a prefix of 64
      {"ü".repeat(40), "é".repeat(33)}, // 80 and 66 bytes: cut inside a character
      {a64, a64 + "x"}, // equal prefixes: the exact one is the min, the longer the max
    };
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarCharVector s = (VarCharVector) root.getVector("s");
      VarBinaryVector b = (VarBinaryVector) root.getVector("b");
      int row = 0;
      List<Integer> firstRows = new ArrayList<>();
      for (String[] page : pages) {
        firstRows.add(row);
        for (String x : page) {
          s.setSafe(row, x.getBytes(StandardCharsets.UTF_8));
          byte[] ff = new byte[70];
          Arrays.fill(ff, (byte) 0xFF);
          b.setSafe(row, row % 2 == 0 ? ff : x.getBytes(StandardCharsets.UTF_8));
          row++;
        }
      }
      s.setValueCount(row);
      b.setValueCount(row);
      root.setRowCount(row);
      // Each group of rows in a file of its own, so that it is one page.
      int from = 0;
      for (int p = 0; p < pages.length; p++) {
        int n = pages[p].length;
        try (VectorSchemaRoot part = root.slice(from, n)) {
          byte[] file = write(part, null, WriterOptions.defaults());
          try (FileReader r =
              FileReader.open(new BytesSource("bytes" + p, file), true, allocator)) {
            checkAgainstRows(r, "bytes page " + p);
            PageStats st = r.pageStats("s").get(0);
            if (p == 2) {
              assertThat(st.minIsPrefix()).isTrue();
              assertThat(st.min()).isEqualTo(a64);
              assertThat(st.max()).isEqualTo("zz");
            }
            if (p == 4) {
              assertThat(st.minIsPrefix()).isFalse();
              assertThat(st.maxIsPrefix()).isTrue();
              assertThat(st.min()).isEqualTo(st.max());
            }
          }
        }
        from += n;
      }
    }
  }

  @Test
  void allNullPagesHaveNoBounds() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                TypeCase.f("n", new ArrowType.Int(32, true)),
                TypeCase.f("s", ArrowType.Utf8.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      for (int i = 0; i < 3000; i++) {
        // Valid rows first (three pages of 1024 int32), then nulls only: the last page.
        if (i < 2048) {
          ((org.apache.arrow.vector.IntVector) root.getVector("n")).setSafe(i, i);
          ((VarCharVector) root.getVector("s"))
              .setSafe(i, ("v" + i).getBytes(StandardCharsets.UTF_8));
        } else {
          root.getVector("n").setNull(i);
          root.getVector("s").setNull(i);
        }
      }
      root.setRowCount(3000);
      byte[] file = write(root, null, WriterOptions.defaults().withPageBytes(4096));
      try (FileReader r = FileReader.open(new BytesSource("nulls", file), true, allocator)) {
        List<PageStats> n = r.pageStats("n");
        PageStats last = n.get(n.size() - 1);
        assertThat(last.nullCount()).isEqualTo(last.rowCount());
        assertThat(last.hasMinMax()).isFalse();
        assertThat(last.min()).isNull();
        assertThat(PageStats.merge(n).max()).isEqualTo(2047L);
        checkAgainstRows(r, "nulls");
      }
    }
  }

  @Test
  void dictionaryPagesListTheirCodesOrARange() throws Exception {
    // 3 entries; exactly 8192 (the largest with bitmaps: 1 KiB per page); 9000 (code ranges).
    for (int size : new int[] {3, 8192, 9000}) {
      Field cat =
          new Field(
              "cat",
              new org.apache.arrow.vector.types.pojo.FieldType(
                  true,
                  new ArrowType.Int(32, true),
                  new org.apache.arrow.vector.types.pojo.DictionaryEncoding(
                      1, false, new ArrowType.Int(32, true))),
              null);
      Schema schema = new Schema(List.of(cat));
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
          VarCharVector dict = new VarCharVector("cat", allocator)) {
        for (int k = 0; k < size; k++) {
          dict.setSafe(k, ("v" + k).getBytes(StandardCharsets.UTF_8));
        }
        dict.setValueCount(size);
        org.apache.arrow.vector.IntVector idx =
            (org.apache.arrow.vector.IntVector) root.getVector("cat");
        int rows = 10_000;
        for (int i = 0; i < rows; i++) {
          // Every entry used, in order (so file codes are batch indices), then nulls only.
          if (i >= 9000) {
            idx.setNull(i);
          } else {
            idx.setSafe(i, size == 3 ? (i / 7) % 3 : i % size);
          }
        }
        idx.setValueCount(rows);
        root.setRowCount(rows);
        DictionaryProvider.MapDictionaryProvider p = new DictionaryProvider.MapDictionaryProvider();
        p.put(new Dictionary(dict, cat.getDictionary()));
        byte[] file = write(root, p, WriterOptions.defaults().withPageBytes(4096));
        try (FileReader r =
            FileReader.open(new BytesSource("dict" + size, file), true, allocator)) {
          assertThat(r.dictionaries().lookup(1).getVector().getValueCount()).isEqualTo(size);
          checkDictionary(r, size);
        }
      }
    }
  }

  private void checkDictionary(FileReader r, int size) throws IOException {
    long[] all = new long[(int) r.rowCount()];
    Arrays.setAll(all, i -> i);
    int count = r.dictionaries().lookup(1).getVector().getValueCount();
    try (VectorSchemaRoot rows = r.take(all, null)) {
      FieldVector v = rows.getVector("cat");
      List<PageInfo> pages = r.pages(0);
      List<PageStats> stats = r.pageStats("cat");
      for (int p = 0; p < pages.size(); p++) {
        Expected e = Expected.of(v, (int) pages.get(p).firstRow(), pages.get(p).rowCount());
        PageStats s = stats.get(p);
        assertThat(s.nullCount()).isEqualTo(e.nulls);
        if (count <= 8192) {
          assertThat(s.codes()).as("size %d page %d", size, p).isEqualTo(e.codes);
          assertThat(s.hasMinMax()).isFalse();
        } else {
          assertThat(s.codes()).isNull();
          assertThat(s.min()).isEqualTo(e.codes.nextSetBit(0));
          assertThat(s.max()).isEqualTo(e.codes.length() - 1);
        }
      }
    }
  }

  private static ArrowType bin() {
    return ArrowType.Binary.INSTANCE;
  }

  // ---------------------------------------------------------------------------------------------
  // Writing

  /** Random rows of a case (with its groups and a dictionary if it has one) in 4 KiB pages. */
  static byte[] write(TypeCase c, int rows, long seed, double nullRate, BufferAllocator a)
      throws IOException {
    DictionaryProvider.MapDictionaryProvider provider =
        new DictionaryProvider.MapDictionaryProvider();
    List<VarCharVector> dictionaries = new ArrayList<>();
    try (VectorSchemaRoot root = RandomData.generate(c.schema, rows, seed, nullRate, a)) {
      for (Field field : c.schema.getFields()) {
        if (field.getDictionary() != null) {
          VarCharVector d = RandomData.dictionary(field.getName(), seed, a);
          dictionaries.add(d);
          provider.put(new Dictionary(d, field.getDictionary()));
        }
      }
      return write(
          root, provider, WriterOptions.defaults().withPageBytes(4096).withColumnGroups(c.groups));
    } finally {
      dictionaries.forEach(VarCharVector::close);
    }
  }

  static byte[] write(VectorSchemaRoot root, DictionaryProvider p, WriterOptions options)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileWriter w = FileWriter.create(out, root.getSchema(), p, options)) {
      w.write(root);
      w.finish();
    }
    return out.toByteArray();
  }
}
