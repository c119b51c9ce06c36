package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Packed float lists (format 1.4, FORMAT.md §5.3): lists of integer-valued floats (counts) stored
 * as bit-packed integers inside packed records, with an exact round trip of every float's bits, and
 * every other float list kept as it is.
 */
@ExtendWith(SeedExtension.class)
class PackedFloatsTest {
  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  private static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  /** Floats that are not packable integers: each makes its whole list plain. */
  private static final double[] NOT_INTEGERS = {
    -0.0, Double.NaN, 0.5, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0x1p63, -1e300, 3.25
  };

  /** A CSR-like group (sorted gene ids, float32 counts) and a standalone list of float64 counts. */
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              notNull(
                  "genes", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(32, true))),
              notNull("counts", ArrowType.List.INSTANCE, notNull("item", F32)),
              f("counts64", ArrowType.LargeList.INSTANCE, notNull("item", F64))));

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /**
   * Rows of 300–800 stored counts, mostly 1–3 with a long tail; one row in {@code oddEvery} gets
   * one value that is not a packable integer (or the largest float32 integers, which are).
   */
  private VectorSchemaRoot rows(int n, SplittableRandom r, int oddEvery) {
    return rows(n, r, oddEvery, false);
  }

  /**
   * As above; with {@code narrow}, row i's counts are {@code i % 4} plus a draw below {@code 2^(i %
   * 10)}, so the packed widths 0–9 all occur (the decoder has a separate path for widths up to 8).
   */
  private VectorSchemaRoot rows(int n, SplittableRandom r, int oddEvery, boolean narrow) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    ListVector genes = (ListVector) root.getVector("genes");
    ListVector counts = (ListVector) root.getVector("counts");
    var counts64 = (org.apache.arrow.vector.complex.LargeListVector) root.getVector("counts64");
    IntVector g = (IntVector) genes.getDataVector();
    Float4Vector c = (Float4Vector) counts.getDataVector();
    Float8Vector d = (Float8Vector) counts64.getDataVector();
    for (int i = 0; i < n; i++) {
      int k = 300 + r.nextInt(500);
      int a = genes.startNewValue(i);
      counts.startNewValue(i);
      long b = counts64.startNewValue(i);
      int gene = r.nextInt(20);
      for (int j = 0; j < k; j++) {
        gene += 1 + r.nextInt(30);
        g.setSafe(a + j, gene);
        double count =
            narrow
                ? i % 4 + r.nextInt(1 << (i % 10))
                : r.nextInt(10) < 7 ? 1 + r.nextInt(3) : Math.floor(Math.exp(r.nextDouble(8)));
        c.setSafe(a + j, (float) count);
        d.setSafe((int) b + j, count * (i % 3 == 0 ? -1 : 1));
      }
      if (i % oddEvery == oddEvery - 1) {
        int j = r.nextInt(k);
        double odd = NOT_INTEGERS[r.nextInt(NOT_INTEGERS.length)];
        c.setSafe(a + j, (float) odd);
        d.setSafe((int) b + j, odd);
      } else if (i % oddEvery == 1) {
        // Exact integers at the ends of the ranges still pack.
        c.setSafe(a, 16777216f);
        d.setSafe((int) b, -0x1p62);
        // Where a float-to-int conversion saturates or meets zero, the writer's fast path must
        // hand over to the general test: ±2^31 and 2^40 are integers, +0 packs, -0 does not.
        float[] edges = {0x1p31f, -0x1p31f, 0x1p40f, 0f};
        for (int j = 1; j < Math.min(k, 1 + edges.length); j++) {
          c.setSafe(a + j, edges[j - 1]);
        }
      }
      genes.endValue(i, k);
      counts.endValue(i, k);
      if (i % 7 == 3) {
        counts64.setNull(i);
      } else {
        counts64.endValue(i, k);
      }
    }
    root.setRowCount(n);
    return root;
  }

  private byte[] write(VectorSchemaRoot root, WriterOptions o) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileWriter w = FileWriter.create(out, SCHEMA, null, o)) {
      w.write(root);
      w.finish();
    }
    return out.toByteArray();
  }

  private FileReader open(String name, byte[] b) throws IOException {
    return FileReader.open(new BytesSource(name, b), true, allocator);
  }

  @Test
  void integerCountsRoundTripBitForBit(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    WriterOptions o =
        WriterOptions.defaults().withColumnGroup("genes", "counts").withPageBytes(64 * 1024);
    try (VectorSchemaRoot source = rows(120, r, 5)) {
      byte[] packed = write(source, o);
      byte[] zstd = write(source, o.withPackRecords(false));
      byte[] plain = write(source, o.withPackRecords(false).withZstdLevel(0));
      try (FileReader f = open("counts.riffle", packed);
          FileReader z = open("zstd.riffle", zstd);
          FileReader p = open("plain.riffle", plain)) {
        SameRows.assertSameRows("counts", f, source, r, 300, 50);
        long[] all = new long[source.getRowCount()];
        for (int i = 0; i < all.length; i++) {
          all[i] = all.length - 1 - i;
        }
        try (VectorSchemaRoot got = f.take(all, null)) {
          for (String name : List.of("counts", "counts64")) {
            assertSameBits(name, source, got, all);
          }
        }
        // Rows 4, 9, … hold a value that is not an integer; every 7th row from 3 has no counts64;
        // rows 1, 6, … pack, but their -2^62 needs 63 bits an item, so they stay plain.
        int rows = source.getRowCount();
        int integral = rows - rows / 5;
        int integral64 = 0;
        for (int i = 0; i < rows; i++) {
          integral64 += i % 5 != 4 && i % 5 != 1 && i % 7 != 3 ? 1 : 0;
        }
        assertThat(packedRecords(f, packed, 0))
            .as("packed group records (ids pack whatever the counts)")
            .isGreaterThanOrEqualTo(integral);
        assertThat(packedRecords(f, packed, 1))
            .as("packed counts64 records: the lists of integers")
            .isEqualTo(integral64);
        // Counts of 1–3 with a tail to about 3,000: ids and counts packed take a few bytes a
        // value, plain 16 (int32, float32, float64); and less than zstd's records.
        assertThat(dataBytes(f)).as("packed vs plain bytes").isLessThan(dataBytes(p) / 3);
        assertThat(dataBytes(f)).as("packed vs zstd bytes").isLessThan(dataBytes(z));
      }
    }
  }

  @Test
  void narrowCountsRoundTripBitForBit(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    WriterOptions o =
        WriterOptions.defaults().withColumnGroup("genes", "counts").withPageBytes(64 * 1024);
    try (VectorSchemaRoot source = rows(100, r, 7, true)) {
      try (FileReader f = open("narrow.riffle", write(source, o))) {
        SameRows.assertSameRows("narrow", f, source, r, 300, 50);
        long[] all = new long[source.getRowCount()];
        for (int i = 0; i < all.length; i++) {
          all[i] = all.length - 1 - i;
        }
        try (VectorSchemaRoot got = f.take(all, null)) {
          for (String name : List.of("counts", "counts64")) {
            assertSameBits(name, source, got, all);
          }
        }
      }
    }
  }

  /**
   * Normalised counts (log1p of counts times a per-row scale, as most atlases store X) are not
   * integers; their lists take form DICTIONARY, round-trip bit for bit, and take fewer bytes than
   * zstd records of the same rows.
   */
  @Test
  void normalizedCountsTakeFormDictionary(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    WriterOptions o =
        WriterOptions.defaults().withColumnGroup("genes", "counts").withPageBytes(64 * 1024);
    try (VectorSchemaRoot source = rows(80, r, 6)) {
      ListVector counts = (ListVector) source.getVector("counts");
      Float4Vector c = (Float4Vector) counts.getDataVector();
      var counts64 = (org.apache.arrow.vector.complex.LargeListVector) source.getVector("counts64");
      Float8Vector d = (Float8Vector) counts64.getDataVector();
      for (int i = 0; i < source.getRowCount(); i++) {
        double scale = 1e4 / (2000 + 97 * i);
        for (int j = counts.getElementStartIndex(i); j < counts.getElementEndIndex(i); j++) {
          c.set(j, (float) Math.log1p(c.get(j) * scale));
        }
        if (!counts64.isNull(i)) {
          for (long j = counts64.getElementStartIndex(i); j < counts64.getElementEndIndex(i); j++) {
            d.set((int) j, Math.log1p(d.get((int) j) * scale));
          }
        }
      }
      byte[] packed = write(source, o);
      byte[] zstd = write(source, o.withPackRecords(false));
      try (FileReader f = open("normalized.riffle", packed);
          FileReader z = open("zstd.riffle", zstd)) {
        SameRows.assertSameRows("normalized", f, source, r, 300, 50);
        long[] all = new long[source.getRowCount()];
        for (int i = 0; i < all.length; i++) {
          all[i] = all.length - 1 - i;
        }
        try (VectorSchemaRoot got = f.take(all, null)) {
          for (String name : List.of("counts", "counts64")) {
            assertSameBits(name, source, got, all);
          }
        }
        long nonNull64 = 0;
        for (int i = 0; i < source.getRowCount(); i++) {
          nonNull64 += counts64.isNull(i) ? 0 : 1;
        }
        assertThat(packedRecords(f, packed, 1))
            .as("packed counts64 records: every list, in form DICTIONARY")
            .isEqualTo(nonNull64);
        assertThat(dataBytes(f)).as("dictionary vs zstd bytes").isLessThan(dataBytes(z));
      }
    }
  }

  /** Every float and double of the two count lists of {@code got} has the source's exact bits. */
  private static void assertSameBits(
      String name, VectorSchemaRoot source, VectorSchemaRoot got, long[] rows) {
    var s = source.getVector(name);
    var g = got.getVector(name);
    for (int i = 0; i < rows.length; i++) {
      Object a = s.getObject((int) rows[i]);
      Object b = g.getObject(i);
      if (a == null || b == null) {
        assertThat(b).as("%s row %d", name, rows[i]).isEqualTo(a);
        continue;
      }
      List<?> la = (List<?>) a;
      List<?> lb = (List<?>) b;
      assertThat(lb).hasSameSizeAs(la);
      for (int j = 0; j < la.size(); j++) {
        long x =
            la.get(j) instanceof Float
                ? Float.floatToRawIntBits((Float) la.get(j))
                : Double.doubleToRawLongBits((Double) la.get(j));
        long y =
            lb.get(j) instanceof Float
                ? Float.floatToRawIntBits((Float) lb.get(j))
                : Double.doubleToRawLongBits((Double) lb.get(j));
        assertThat(y).as("%s row %d item %d bits", name, rows[i], j).isEqualTo(x);
      }
    }
  }

  /** ZIP_VAR records of stored column {@code c} with control VALID | PACKED. */
  private static long packedRecords(FileReader f, byte[] b, int c) throws IOException {
    long n = 0;
    for (PageInfo p : f.pages(c)) {
      if (p.layout() == ColumnLayout.LAYOUT_ZIP_VAR) {
        for (int k = 0; k < p.rowCount(); k++) {
          n += b[(int) (p.offset() + p.index().get(k))] == 9 ? 1 : 0;
        }
      }
    }
    return n;
  }

  private static long dataBytes(FileReader f) throws IOException {
    long n = 0;
    for (int c = 0; c < f.schema().columns().size(); c++) {
      for (PageInfo p : f.pages(c)) {
        n += p.byteLength();
      }
    }
    return n;
  }

  /** A form byte other than 0, 1 and 2 is corruption, named at the byte, behind a repaired CRC. */
  @Test
  void unknownFormIsCorruptionAtItsOffset(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    try (VectorSchemaRoot source = rows(30, r, 1000)) {
      byte[] b = write(source, WriterOptions.defaults().withPageBytes(64 * 1024));
      int formAt;
      try (FileReader f = open("f.riffle", b)) {
        // Column 1 is "counts" alone: record 0 is 09 | varint n (2 bytes: n >= 300) | form.
        PageInfo p = f.pages(1).get(0);
        assertThat(p.layout()).isEqualTo(ColumnLayout.LAYOUT_ZIP_VAR);
        formAt = (int) (p.offset() + p.index().get(0)) + 3;
        assertThat(b[formAt - 3]).isEqualTo((byte) 9);
        assertThat(b[formAt]).isEqualTo((byte) 1);
      }
      byte[] c = b.clone();
      c[formAt] = 7;
      CorruptionTest.repairChecksums(c);
      assertThatThrownBy(
              () -> {
                try (FileReader f = open("form.riffle", c);
                    VectorSchemaRoot got = f.take(new long[] {0}, List.of("counts"))) {
                  assertThat(got.getRowCount()).isEqualTo(1);
                }
              })
          .isInstanceOf(CorruptFileException.class)
          .hasMessage("form.riffle at offset " + formAt + ": unknown packed float list form 7");
      // Without the repair, the record CRC names the record.
      byte[] d = b.clone();
      d[formAt] = 7;
      assertThatThrownBy(
              () -> {
                try (FileReader f = open("crc.riffle", d);
                    VectorSchemaRoot got = f.take(new long[] {0}, List.of("counts"))) {
                  assertThat(got.getRowCount()).isEqualTo(1);
                }
              })
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining("fails its checksum");
    }
  }
}
