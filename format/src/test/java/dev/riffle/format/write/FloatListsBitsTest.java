package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.FileLayout;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.encoding.Bitmaps;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.RecordCensus;
import dev.riffle.format.testing.FloatBits;
import dev.riffle.format.testing.FloatListsData;
import dev.riffle.format.testing.ReadPaths;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every float of every list kind reads back with its exact bits (format 1.4: packed decimal items
 * in LISTS sectors, LISTS sectors of nullable items, packed float lists in records; and plain,
 * compressed and split records), whatever the writer chose: adversarial values ({@link
 * FloatListsData}) written with several writer options, read back by takes of random rows in any
 * order with repeats, whole scans, scans of row ranges, selective scans and a parallel take from a
 * file, and compared bit for bit with the source. Each variant also checks, from the file's bytes,
 * that the encodings it is there for were used, so that the test cannot silently stop covering
 * them.
 */
@ExtendWith(SeedExtension.class)
class FloatListsBitsTest {
  private static final int ROWS = 5000;

  @TempDir Path dir;
  BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  static Stream<Arguments> variants() {
    WriterOptions d = WriterOptions.defaults();
    return Stream.of(
        // Small pages: each forced run spans pages of its own, so pages differ in scale.
        Arguments.of("small pages", d.withPageBytes(16 * 1024)),
        Arguments.of("defaults", d),
        Arguments.of("no zstd", d.withZstdLevel(0).withPageBytes(32 * 1024)),
        Arguments.of(
            "split, grouped",
            d.withSplitFloats(true)
                .withColumnGroup("f32", "f64")
                .withColumnGroup("f32n", "f64n", "f32s", "st")
                .withPageBytes(64 * 1024)),
        Arguments.of(
            "records only",
            d.withListSectors(false).withPackRecords(false).withCompressSectors(false)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("variants")
  void everyFloatReadsBackBitForBit(String variant, WriterOptions options, @Seed long seed)
      throws Exception {
    roundTrip(variant, options, seed);
  }

  /** Writes the rows that {@code seed} draws with {@code options}, then reads them back. */
  void roundTrip(String variant, WriterOptions options, long seed) throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    try (VectorSchemaRoot source = FloatListsData.generate(ROWS, r, allocator)) {
      byte[] file = write(source, options, r);
      try (FileReader f = FileReader.open(new BytesSource(variant, file), true, allocator)) {
        ReadPaths.RowCheck check = (what, w, got, g) -> assertSameRow(what, source, w, got, g);
        ReadPaths.takes(variant, f, ROWS, check, r);
        ReadPaths.scans(variant, f, ROWS, check, r);
        switch (variant) {
          case "small pages":
            smallPagesCoverage(f, file);
            break;
          case "split, grouped":
            int fx64 = f.schema().columnOf(f.schema().fieldIndex("fx64"));
            long split = f.recordCensus(fx64).counts()[RecordCensus.KIND_SPLIT];
            assertThat(split).as("split fx64 records").isPositive();
            break;
          case "defaults":
            ReadPaths.parallelTake(dir, file, ROWS, check, r, allocator);
            break;
          default:
        }
      }
    }
  }

  /** Writes {@code source} in a few batches of random sizes. */
  private static byte[] write(VectorSchemaRoot source, WriterOptions o, SplittableRandom r)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileWriter w = FileWriter.create(out, source.getSchema(), null, o)) {
      int rows = source.getRowCount();
      for (int at = 0; at < rows; ) {
        int n = Math.min(rows - at, 1 + r.nextInt(rows));
        try (VectorSchemaRoot batch = source.slice(at, n)) {
          w.write(batch);
        }
        at += n;
      }
      w.finish();
    }
    return out.toByteArray();
  }

  /** Row {@code g} of every column of {@code got} is row {@code w} of the source, bit for bit. */
  private static void assertSameRow(
      String what, VectorSchemaRoot source, int w, VectorSchemaRoot got, int g) {
    for (int c = 0; c < source.getFieldVectors().size(); c++) {
      String name = source.getSchema().getFields().get(c).getName();
      FloatBits.assertSameValue(
          what + ", " + name + " row " + w, source.getVector(c), w, got.getVector(name), g);
    }
  }

  /**
   * With small pages every encoding occurs: packed decimal items at two scales or more, LISTS and
   * RECORDS sectors in columns of nullable items, compressed sectors, packed records of forms
   * INTEGERS and DICTIONARY (and packed float lists inside lists and structs), ZIP_FIXED pages of
   * fixed-size lists and FLAT sectors of scalar floats.
   */
  private static void smallPagesCoverage(FileReader f, byte[] file) throws IOException {
    String[] lists = {"f32", "f32n", "f64", "f64n", "f32large"};
    long compressed = 0;
    for (String name : lists) {
      int c = f.schema().columnOf(f.schema().fieldIndex(name));
      RecordCensus census = f.recordCensus(c);
      assertThat(census.sectors()[SectorLayout.CODEC_LISTS])
          .as(name + ": LISTS sectors")
          .isPositive();
      assertThat(census.packedItemSectors()).as(name + ": packed item sectors").isPositive();
      assertThat(packedScales(f, file, c))
          .as(name + ": scales of packed item sectors")
          .hasSizeGreaterThanOrEqualTo(2);
      assertThat(census.counts()[RecordCensus.KIND_PACKED])
          .as(name + ": packed records")
          .isPositive();
      boolean nullableItems = name.endsWith("n");
      if (nullableItems) {
        assertThat(census.sectors()[SectorLayout.CODEC_RECORDS])
            .as(name + ": RECORDS sectors (lists with a null item)")
            .isPositive();
      }
      long[] forms = packedForms(f, file, c, nullableItems);
      assertThat(forms[1]).as(name + ": packed lists of form INTEGERS").isPositive();
      assertThat(forms[2]).as(name + ": packed lists of form DICTIONARY").isPositive();
      compressed += Arrays.stream(census.zstdSectors()).sum();
    }
    assertThat(compressed).as("compressed sectors").isPositive();
    for (String name : List.of("nested", "st")) {
      int c = f.schema().columnOf(f.schema().fieldIndex(name));
      assertThat(f.recordCensus(c).counts()[RecordCensus.KIND_PACKED])
          .as(name + ": packed records (float lists inside)")
          .isPositive();
    }
    for (String name : List.of("f32s", "f64s")) {
      int c = f.schema().columnOf(f.schema().fieldIndex(name));
      assertThat(f.recordCensus(c).sectors()[SectorLayout.CODEC_FLAT])
          .as(name + ": FLAT sectors")
          .isPositive();
    }
    int fx64 = f.schema().columnOf(f.schema().fieldIndex("fx64"));
    assertThat(f.pages(fx64))
        .as("fx64 pages")
        .anyMatch(p -> p.layout() == ColumnLayout.LAYOUT_ZIP_FIXED);
  }

  /** The scales of stored column {@code c}'s LISTS sectors with packed items (FORMAT.md §5.1). */
  private static Set<Integer> packedScales(FileReader f, byte[] file, int c) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    Set<Integer> scales = new TreeSet<>();
    for (PageInfo p : f.pages(c)) {
      if (p.layout() != ColumnLayout.LAYOUT_SECTORS) {
        continue;
      }
      for (long s = p.offset(); s < p.offset() + p.byteLength(); s += FileLayout.SECTOR_BYTES) {
        int at = (int) s;
        int flags = b.get(at + SectorLayout.FLAGS_OFFSET);
        if (b.get(at + SectorLayout.CODEC_OFFSET) != SectorLayout.CODEC_LISTS
            || (flags & SectorLayout.FLAG_PACKED_ITEMS) == 0) {
          continue;
        }
        int n = b.getShort(at + SectorLayout.ROW_COUNT_OFFSET) & 0xFFFF;
        int bitWidth = b.get(at + SectorLayout.BIT_WIDTH_OFFSET);
        int items = at + SectorLayout.HEADER_BYTES;
        int valid = n;
        if ((flags & SectorLayout.FLAG_VALIDITY) != 0) {
          valid = Bitmaps.rank(b, items, n);
          items += Bitmaps.bytes(n);
        }
        items += (int) (((long) valid * bitWidth + 7) / 8);
        scales.add((int) b.get(items));
      }
    }
    return scales;
  }

  /**
   * Stored column {@code c}'s packed float lists by form (FORMAT.md §5.3: control 0x09, then, for
   * nullable items, the null-items byte 0, then the count and the form byte).
   */
  private static long[] packedForms(FileReader f, byte[] file, int c, boolean nullableItems)
      throws IOException {
    long[] forms = new long[256];
    for (PageInfo p : f.pages(c)) {
      if (p.layout() != ColumnLayout.LAYOUT_ZIP_VAR) {
        continue;
      }
      for (int k = 0; k < p.rowCount(); k++) {
        int at = (int) (p.offset() + p.index().get(k));
        if (file[at++] != 9 || (nullableItems && file[at++] != 0)) {
          continue;
        }
        long n = 0;
        for (int shift = 0; ; shift += 7) {
          int x = file[at++];
          n |= (long) (x & 0x7F) << shift;
          if (x >= 0) {
            break;
          }
        }
        if (n > 0) {
          forms[file[at] & 0xFF]++;
        }
      }
    }
    return forms;
  }
}
