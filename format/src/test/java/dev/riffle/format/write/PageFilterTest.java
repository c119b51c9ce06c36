package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Page filters (FORMAT.md §7.5): on random files of every type, every comparison with literals
 * drawn from the rows (and beside them) keeps every row that matches, by SQL semantics over the
 * values (NaN kept for any comparison); on sorted data they skip what they should; and a scan of
 * the candidate rows reads exactly the pages that hold them (ReadStats).
 *
 * <p>Longer than most tests: it holds its own evaluation of every comparison on every type (the
 * rows a filter must keep), beside the skipping and counter checks.
 */
@ExtendWith(SeedExtension.class)
class PageFilterTest {
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
    return PageStatsTest.cases();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void filtersKeepEveryMatchingRow(TypeCase c, @Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    int rows = Math.max(1, Math.min(c.severalPagesRows, 6000));
    byte[] file = PageStatsTest.write(c, rows, r.nextLong(), 0.1, allocator);
    try (FileReader reader = FileReader.open(new BytesSource(c.name, file), true, allocator)) {
      long[] all = new long[(int) reader.rowCount()];
      Arrays.setAll(all, i -> i);
      try (VectorSchemaRoot values = reader.take(all, null)) {
        for (Field field : reader.schema().fields()) {
          FieldVector v = values.getVector(field.getName());
          FieldVector dict =
              field.getDictionary() == null
                  ? null
                  : reader.dictionaries().lookup(field.getDictionary().getId()).getVector();
          check(reader, values, v, dict, PageFilter.isNull(field.getName()), v::isNull, null);
          check(
              reader,
              values,
              v,
              dict,
              PageFilter.isNotNull(field.getName()),
              row -> !v.isNull(row),
              null);
          FieldVector source = dict != null ? dict : v;
          if (source.getField().getType() instanceof ArrowType.FloatingPoint fp
              && fp.getPrecision() == FloatingPointPrecision.HALF) {
            // Half floats have null counts only: comparisons exclude nothing with values.
            RowTest one =
                row ->
                    !v.isNull(row)
                        && (dict == null
                            ? ((Float2Vector) v).getValueAsDouble(row) == 1.0
                            : ((Float2Vector) dict)
                                    .getValueAsDouble((int) ((BaseIntVector) v).getValueAsLong(row))
                                == 1.0);
            check(
                reader,
                values,
                v,
                dict,
                PageFilter.eq(field.getName(), 1.0),
                row -> !v.isNull(row),
                one);
            continue;
          }
          if (PageStatsTest.Expected.value0(source) == null) {
            assertThatThrownBy(() -> reader.candidateRows(PageFilter.eq(field.getName(), 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(field.getName());
            assertThatThrownBy(
                    () -> PageFilter.eq(field.getName(), 1).matches(values, reader.dictionaries()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(field.getName());
            continue;
          }
          for (int t = 0; t < 12; t++) {
            Object lit = literal(source, r);
            if (lit == null) {
              continue;
            }
            for (String op : List.of("=", "!=", "<", "<=", ">", ">=")) {
              PageFilter f = filter(field.getName(), op, lit);
              check(
                  reader,
                  values,
                  v,
                  dict,
                  f,
                  row -> matches(v, dict, row, op, lit, false),
                  row -> matches(v, dict, row, op, lit, true));
            }
            Object other = literal(source, r);
            if (other != null) {
              PageFilter in = PageFilter.in(field.getName(), List.of(lit, other));
              check(
                  reader,
                  values,
                  v,
                  dict,
                  in,
                  row ->
                      matches(v, dict, row, "=", lit, false)
                          || matches(v, dict, row, "=", other, false),
                  row ->
                      matches(v, dict, row, "=", lit, true)
                          || matches(v, dict, row, "=", other, true));
            }
          }
        }
      }
    }
  }

  interface RowTest {
    boolean test(int row);
  }

  /**
   * The filter's candidate rows hold every row {@code mayMatch} accepts, and its evaluation on the
   * rows ({@link PageFilter#matches}) accepts exactly the rows {@code exact} does ({@code mayMatch}
   * if null).
   */
  private static void check(
      FileReader reader,
      VectorSchemaRoot values,
      FieldVector v,
      FieldVector dict,
      PageFilter f,
      RowTest mayMatch,
      RowTest exact)
      throws IOException {
    RowRanges candidates = reader.candidateRows(f);
    java.util.BitSet matching = f.matches(values, reader.dictionaries());
    RowTest expected = exact == null ? mayMatch : exact;
    for (int row = 0; row < v.getValueCount(); row++) {
      String filter = f.toString();
      filter = filter.length() > 120 ? filter.substring(0, 120) + "…" : filter;
      if (mayMatch.test(row) && !candidates.contains(row)) {
        throw new AssertionError(
            filter + " drops row " + row + " (" + describe(v, dict, row) + "), kept " + candidates);
      }
      if (expected.test(row) != matching.get(row)) {
        throw new AssertionError(
            filter
                + (matching.get(row) ? " matches" : " does not match")
                + " row "
                + row
                + " ("
                + describe(v, dict, row)
                + ")");
      }
    }
  }

  private static String describe(FieldVector v, FieldVector dict, int row) {
    Object o = v.getObject(row);
    if (dict != null && o != null) {
      o = dict.getObject((int) ((BaseIntVector) v).getValueAsLong(row));
    }
    String s = o instanceof byte[] b ? Arrays.toString(b) : String.valueOf(o);
    return s.length() > 80 ? s.substring(0, 80) + "…" : s;
  }

  private static PageFilter filter(String field, String op, Object lit) {
    switch (op) {
      case "=":
        return PageFilter.eq(field, lit);
      case "!=":
        return PageFilter.notEq(field, lit);
      case "<":
        return PageFilter.lt(field, lit);
      case "<=":
        return PageFilter.le(field, lit);
      case ">":
        return PageFilter.gt(field, lit);
      default:
        return PageFilter.ge(field, lit);
    }
  }

  /**
   * A literal for a field: mostly a value of some row (as the Java type a caller would pass), else
   * one beside it; null if the drawn row is null.
   */
  private static Object literal(FieldVector v, SplittableRandom r) {
    int n = v.getValueCount();
    if (n == 0) {
      return null;
    }
    int row = r.nextInt(n);
    if (v.isNull(row)) {
      return null;
    }
    Object x = PageStatsTest.Expected.value(v, row);
    ArrowType t = v.getField().getType();
    int twist = r.nextInt(4);
    if (x instanceof byte[] b) {
      byte[] lit =
          twist == 0
              ? Arrays.copyOf(b, Math.max(0, b.length - 1))
              : twist == 1 ? Arrays.copyOf(b, b.length + 1) : b;
      boolean ascii = true;
      for (byte c : lit) {
        ascii &= c >= 0;
      }
      // Text fields take strings (and bytes); a string literal must be valid UTF-8.
      return ascii && (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8)
          ? new String(lit, StandardCharsets.UTF_8)
          : lit;
    }
    if (t instanceof ArrowType.Bool) {
      return ((BigDecimal) x).signum() != 0;
    }
    if (x instanceof Double) {
      return Double.NaN;
    }
    BigDecimal d = (BigDecimal) x;
    if (d.abs().compareTo(new BigDecimal("1e399")) > 0) {
      return d.signum() > 0 ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
    }
    if (twist == 0) {
      d = d.add(new BigDecimal("0.5"));
    } else if (twist == 1) {
      d = d.subtract(BigDecimal.ONE);
    }
    if (t instanceof ArrowType.FloatingPoint) {
      return twist == 2 ? (Object) d : (Object) d.doubleValue();
    }
    if (t instanceof ArrowType.Decimal || twist == 0) {
      return d;
    }
    BigInteger i = d.toBigIntegerExact();
    return i.bitLength() < 64 ? (Object) i.longValue() : (Object) i;
  }

  /**
   * Whether row {@code row} satisfies {@code value op lit}, SQL-style; a NaN value or literal is
   * always kept unless {@code exact}, where NaN equals NaN and is above every number (Spark's
   * order).
   */
  private static boolean matches(
      FieldVector v, FieldVector dict, int row, String op, Object lit, boolean exact) {
    if (v.isNull(row)) {
      return false;
    }
    Object x =
        dict == null
            ? PageStatsTest.Expected.value(v, row)
            : PageStatsTest.Expected.value(dict, (int) ((BaseIntVector) v).getValueAsLong(row));
    boolean litNaN = lit instanceof Double d && d.isNaN();
    if (!exact && (x instanceof Double || litNaN)) {
      return true; // NaN: any engine's answer may be yes
    }
    int c;
    if (x instanceof Double || litNaN) {
      c = x instanceof Double && litNaN ? 0 : x instanceof Double ? 1 : -1;
    } else if (x instanceof byte[] b) {
      byte[] l = lit instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) lit;
      c = Arrays.compareUnsigned(b, l);
    } else {
      c = ((BigDecimal) x).compareTo(number(lit));
    }
    switch (op) {
      case "=":
        return c == 0;
      case "!=":
        return c != 0;
      case "<":
        return c < 0;
      case "<=":
        return c <= 0;
      case ">":
        return c > 0;
      default:
        return c >= 0;
    }
  }

  private static BigDecimal number(Object lit) {
    if (lit instanceof Boolean b) {
      return b ? BigDecimal.ONE : BigDecimal.ZERO;
    }
    if (lit instanceof BigDecimal b) {
      return b;
    }
    if (lit instanceof BigInteger b) {
      return new BigDecimal(b);
    }
    if (lit instanceof Double d) {
      return d.isInfinite() ? new BigDecimal(d > 0 ? "1e400" : "-1e400") : new BigDecimal(d);
    }
    return BigDecimal.valueOf(((Number) lit).longValue());
  }

  // ---------------------------------------------------------------------------------------------
  // Skipping, and what a scan of the candidates reads

  private static final int ROWS = 60_000;
  private static final int PLATES = 20;

  /**
   * An atlas-like file: {@code plate} a dictionary of 20 plates written in contiguous runs, {@code
   * n_genes} random in [0, 1000) except ascending in plate 7, {@code x} float64, {@code id} int32
   * ascending; 4 KiB pages.
   */
  private byte[] atlas() throws IOException {
    DictionaryEncoding enc = new DictionaryEncoding(3, false, new ArrowType.Int(16, true));
    Field plate = new Field("plate", new FieldType(true, new ArrowType.Int(16, true), enc), null);
    Schema schema =
        new Schema(
            List.of(
                plate,
                TypeCase.f("n_genes", new ArrowType.Int(32, true)),
                TypeCase.f("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                TypeCase.f("id", new ArrowType.Int(32, true))));
    SplittableRandom r = new SplittableRandom(42);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        VarCharVector plates = new VarCharVector("plate", allocator)) {
      for (int p = 0; p < PLATES; p++) {
        plates.setSafe(p, ("plate-" + p).getBytes(StandardCharsets.UTF_8));
      }
      plates.setValueCount(PLATES);
      var pv = (org.apache.arrow.vector.SmallIntVector) root.getVector("plate");
      IntVector genes = (IntVector) root.getVector("n_genes");
      Float8Vector x = (Float8Vector) root.getVector("x");
      IntVector id = (IntVector) root.getVector("id");
      for (int i = 0; i < ROWS; i++) {
        int p = i / (ROWS / PLATES);
        pv.setSafe(i, p);
        int inPlate = i % (ROWS / PLATES);
        genes.setSafe(i, p == 7 ? inPlate * 1000 / (ROWS / PLATES) : r.nextInt(1000));
        x.setSafe(i, r.nextDouble());
        id.setSafe(i, i);
      }
      pv.setValueCount(ROWS);
      genes.setValueCount(ROWS);
      x.setValueCount(ROWS);
      id.setValueCount(ROWS);
      root.setRowCount(ROWS);
      DictionaryProvider.MapDictionaryProvider d = new DictionaryProvider.MapDictionaryProvider();
      d.put(new Dictionary(plates, enc));
      return PageStatsTest.write(root, d, WriterOptions.defaults().withPageBytes(4096));
    }
  }

  @Test
  void filtersSkipThePagesTheirStatisticsExclude() throws Exception {
    byte[] file = atlas();
    try (FileReader r = FileReader.open(new BytesSource("atlas", file), true, allocator)) {
      int perPlate = ROWS / PLATES;
      // plate = 'plate-3': the plate column's pages that hold code 3 (its run ± page edges).
      RowRanges plate3 = r.candidateRows(PageFilter.eq("plate", "plate-3"));
      assertThat(plate3.count()).isOne();
      assertThat(plate3.start(0)).isLessThanOrEqualTo(3L * perPlate);
      assertThat(plate3.end(0)).isGreaterThanOrEqualTo(4L * perPlate);
      assertThat(plate3.rowCount()).isLessThan(perPlate + 2 * pageRows(r, "plate"));
      // A value no row holds, and one the dictionary lacks: nothing to read.
      assertThat(r.candidateRows(PageFilter.eq("plate", "plate-99"))).isEqualTo(RowRanges.none());
      assertThat(r.candidateRows(PageFilter.gt("id", ROWS))).isEqualTo(RowRanges.none());
      assertThat(r.candidateRows(PageFilter.isNull("id"))).isEqualTo(RowRanges.none());
      assertThat(r.candidateRows(PageFilter.isNotNull("id"))).isEqualTo(RowRanges.all(ROWS));
      // Ranges of a sorted column: exactly its pages that overlap [1000, 2000).
      RowRanges ids =
          r.candidateRows(PageFilter.and(PageFilter.ge("id", 1000), PageFilter.lt("id", 2000.0)));
      assertThat(ids).isEqualTo(pagesOverlapping(r, "id", 1000, 2000));
      // Dictionary comparisons go through the values: plates 'plate-10' to 'plate-19' sort below
      // 'plate-2' as strings.
      RowRanges low = r.candidateRows(PageFilter.lt("plate", "plate-2"));
      assertThat(low.contains(0)).isTrue(); // plate-0
      assertThat(low.contains(15L * perPlate)).isTrue(); // plate-15
      assertThat(low.contains(5L * perPlate + perPlate / 2)).isFalse(); // plate-5
      // AND intersects, OR unites.
      // In plate 7 n_genes ascends, so the pages of its middle hold no n_genes > 900.
      RowRanges plate7 = r.candidateRows(PageFilter.eq("plate", "plate-7"));
      RowRanges both =
          r.candidateRows(
              PageFilter.and(PageFilter.eq("plate", "plate-7"), PageFilter.gt("n_genes", 900)));
      assertThat(both.rowCount()).isLessThan(plate7.rowCount());
      assertThat(both.contains(7L * perPlate + perPlate / 3)).isFalse();
      assertThat(both.contains(8L * perPlate - 1)).isTrue();
      RowRanges either =
          r.candidateRows(
              PageFilter.or(PageFilter.eq("plate", "plate-3"), PageFilter.eq("plate", "plate-7")));
      assertThat(either.count()).isEqualTo(2);
      assertThat(either.rowCount())
          .isEqualTo(
              plate3.rowCount() + r.candidateRows(PageFilter.eq("plate", "plate-7")).rowCount());
      // Literals a field cannot compare with name the field.
      assertThatThrownBy(() -> r.candidateRows(PageFilter.eq("id", "seven")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'id'");
      assertThatThrownBy(() -> r.candidateRows(PageFilter.eq("nope", 1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("nope");
    }
  }

  @Test
  void aScanOfTheCandidatesReadsOnlyTheirPages() throws Exception {
    byte[] file = atlas();
    List<String> fields = List.of("plate", "n_genes", "x", "id");
    try (FileReader r = FileReader.open(new BytesSource("atlas", file), true, allocator)) {
      PageFilter f =
          PageFilter.and(PageFilter.eq("plate", "plate-3"), PageFilter.gt("n_genes", 500));
      RowRanges rows = r.candidateRows(f);
      r.loadColumns(null);
      // The pages a scan of these rows must read, column by column.
      long pages = 0;
      long bytes = 0;
      for (int c = 0; c < r.schema().columns().size(); c++) {
        for (PageInfo p : r.pages(c)) {
          if (overlaps(rows, p)) {
            pages++;
            bytes += p.byteLength();
          }
        }
      }
      long matching = 0;
      long returned = 0;
      r.stats().reset();
      try (ScanCursor cursor = r.scan(fields, 1000, rows).readAhead(0, 0)) {
        VectorSchemaRoot b;
        while ((b = cursor.next()) != null) {
          try (VectorSchemaRoot batch = b) {
            long first = cursor.batchFirstRow();
            for (int i = 0; i < b.getRowCount(); i++) {
              assertThat(rows.contains(first + i)).isTrue();
              assertThat(((IntVector) b.getVector("id")).get(i)).isEqualTo(first + i);
              if (((BaseIntVector) b.getVector("plate")).getValueAsLong(i) == 3
                  && ((IntVector) b.getVector("n_genes")).get(i) > 500) {
                matching++;
              }
            }
            returned += b.getRowCount();
          }
        }
      }
      ReadStats s = r.stats();
      assertThat(returned).isEqualTo(rows.rowCount());
      assertThat(s.reads()).as("one read per page holding a candidate row").isEqualTo(pages);
      assertThat(s.rounds()).isEqualTo(pages);
      assertThat(s.bytesRead()).isEqualTo(bytes);
      assertThat(s.valuesDecoded()).isEqualTo(rows.rowCount() * fields.size());
      assertThat(matching).as("every matching row came back").isEqualTo(countMatching(r));
      long allPages = 0;
      for (int c = 0; c < r.schema().columns().size(); c++) {
        allPages += r.pages(c).size();
      }
      assertThat(pages).as("pages read").isLessThan(allPages / 10);
      // With read-ahead: the same pages in as many reads or fewer (neighbouring pages of a column
      // are read together, with what lies between them).
      long fullScanBytes = 0;
      for (int c = 0; c < r.schema().columns().size(); c++) {
        for (PageInfo p : r.pages(c)) {
          fullScanBytes += p.byteLength();
        }
      }
      r.stats().reset();
      try (ScanCursor cursor = r.scan(fields, 1000, rows).readAhead(2, 1 << 20)) {
        VectorSchemaRoot b;
        while ((b = cursor.next()) != null) {
          b.close();
        }
      }
      assertThat(r.stats().bytesRead()).isBetween(bytes, fullScanBytes / 4);
      assertThat(r.stats().reads()).isLessThanOrEqualTo(pages);
    }
  }

  @Test
  void scansOfRowRangesReturnThoseRows(@Seed long seed) throws Exception {
    byte[] file = atlas();
    SplittableRandom random = new SplittableRandom(seed);
    try (FileReader r = FileReader.open(new BytesSource("atlas", file), true, allocator)) {
      for (int t = 0; t < 20; t++) {
        RowRanges rows = RowRanges.none();
        for (int k = random.nextInt(4); k >= 0; k--) {
          long a = random.nextLong(ROWS);
          rows = rows.union(RowRanges.of(a, Math.min(ROWS, a + random.nextLong(5000))));
        }
        long next = -1;
        long count = 0;
        try (ScanCursor cursor = r.scan(List.of("id"), 1 + random.nextInt(3000), rows)) {
          VectorSchemaRoot b;
          while ((b = cursor.next()) != null) {
            try (VectorSchemaRoot batch = b) {
              IntVector id = (IntVector) b.getVector("id");
              assertThat(id.get(0)).isEqualTo(cursor.batchFirstRow()).isGreaterThan((int) next);
              for (int i = 0; i < b.getRowCount(); i++) {
                assertThat(rows.contains(id.get(i))).as("row %d in %s", id.get(i), rows).isTrue();
                next = id.get(i);
              }
              count += b.getRowCount();
            }
          }
        }
        assertThat(count).as("rows of %s", rows).isEqualTo(rows.rowCount());
      }
      assertThatThrownBy(() -> r.scan(null, 10, RowRanges.of(0, ROWS + 1)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void rowRangesAlgebra(@Seed long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    for (int t = 0; t < 200; t++) {
      boolean[] a = new boolean[200];
      boolean[] b = new boolean[200];
      RowRanges ra = random(r, a);
      RowRanges rb = random(r, b);
      RowRanges and = ra.intersect(rb);
      RowRanges or = ra.union(rb);
      long nAnd = 0;
      long nOr = 0;
      for (int i = 0; i < 200; i++) {
        assertThat(ra.contains(i)).isEqualTo(a[i]);
        assertThat(and.contains(i)).isEqualTo(a[i] && b[i]);
        assertThat(or.contains(i)).isEqualTo(a[i] || b[i]);
        nAnd += a[i] && b[i] ? 1 : 0;
        nOr += a[i] || b[i] ? 1 : 0;
      }
      assertThat(and.rowCount()).isEqualTo(nAnd);
      assertThat(or.rowCount()).isEqualTo(nOr);
      for (int i = 1; i < or.count(); i++) {
        assertThat(or.start(i)).as("ranges never touch").isGreaterThan(or.end(i - 1));
      }
    }
  }

  private static RowRanges random(SplittableRandom r, boolean[] in) {
    RowRanges out = RowRanges.none();
    for (int k = r.nextInt(5); k > 0; k--) {
      int a = r.nextInt(in.length);
      int b = Math.min(in.length, a + r.nextInt(40));
      Arrays.fill(in, a, b, true);
      out = out.union(RowRanges.of(a, b));
    }
    return out;
  }

  private static long countMatching(FileReader r) throws IOException {
    long n = 0;
    try (ScanCursor cursor = r.scan(List.of("plate", "n_genes"), 5000)) {
      VectorSchemaRoot b;
      while ((b = cursor.next()) != null) {
        try (VectorSchemaRoot batch = b) {
          for (int i = 0; i < b.getRowCount(); i++) {
            if (((BaseIntVector) b.getVector("plate")).getValueAsLong(i) == 3
                && ((IntVector) b.getVector("n_genes")).get(i) > 500) {
              n++;
            }
          }
        }
      }
    }
    return n;
  }

  private static boolean overlaps(RowRanges rows, PageInfo p) {
    for (int i = 0; i < rows.count(); i++) {
      if (rows.start(i) < p.firstRow() + p.rowCount() && rows.end(i) > p.firstRow()) {
        return true;
      }
    }
    return false;
  }

  private static RowRanges pagesOverlapping(FileReader r, String field, long lo, long hi)
      throws IOException {
    RowRanges out = RowRanges.none();
    int c = r.schema().columnOf(r.schema().fieldIndex(field));
    for (PageInfo p : r.pages(c)) {
      // id = row number: a page holds ids [firstRow, firstRow + rowCount).
      if (p.firstRow() < hi && p.firstRow() + p.rowCount() > lo) {
        out = out.union(RowRanges.of(p.firstRow(), p.firstRow() + p.rowCount()));
      }
    }
    return out;
  }

  private static long pageRows(FileReader r, String field) throws IOException {
    int c = r.schema().columnOf(r.schema().fieldIndex(field));
    long most = 0;
    for (PageInfo p : r.pages(c)) {
      most = Math.max(most, p.rowCount());
    }
    return most;
  }
}
