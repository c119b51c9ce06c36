package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.FloatBits;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A page of three-decimal floats that would pack as decimals (FORMAT.md §5.5), but for one item: a
 * value that is a decimal at no scale the writer tries (−0.0, NaNs of any payload, infinities,
 * subnormals, 0.1 + 0.2, a value whose scale-9 form is beyond 2^53) leaves the page's items plain;
 * any other (a finer decimal, a large integer) may pack the page at another scale. Either way every
 * float reads back with its exact bits, for float32 and float64 items, nullable or not.
 */
@ExtendWith(SeedExtension.class)
class OddItemInDecimalsTest {
  private static final int ROWS = 3000;

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** An odd value as bits, and whether the page must then stay plain. */
  record Odd(String name, long bits, boolean neverDecimal) {}

  private static long f32(float x) {
    return Float.floatToRawIntBits(x) & 0xFFFFFFFFL;
  }

  private static long f64(double x) {
    return Double.doubleToRawLongBits(x);
  }

  static List<Odd> odds(boolean single) {
    List<Odd> o = new ArrayList<>();
    if (single) {
      o.add(new Odd("-0.0", 0x80000000L, true));
      o.add(new Odd("NaN", 0x7FC00000L, true));
      o.add(new Odd("NaN payload", 0x7FC00001L, true));
      o.add(new Odd("signalling NaN", 0x7F800001L, true));
      o.add(new Odd("negative NaN", 0xFFC00000L, true));
      o.add(new Odd("+inf", 0x7F800000L, true));
      o.add(new Odd("-inf", 0xFF800000L, true));
      o.add(new Odd("MIN_VALUE", 1, true));
      o.add(new Odd("largest subnormal", 0x007FFFFFL, true));
      o.add(new Odd("1e-10", f32(1e-10f), true));
      o.add(new Odd("0.1 + 0.2", f32(0.1f + 0.2f), false));
      o.add(new Odd("0.12345", f32(0.12345f), false));
      o.add(new Odd("MAX_VALUE", f32(Float.MAX_VALUE), true));
      o.add(new Odd("2^24 + 2", f32(0x1p24f + 2), false));
    } else {
      o.add(new Odd("-0.0", 0x8000000000000000L, true));
      o.add(new Odd("NaN", 0x7FF8000000000000L, true));
      o.add(new Odd("NaN payload", 0x7FF8000000000001L, true));
      o.add(new Odd("signalling NaN", 0x7FF0000000000001L, true));
      o.add(new Odd("negative NaN", 0xFFF8000000000000L, true));
      o.add(new Odd("+inf", 0x7FF0000000000000L, true));
      o.add(new Odd("-inf", 0xFFF0000000000000L, true));
      o.add(new Odd("MIN_VALUE", 1, true));
      o.add(new Odd("largest subnormal", 0x000FFFFFFFFFFFFFL, true));
      o.add(new Odd("1e-10", f64(1e-10), true));
      o.add(new Odd("0.1 + 0.2", f64(0.1 + 0.2), true));
      o.add(new Odd("0.123456789", f64(0.123456789), false));
      // 12345678.123456789 would not do: its double is 12345678.12345679, a decimal at scale 8.
      o.add(new Odd("9.3e9 + 1/3", f64(9.3e9 + 1.0 / 3), true));
      o.add(new Odd("2^53 + 2", f64(0x1p53 + 2), true));
      o.add(new Odd("(double) 0.1f", f64(0.1f), true));
      o.add(new Odd("1e300", f64(1e300), true));
    }
    return o;
  }

  static Stream<Arguments> cases() {
    List<Arguments> a = new ArrayList<>();
    for (boolean single : new boolean[] {true, false}) {
      for (boolean nullable : new boolean[] {false, true}) {
        for (Odd odd : odds(single)) {
          a.add(
              Arguments.of((single ? "float32 " : "float64 ") + odd.name(), single, nullable, odd));
        }
      }
    }
    return a.stream();
  }

  @ParameterizedTest(name = "{0}, nullable items {2}")
  @MethodSource("cases")
  void oneOddItemReadsBackExactly(
      String what, boolean single, boolean nullable, Odd odd, @Seed long seed) throws Exception {
    ArrowType type =
        new ArrowType.FloatingPoint(
            single ? FloatingPointPrecision.SINGLE : FloatingPointPrecision.DOUBLE);
    Field item = new Field("item", new FieldType(nullable, type, null), null);
    Schema schema = new Schema(List.of(f("l", ArrowType.List.INSTANCE, item)));
    SplittableRandom r = new SplittableRandom(seed);
    int oddRow = r.nextInt(ROWS);
    try (VectorSchemaRoot source = VectorSchemaRoot.create(schema, allocator)) {
      source.allocateNew();
      ListVector l = (ListVector) source.getVector(0);
      for (int row = 0; row < ROWS; row++) {
        int c = r.nextInt(3, 9);
        int at = l.startNewValue(row);
        int oddAt = row == oddRow ? r.nextInt(c) : -1;
        for (int t = 0; t < c; t++) {
          String text = BigDecimal.valueOf(r.nextLong(-100_000, 100_001), 3).toString();
          long bits =
              t == oddAt
                  ? odd.bits()
                  : single ? f32(Float.parseFloat(text)) : f64(Double.parseDouble(text));
          FloatBits.set(l.getDataVector(), at + t, bits, false);
        }
        l.endValue(row, c);
      }
      l.setValueCount(ROWS);
      source.setRowCount(ROWS);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (FileWriter w = FileWriter.create(out, schema, null, WriterOptions.defaults())) {
        w.write(source);
        w.finish();
      }
      byte[] b = out.toByteArray();
      try (FileReader f = FileReader.open(new BytesSource("odd.riffle", b), true, allocator)) {
        assertThat(f.pages(0)).as("one page").hasSize(1);
        if (odd.neverDecimal()) {
          assertThat(f.recordCensus(0).packedItemSectors()).as("packed item sectors").isZero();
        }
        long[] take = new long[ROWS + 100];
        for (int i = 0; i < take.length; i++) {
          take[i] = i < 100 ? oddRow : r.nextInt(ROWS);
        }
        try (VectorSchemaRoot got = f.take(take, null)) {
          for (int i = 0; i < take.length; i++) {
            FloatBits.assertSameValue(
                "take of row " + take[i], l, (int) take[i], got.getVector(0), i);
          }
        }
        int row = 0;
        try (ScanCursor c = f.scan(null, 1 + r.nextInt(ROWS))) {
          VectorSchemaRoot batch;
          while ((batch = c.next()) != null) {
            try (VectorSchemaRoot got = batch) {
              for (int i = 0; i < got.getRowCount(); i++, row++) {
                FloatBits.assertSameValue("scan of row " + row, l, row, got.getVector(0), i);
              }
            }
          }
        }
        assertThat(row).isEqualTo(ROWS);
      }
    }
  }
}
