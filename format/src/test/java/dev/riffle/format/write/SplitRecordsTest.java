package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.UnsupportedVersionException;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Split records (FORMAT.md §5.3): wide float rows stored as byte planes. */
@ExtendWith(SeedExtension.class)
class SplitRecordsTest {
  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  private static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  // LISTS sectors and packed records off, so that a file's version shows what split records alone
  // do.
  private static final WriterOptions SPLIT =
      WriterOptions.defaults().withSplitFloats(true).withListSectors(false).withPackRecords(false);

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** A random schema of one wide float column: a vector, or a list of vectors; f32 or f64. */
  private static Schema randomSchema(SplittableRandom r) {
    ArrowType item = r.nextBoolean() ? F32 : F64;
    // Rows of at least 1200 bytes: smaller ones go to sectors.
    int dim = 300 + r.nextInt(600);
    Field vec =
        f(
            "unit_v",
            new ArrowType.FixedSizeList(dim),
            r.nextBoolean() ? notNull("item", item) : f("item", item));
    if (r.nextBoolean()) {
      return new Schema(List.of(vec));
    }
    return new Schema(
        List.of(
            f(
                "unit_l",
                ArrowType.List.INSTANCE,
                f("item", new ArrowType.FixedSizeList(dim), notNull("item", item)))));
  }

  private byte[] write(Schema schema, int rows, long dataSeed, double nullRate, WriterOptions o)
      throws IOException {
    return RandomData.file(schema, rows, dataSeed, nullRate, o, allocator);
  }

  private FileReader open(String name, byte[] b) throws IOException {
    return FileReader.open(new BytesSource(name, b), true, allocator);
  }

  /** Counts of ZIP_VAR records by control byte, over all columns: index = control value. */
  static long[] controls(FileReader r, byte[] b) throws IOException {
    long[] counts = new long[8];
    for (int c = 0; c < r.schema().columns().size(); c++) {
      for (PageInfo p : r.pages(c)) {
        if (p.layout() != ColumnLayout.LAYOUT_ZIP_VAR) {
          continue;
        }
        for (int k = 0; k < p.rowCount(); k++) {
          counts[b[(int) (p.offset() + p.index().get(k))] & 7]++;
        }
      }
    }
    return counts;
  }

  private static long dataBytes(FileReader r) throws IOException {
    long sum = 0;
    for (int c = 0; c < r.schema().columns().size(); c++) {
      for (PageInfo p : r.pages(c)) {
        sum += p.byteLength();
      }
    }
    return sum;
  }

  @Test
  void randomFloatRowsRoundTripSmallerThanUnsplit(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 4; round++) {
      Schema schema = randomSchema(r);
      int rows = 20 + r.nextInt(200);
      double nullRate = r.nextInt(3) * 0.1;
      long dataSeed = r.nextLong();
      WriterOptions o = SPLIT.withPageBytes(4096 << r.nextInt(6));
      String what = "round " + round + ", " + schema + ", " + rows + " rows";
      byte[] split = write(schema, rows, dataSeed, nullRate, o);
      byte[] plain = write(schema, rows, dataSeed, nullRate, o.withSplitFloats(false));
      try (FileReader a = open("split.riffle", split);
          FileReader b = open("plain.riffle", plain);
          VectorSchemaRoot source =
              RandomData.generate(schema, rows, dataSeed, nullRate, allocator)) {
        assertThat(controls(a, split)[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT])
            .as(what + ": split records")
            .isPositive();
        assertThat(controls(b, plain)[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT])
            .as(what)
            .isZero();
        // Pages hold the same rows either way, and every split record is smaller than its
        // plain form. (The file need not be smaller: with small pages, 4 KiB alignment can eat
        // the gain while ZIP_VAR adds an index to the column block.)
        assertThat(dataBytes(a)).as(what + ": page bytes").isLessThan(dataBytes(b));
        SameRows.assertSameRows(what, a, source, r, Integer.MAX_VALUE, 50);
      }
    }
  }

  @Test
  void aSplitRowIsOneReadOfExactlyItsRecord() throws Exception {
    Schema schema =
        new Schema(List.of(f("unit_v", new ArrowType.FixedSizeList(768), notNull("item", F32))));
    byte[] b = write(schema, 40, 7, 0.1, SPLIT);
    try (FileReader r = open("one-read.riffle", b)) {
      r.loadColumns(null);
      PageInfo p = r.pages(0).get(0);
      assertThat(p.layout()).isEqualTo(ColumnLayout.LAYOUT_ZIP_VAR);
      for (int k = 0; k < p.rowCount(); k++) {
        r.stats().reset();
        try (VectorSchemaRoot got = r.take(new long[] {p.firstRow() + k}, null)) {
          assertThat(got.getRowCount()).isEqualTo(1);
        }
        assertThat(r.stats().reads()).isEqualTo(1);
        assertThat(r.stats().rounds()).isEqualTo(1);
        assertThat(r.stats().bytesRead()).isEqualTo(p.index().get(k + 1) - p.index().get(k));
      }
    }
  }

  /** The file CorruptionTest damages in every way it knows does hold split records. */
  @Test
  void theCorruptionTestFileHasSplitRecords() throws Exception {
    TypeCase c =
        CorruptionTest.fileCases().stream()
            .filter(t -> t.name.equals("zip_split"))
            .findFirst()
            .orElseThrow();
    byte[] b =
        CorruptionTest.writeFile(c, c.severalPagesRows, 1, CorruptionTest.NULL_RATE, allocator);
    try (FileReader r = open("zip_split.riffle", b)) {
      long[] controls = controls(r, b);
      assertThat(controls[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT]).isPositive();
      assertThat(r.pages(0).size()).isGreaterThan(1);
    }
  }

  @Test
  void splitRecordsAreOffByDefault() throws Exception {
    Schema schema =
        new Schema(List.of(f("unit_v", new ArrowType.FixedSizeList(500), notNull("item", F32))));
    byte[] on = write(schema, 30, 11, 0.1, SPLIT);
    byte[] byDefault = write(schema, 30, 11, 0.1, WriterOptions.defaults());
    assertThat(byDefault).isEqualTo(write(schema, 30, 11, 0.1, SPLIT.withSplitFloats(false)));
    assertThat(on.length).isLessThan(byDefault.length);
  }

  @Test
  void filesWithoutWideFloatColumnsAreUnchanged() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                f("x", F32),
                f("long_text", ArrowType.Utf8.INSTANCE),
                f("list", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(32, true)))));
    byte[] on = write(schema, 300, 3, 0.1, SPLIT);
    byte[] off = write(schema, 300, 3, 0.1, SPLIT.withSplitFloats(false));
    assertThat(on).isEqualTo(off);
  }

  @Test
  void draftVersionsAndNewerVersionsAreRefusedByTheirNumber() throws Exception {
    Schema schema =
        new Schema(List.of(f("unit_v", new ArrowType.FixedSizeList(500), notNull("item", F32))));
    byte[] b = write(schema, 30, 11, 0, SPLIT);
    try (FileReader r = open("current.riffle", b)) {
      assertThat(r.formatVersion()).isEqualTo("1.4");
    }
    // 1.1 to 1.3 were drafts folded into 1.0 (spec/CHANGES.md): refused, and said so.
    for (int draft = 1; draft <= FileLayout.LAST_DRAFT_MINOR; draft++) {
      String name = "as-1." + draft + ".riffle";
      byte[] relabelled = withMinor(b, draft);
      assertThatThrownBy(() -> open(name, relabelled).close())
          .isInstanceOf(UnsupportedVersionException.class)
          .hasMessageContaining(name + " at offset")
          .hasMessageContaining("format version 1." + draft + " is not supported")
          .hasMessageContaining("pre-release draft of 1.0");
    }
    // A newer minor is refused by its number, before anything else is read.
    assertThatThrownBy(() -> open("as-1.5.riffle", withMinor(b, 5)).close())
        .isInstanceOf(UnsupportedVersionException.class)
        .hasMessageContaining("format version 1.5 is not supported; this reader reads 1.0 and 1.4")
        .hasMessageNotContaining("draft");
  }

  private static byte[] withMinor(byte[] b, int minor) {
    byte[] c = b.clone();
    ByteBuffer buf = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
    buf.putShort(10, (short) minor);
    buf.putShort(
        c.length - FooterLayout.FOOTER_BYTES + FooterLayout.FOOTER_VERSION_MINOR, (short) minor);
    CorruptionTest.repairChecksums(c);
    return c;
  }

  /**
   * Every byte of the header and frame lengths of split records, and bytes of their planes, set to
   * other values: a take of the row decodes or reports corruption naming the file and an offset in
   * it, never anything else (records of ZIP_VAR pages have no checksum a take checks).
   */
  @Test
  void damagedSplitRecordsAreReportedAsCorrupt(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    Schema schema =
        new Schema(List.of(f("unit_v", new ArrowType.FixedSizeList(300), notNull("item", F32))));
    byte[] b = write(schema, 12, 5, 0, SPLIT.withPageBytes(4096));
    List<long[]> records = new ArrayList<>(); // {row, offset, length}
    try (FileReader rd = open("x", b)) {
      for (PageInfo p : rd.pages(0)) {
        for (int k = 0; k < p.rowCount(); k++) {
          long at = p.offset() + p.index().get(k);
          if ((b[(int) at] & ZipLayout.CONTROL_SPLIT) != 0) {
            records.add(new long[] {p.firstRow() + k, at, p.index().get(k + 1) - p.index().get(k)});
          }
        }
      }
    }
    assertThat(records).isNotEmpty();
    int corrupt = 0;
    for (long[] rec : records.subList(0, Math.min(3, records.size()))) {
      int len = (int) rec[2];
      for (int i = 1; i < len; i++) {
        if (i > 24 && r.nextInt(16) != 0) {
          continue;
        }
        for (int value : new int[] {0, 1, 3, 0x7F, 0x80, 0xFF, b[(int) rec[1] + i] ^ 0x10}) {
          byte[] c = b.clone();
          c[(int) rec[1] + i] = (byte) value;
          String name = "split-" + rec[0] + "-" + i + "-" + value + ".riffle";
          try (FileReader rd = open(name, c);
              VectorSchemaRoot got = rd.take(new long[] {rec[0]}, null)) {
            assertThat(got.getRowCount()).isEqualTo(1);
          } catch (CorruptFileException e) {
            corrupt++;
            assertThat(CorruptionTest.messageProblem(e, name, c.length)).isNull();
            assertThat(e.offset()).as(e.getMessage()).isBetween(rec[1], rec[1] + (1L << 20));
          }
        }
      }
    }
    assertThat(corrupt).as("damage found").isPositive();
  }
}
