package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;
import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.encoding.DecimalFloats;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.FloatBits;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Items that all restore from the same decimal take no bits (FORMAT.md §5.1, packed decimal items),
 * so a LISTS sector of them is bounded only by its limits: 65,536 items, 32,768 rows. Sectors
 * filled exactly to each limit read back bit for bit.
 */
class PackedItemLimitsTest {
  private static final int ROWS = 40_000;

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              // 64 items of 0.5f a row: 1,024 rows reach 65,536 items.
              notNull(
                  "z",
                  ArrowType.List.INSTANCE,
                  notNull("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))),
              // One item of -2.5 a row: 32,768 rows come first.
              f(
                  "one",
                  ArrowType.LargeList.INSTANCE,
                  f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))));

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void zeroBitItemsFillSectorsToTheirLimits() throws Exception {
    try (VectorSchemaRoot source = VectorSchemaRoot.create(SCHEMA, allocator)) {
      source.allocateNew();
      ListVector z = (ListVector) source.getVector("z");
      LargeListVector one = (LargeListVector) source.getVector("one");
      for (int row = 0; row < ROWS; row++) {
        int at = z.startNewValue(row);
        for (int t = 0; t < 64; t++) {
          FloatBits.set(z.getDataVector(), at + t, Float.floatToRawIntBits(0.5f), false);
        }
        z.endValue(row, 64);
        long first = one.startNewValue(row);
        FloatBits.set(one.getDataVector(), (int) first, Double.doubleToRawLongBits(-2.5), false);
        one.endValue(row, 1);
      }
      source.setRowCount(ROWS);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (FileWriter w = FileWriter.create(out, SCHEMA, null, WriterOptions.defaults())) {
        w.write(source);
        w.finish();
      }
      byte[] b = out.toByteArray();
      try (FileReader f = FileReader.open(new BytesSource("limits.riffle", b), true, allocator)) {
        assertFirstSector(f, b, 0, 1024, DecimalFloats.MAX_ITEMS);
        assertFirstSector(f, b, 1, SectorLayout.MAX_ROWS, SectorLayout.MAX_ROWS);
        long[] take = new long[3000];
        SplittableRandom r = new SplittableRandom(ROWS);
        for (int i = 0; i < take.length; i++) {
          // Around the ends of sectors, and anywhere.
          take[i] =
              i % 2 == 0
                  ? r.nextInt(ROWS)
                  : (r.nextInt(40) * 1024L + r.nextInt(-2, 2) + ROWS) % ROWS;
        }
        try (VectorSchemaRoot got = f.take(take, null)) {
          for (int i = 0; i < take.length; i++) {
            assertSameRow("take", source, (int) take[i], got, i);
          }
        }
        int row = 0;
        try (ScanCursor c = f.scan(null, 5000)) {
          VectorSchemaRoot batch;
          while ((batch = c.next()) != null) {
            try (VectorSchemaRoot got = batch) {
              for (int i = 0; i < got.getRowCount(); i++, row++) {
                assertSameRow("scan", source, row, got, i);
              }
            }
          }
        }
        assertThat(row).isEqualTo(ROWS);
      }
    }
  }

  private static void assertSameRow(
      String what, VectorSchemaRoot source, int w, VectorSchemaRoot got, int g) {
    for (FieldVector v : source.getFieldVectors()) {
      FloatBits.assertSameValue(
          what + ", " + v.getName() + " row " + w, v, w, got.getVector(v.getName()), g);
    }
  }

  /** Column {@code c}'s first sector: packed items of 0 bits, {@code rows} rows, {@code items}. */
  private static void assertFirstSector(FileReader f, byte[] file, int c, int rows, int items)
      throws Exception {
    PageInfo page = f.pages(c).get(0);
    assertThat(page.layout()).isEqualTo(ColumnLayout.LAYOUT_SECTORS);
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int at = (int) page.offset();
    assertThat(b.get(at + SectorLayout.CODEC_OFFSET)).isEqualTo((byte) SectorLayout.CODEC_LISTS);
    int flags = b.get(at + SectorLayout.FLAGS_OFFSET);
    assertThat(flags).isEqualTo(SectorLayout.FLAG_PACKED_ITEMS);
    assertThat(b.getShort(at + SectorLayout.ROW_COUNT_OFFSET) & 0xFFFF).isEqualTo(rows);
    // Equal counts take no bits either: the item header follows the sector header.
    assertThat(b.get(at + SectorLayout.BIT_WIDTH_OFFSET)).isZero();
    assertThat(b.getLong(at + SectorLayout.REFERENCE_OFFSET) * rows).isEqualTo(items);
    assertThat(b.get(at + SectorLayout.HEADER_BYTES + 1)).as("item bits").isZero();
  }
}
