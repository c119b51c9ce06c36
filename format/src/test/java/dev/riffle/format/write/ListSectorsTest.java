package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;
import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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

/** LISTS sectors (FORMAT.md §5.1): lists of fixed-width items with packed counts. */
@ExtendWith(SeedExtension.class)
class ListSectorsTest {
  // Packed records off, so that a file's version shows what LISTS sectors alone do.
  private static final WriterOptions LISTS =
      WriterOptions.defaults().withListSectors(true).withPackRecords(false);

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private static final List<ArrowType> ITEMS =
      List.of(
          new ArrowType.Int(64, false),
          new ArrowType.Int(32, true),
          new ArrowType.Int(8, true),
          ArrowType.Bool.INSTANCE,
          new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
          new ArrowType.FixedSizeBinary(20),
          new ArrowType.Decimal(20, 3, 128));

  /**
   * One to three list columns of random item types, list or large list, nullable or not, items
   * nullable (1.4) or not.
   */
  private static Schema randomSchema(SplittableRandom r) {
    List<Field> fields = new ArrayList<>();
    int n = 1 + r.nextInt(3);
    for (int i = 0; i < n; i++) {
      ArrowType item = ITEMS.get(r.nextInt(ITEMS.size()));
      ArrowType list = r.nextBoolean() ? ArrowType.List.INSTANCE : ArrowType.LargeList.INSTANCE;
      Field items = r.nextInt(3) == 0 ? f("item", item) : notNull("item", item);
      fields.add(r.nextBoolean() ? f("l" + i, list, items) : notNull("l" + i, list, items));
    }
    return new Schema(fields);
  }

  private byte[] write(Schema schema, int rows, long dataSeed, double nullRate, WriterOptions o)
      throws IOException {
    return RandomData.file(schema, rows, dataSeed, nullRate, o, allocator);
  }

  private FileReader open(String name, byte[] b) throws IOException {
    return FileReader.open(new BytesSource(name, b), true, allocator);
  }

  /** Sectors per codec of every column: index = codec. */
  static long[] codecs(FileReader r, byte[] b) throws IOException {
    long[] counts = new long[4];
    for (int c = 0; c < r.schema().columns().size(); c++) {
      for (PageInfo p : r.pages(c)) {
        if (p.layout() != ColumnLayout.LAYOUT_SECTORS) {
          continue;
        }
        for (long at = p.offset(); at < p.offset() + p.byteLength(); at += 4096) {
          counts[b[(int) at + SectorLayout.CODEC_OFFSET] & 3]++;
        }
      }
    }
    return counts;
  }

  @Test
  void randomListsRoundTripInFewerSectors(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 6; round++) {
      Schema schema = randomSchema(r);
      int rows = 1 + r.nextInt(3000);
      double nullRate = r.nextInt(3) * 0.2;
      long dataSeed = r.nextLong();
      WriterOptions o = LISTS.withPageBytes(4096 << r.nextInt(5)).withZstdLevel(r.nextInt(2) * 3);
      String what = "round " + round + ", " + schema + ", " + rows + " rows";
      byte[] lists = write(schema, rows, dataSeed, nullRate, o);
      byte[] plain = write(schema, rows, dataSeed, nullRate, o.withListSectors(false));
      try (FileReader a = open("lists.riffle", lists);
          FileReader b = open("plain.riffle", plain);
          VectorSchemaRoot source =
              RandomData.generate(schema, rows, dataSeed, nullRate, allocator)) {
        long[] ca = codecs(a, lists);
        long[] cb = codecs(b, plain);
        assertThat(cb[SectorLayout.CODEC_LISTS]).as(what).isZero();
        boolean nullItems =
            nullRate > 0
                && schema.getFields().stream()
                    .anyMatch(field -> field.getChildren().get(0).isNullable());
        if (o.zstdLevel() == 0 && !nullItems) {
          assertThat(ca[SectorLayout.CODEC_RECORDS]).as(what + ": record sectors").isZero();
        }
        assertThat(ca[0] + ca[1] + ca[2] + ca[3])
            .as(what + ": sectors")
            .isLessThanOrEqualTo(cb[0] + cb[1] + cb[2] + cb[3]);
        SameRows.assertSameRows(what, a, source, r, 500, 700);
      }
    }
  }

  /**
   * The files CorruptionTest damages in every way it knows have LISTS sectors in both columns (and
   * for lists of nullable items, RECORDS sectors too).
   */
  @Test
  void theCorruptionTestFilesHaveListSectors() throws Exception {
    for (String name :
        List.of("sectors_lists", "sectors_lists_nullable_items", "sectors_lists_decimals")) {
      TypeCase c =
          CorruptionTest.fileCases().stream()
              .filter(t -> t.name.equals(name))
              .findFirst()
              .orElseThrow();
      byte[] b =
          CorruptionTest.writeFile(c, c.severalPagesRows, 1, CorruptionTest.NULL_RATE, allocator);
      assertListSectors(name, b);
      if (name.endsWith("nullable_items")) {
        try (FileReader r = open(name + ".riffle", b)) {
          assertThat(codecs(r, b)[SectorLayout.CODEC_RECORDS]).as(name).isPositive();
        }
      }
      if (name.endsWith("decimals")) {
        try (FileReader r = open(name + ".riffle", b)) {
          for (int col = 0; col < 2; col++) {
            assertThat(packedItemSectors(r, b, col)).as(name + " column " + col).isPositive();
          }
        }
      }
    }
  }

  private void assertListSectors(String name, byte[] b) throws IOException {
    try (FileReader r = open(name + ".riffle", b)) {
      assertThat(r.pages(0).size()).isGreaterThan(1);
      for (int col = 0; col < 2; col++) {
        int lists = 0;
        for (PageInfo p : r.pages(col)) {
          for (long at = p.offset(); at < p.offset() + p.byteLength(); at += 4096) {
            lists += b[(int) at + SectorLayout.CODEC_OFFSET] == SectorLayout.CODEC_LISTS ? 1 : 0;
          }
        }
        assertThat(lists).as("LISTS sectors in column " + col).isPositive();
      }
    }
  }

  /** FORMAT.md §5.1, Example E, byte for byte. */
  @Test
  void specExampleE() throws Exception {
    Schema schema =
        new Schema(List.of(f("list_u64", ArrowType.List.INSTANCE, notNull("item", ITEMS.get(0)))));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileWriter w = FileWriter.create(out, schema, null, LISTS)) {
      org.apache.arrow.vector.complex.ListVector l =
          (org.apache.arrow.vector.complex.ListVector) root.getVector(0);
      org.apache.arrow.vector.UInt8Vector items =
          (org.apache.arrow.vector.UInt8Vector) l.getDataVector();
      root.allocateNew();
      int at = l.startNewValue(0);
      items.setSafe(at, 7);
      items.setSafe(at + 1, 8);
      l.endValue(0, 2);
      l.setNull(1);
      at = l.startNewValue(2);
      items.setSafe(at, 9);
      l.endValue(2, 1);
      l.setValueCount(3);
      root.setRowCount(3);
      w.write(root);
      w.finish();
    }
    byte[] b = out.toByteArray();
    byte[] sector =
        java.util.Arrays.copyOfRange(b, FileLayout.DATA_OFFSET, FileLayout.DATA_OFFSET + 42);
    assertThat(java.util.HexFormat.of().formatHex(sector))
        .isEqualTo(
            "0300030101080000"
                + "0100000000000000"
                + "05"
                + "01"
                + "0700000000000000"
                + "0800000000000000"
                + "0900000000000000");
  }

  /**
   * FORMAT.md §5.1, Example G, byte for byte: the two rows written plain, their sector replaced by
   * the example's bytes (checksums repaired), read back by take and by scan.
   */
  @Test
  void specExampleG() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                notNull(
                    "l",
                    ArrowType.List.INSTANCE,
                    notNull("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileWriter w = FileWriter.create(out, schema, null, LISTS)) {
      org.apache.arrow.vector.complex.ListVector l =
          (org.apache.arrow.vector.complex.ListVector) root.getVector(0);
      org.apache.arrow.vector.Float4Vector items =
          (org.apache.arrow.vector.Float4Vector) l.getDataVector();
      root.allocateNew();
      int at = l.startNewValue(0);
      items.setSafe(at, 0.5f);
      items.setSafe(at + 1, -0.25f);
      l.endValue(0, 2);
      at = l.startNewValue(1);
      items.setSafe(at, 0.125f);
      l.endValue(1, 1);
      l.setValueCount(2);
      root.setRowCount(2);
      w.write(root);
      w.finish();
    }
    byte[] b = out.toByteArray();
    byte[] example =
        java.util.HexFormat.of()
            .parseHex(
                "0200030401040000"
                    + "0100000000000000"
                    + "01"
                    + "030A06FFFFFFFFFFFFFF"
                    + "EE027017");
    int sector = FileLayout.DATA_OFFSET;
    assertThat(b[sector + SectorLayout.CODEC_OFFSET]).isEqualTo((byte) SectorLayout.CODEC_LISTS);
    java.util.Arrays.fill(b, sector, sector + SectorLayout.CRC_OFFSET, (byte) 0);
    System.arraycopy(example, 0, b, sector, example.length);
    CorruptionTest.repairChecksums(b);
    try (FileReader r = open("example-g.riffle", b);
        VectorSchemaRoot taken = r.take(new long[] {1, 0}, null)) {
      assertThat(taken.getVector(0).getObject(0).toString()).isEqualTo("[0.125]");
      assertThat(taken.getVector(0).getObject(1).toString()).isEqualTo("[0.5,-0.25]");
      try (var cursor = r.scan(null, 10);
          VectorSchemaRoot scanned = cursor.next()) {
        assertThat(scanned.getVector(0).getObject(0).toString()).isEqualTo("[0.5,-0.25]");
      }
    }
  }

  @Test
  void aRowIsOneSectorRead(@Seed long seed) throws Exception {
    Schema schema =
        new Schema(List.of(f("list_u64", ArrowType.List.INSTANCE, notNull("item", ITEMS.get(0)))));
    byte[] b = write(schema, 3000, 9, 0.1, LISTS);
    try (FileReader r = open("one-read.riffle", b)) {
      assertThat(codecs(r, b)[SectorLayout.CODEC_LISTS]).isGreaterThan(1);
      r.loadColumns(null);
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int i = 0; i < 50; i++) {
        r.stats().reset();
        try (VectorSchemaRoot got = r.take(new long[] {rnd.nextInt(3000)}, null)) {
          assertThat(got.getRowCount()).isEqualTo(1);
        }
        assertThat(r.stats().reads()).isEqualTo(1);
        assertThat(r.stats().sectors()).isEqualTo(1);
        assertThat(r.stats().bytesRead()).isEqualTo(FileLayout.SECTOR_BYTES);
      }
    }
  }

  @Test
  void onByDefaultAndOnlyForListsOfFixedWidthItems() throws Exception {
    Schema lists =
        new Schema(List.of(f("list_u64", ArrowType.List.INSTANCE, notNull("item", ITEMS.get(0)))));
    byte[] byDefault = write(lists, 500, 3, 0.1, WriterOptions.defaults().withPackRecords(false));
    assertThat(byDefault).isEqualTo(write(lists, 500, 3, 0.1, LISTS));
    try (FileReader r = open("default.riffle", byDefault);
        FileReader off =
            open("off.riffle", write(lists, 500, 3, 0.1, LISTS.withListSectors(false)))) {}
    // Variable-width items, fixed-size lists: not LISTS columns; the file is as before.
    Schema others =
        new Schema(
            List.of(
                f("b", ArrowType.List.INSTANCE, notNull("item", ArrowType.Utf8.INSTANCE)),
                f("c", new ArrowType.FixedSizeList(3), notNull("item", ITEMS.get(1)))));
    assertThat(write(others, 500, 3, 0.1, LISTS))
        .isEqualTo(write(others, 500, 3, 0.1, LISTS.withListSectors(false)));
  }

  /** Sectors of every column whose flags have {@link SectorLayout#FLAG_PACKED_ITEMS}. */
  static long packedItemSectors(FileReader r, byte[] b) throws IOException {
    long n = 0;
    for (int c = 0; c < r.schema().columns().size(); c++) {
      n += packedItemSectors(r, b, c);
    }
    return n;
  }

  /** Sectors of column {@code c} whose flags have {@link SectorLayout#FLAG_PACKED_ITEMS}. */
  static long packedItemSectors(FileReader r, byte[] b, int c) throws IOException {
    long n = 0;
    for (PageInfo p : r.pages(c)) {
      if (p.layout() != ColumnLayout.LAYOUT_SECTORS) {
        continue;
      }
      for (long at = p.offset(); at < p.offset() + p.byteLength(); at += 4096) {
        n +=
            (b[(int) at + SectorLayout.FLAGS_OFFSET] & SectorLayout.FLAG_PACKED_ITEMS) != 0 ? 1 : 0;
      }
    }
    return n;
  }

  /**
   * Every plain LISTS sector of stored column {@code c} (lists of decimal floats) packs its items
   * unless packing could not gain the writer's quarter more rows: a list with a null item (which a
   * LISTS sector cannot hold) or the page's end comes within a quarter of its rows after it. Which
   * sectors that leaves, and where a compressed sector wins instead, depends on the seed's values,
   * so no column but one whose packing wins by far is bound to have packed sectors at all.
   */
  private static void assertPackedWhereTheyGain(
      String what, FileReader r, byte[] b, int c, org.apache.arrow.vector.FieldVector lists)
      throws IOException {
    for (PageInfo p : r.pages(c)) {
      if (p.layout() != ColumnLayout.LAYOUT_SECTORS) {
        continue;
      }
      long first = p.firstRow();
      long end = p.firstRow() + p.rowCount();
      for (long at = p.offset(); at < p.offset() + p.byteLength(); at += 4096) {
        int n = (b[(int) at] & 0xFF) | (b[(int) at + 1] & 0xFF) << 8;
        boolean packs =
            (b[(int) at + SectorLayout.FLAGS_OFFSET] & SectorLayout.FLAG_PACKED_ITEMS) != 0;
        if (b[(int) at + SectorLayout.CODEC_OFFSET] == SectorLayout.CODEC_LISTS && !packs) {
          long reach = first + n + (n + 3) / 4;
          boolean cut = reach > end;
          for (long row = first + n; row < Math.min(reach, end) && !cut; row++) {
            Object list = lists.getObject((int) row);
            cut = list != null && ((List<?>) list).contains(null);
          }
          assertThat(cut)
              .as(
                  "%s: the plain LISTS sector of rows %d to %d (page end %d)",
                  what, first, first + n, end)
              .isTrue();
        }
        first += n;
      }
    }
  }

  /**
   * Float items written from decimal text (k / 1000 as float32, k / 100 as float64) or holding
   * integers pack as decimals (1.4): more rows a sector, and every value's bits restored, by scans
   * and takes alike; random floats and a page with one -0.0 or NaN stay plain.
   */
  @Test
  void decimalFloatItemsPack(@Seed long seed) throws Exception {
    Field f32 = f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
    Field f64 = notNull("item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
    Schema decimals =
        new Schema(
            List.of(
                f("emb_dec_fewnull", ArrowType.List.INSTANCE, f32),
                notNull("x_dec", ArrowType.LargeList.INSTANCE, f64),
                f("n_cnt_fewnull", ArrowType.List.INSTANCE, f("item", f64.getType()))));
    SplittableRandom r = new SplittableRandom(seed);
    for (int zstd : new int[] {0, 3}) {
      String what = "zstd " + zstd;
      WriterOptions o = LISTS.withZstdLevel(zstd);
      byte[] packed = write(decimals, 3000, seed, 0.05, o);
      try (FileReader a = open("decimals.riffle", packed);
          VectorSchemaRoot source = RandomData.generate(decimals, 3000, seed, 0.05, allocator)) {
        for (int c = 0; c < 3; c++) {
          assertPackedWhereTheyGain(what + ", column " + c, a, packed, c, source.getVector(c));
        }
        // x_dec's items are never null and pack to 11 bits from 64: its packed sectors hold some
        // four times the rows of plain ones, and a compressed sector of its records would have to
        // squeeze random two-decimal doubles six-fold to beat them, so it packs on every seed.
        assertThat(packedItemSectors(a, packed, 1))
            .as("%s: sectors of x_dec that pack their items", what)
            .isPositive();
        SameRows.assertSameRows(what, a, source, r, 500, 700);
      }
    }
    // Random floats are no decimals at any scale the writer tries; -0.0 or NaN in a page of
    // decimals leaves that page plain.
    Schema random =
        new Schema(
            List.of(notNull("unit_f", ArrowType.List.INSTANCE, notNull("item", f32.getType()))));
    byte[] plain = write(random, 2000, seed, 0, LISTS);
    try (FileReader a = open("random.riffle", plain)) {
      assertThat(packedItemSectors(a, plain)).isZero();
    }
    for (float odd : new float[] {-0.0f, Float.NaN, Float.POSITIVE_INFINITY}) {
      Schema one = new Schema(List.of(notNull("l", ArrowType.List.INSTANCE, f32)));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (VectorSchemaRoot root = VectorSchemaRoot.create(one, allocator);
          FileWriter w = FileWriter.create(out, one, null, LISTS)) {
        org.apache.arrow.vector.complex.ListVector l =
            (org.apache.arrow.vector.complex.ListVector) root.getVector(0);
        org.apache.arrow.vector.Float4Vector items =
            (org.apache.arrow.vector.Float4Vector) l.getDataVector();
        root.allocateNew();
        for (int row = 0; row < 500; row++) {
          int at = l.startNewValue(row);
          for (int i = 0; i < 8; i++) {
            items.setSafe(
                at + i, row == 250 && i == 3 ? odd : (float) ((row * 8 + i) % 777 / 10.0));
          }
          l.endValue(row, 8);
        }
        l.setValueCount(500);
        root.setRowCount(500);
        w.write(root);
        w.finish();
        byte[] b = out.toByteArray();
        try (FileReader reader = open("odd.riffle", b)) {
          assertThat(packedItemSectors(reader, b)).as("a page holding %s", odd).isZero();
          SameRows.assertSameRows("odd " + odd, reader, root, r, 100, 200);
        }
      }
    }
  }

  /**
   * Packed item headers and items set to other values, checksums repaired: a take of every row of
   * the sector decodes or reports corruption naming the file and an offset.
   */
  @Test
  void damagedPackedItemsAreReportedAsCorrupt(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    Schema schema =
        new Schema(
            List.of(
                f(
                    "emb_dec",
                    ArrowType.List.INSTANCE,
                    notNull("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))));
    byte[] b = write(schema, 4000, 5, 0.1, LISTS.withPageBytes(16384));
    int sector = FileLayout.DATA_OFFSET;
    assertThat(b[sector + SectorLayout.FLAGS_OFFSET] & SectorLayout.FLAG_PACKED_ITEMS).isNotZero();
    int corrupt =
        damageSector(b, sector, "decimals", 3, 160, 3, new int[] {0, 0x7F, 0xFF}, 0x10, r);
    assertThat(corrupt).as("damages reported as corrupt").isPositive();
  }

  /**
   * Lists of nullable items (1.4; Spark's arrays, Parquet lists): a LISTS sector holds the lists
   * without a null item; the sector holding the one list with a null item is a RECORDS sector.
   */
  @Test
  void listsOfNullableItemsUseListSectorsUntilAnItemIsNull() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                notNull(
                    "emb",
                    ArrowType.List.INSTANCE,
                    f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))));
    int rows = 600;
    int nullItemRow = 300;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        FileWriter w = FileWriter.create(out, schema, null, LISTS.withZstdLevel(0))) {
      org.apache.arrow.vector.complex.ListVector l =
          (org.apache.arrow.vector.complex.ListVector) root.getVector(0);
      org.apache.arrow.vector.Float4Vector items =
          (org.apache.arrow.vector.Float4Vector) l.getDataVector();
      root.allocateNew();
      SplittableRandom r = new SplittableRandom(3);
      for (int row = 0; row < rows; row++) {
        int at = l.startNewValue(row);
        int n = row % 7;
        for (int i = 0; i < n; i++) {
          if (row == nullItemRow && i == 2) {
            items.setNull(at + i);
          } else {
            items.setSafe(at + i, (float) r.nextDouble());
          }
        }
        l.endValue(row, n);
      }
      l.setValueCount(rows);
      root.setRowCount(rows);
      w.write(root);
      w.finish();
      byte[] b = out.toByteArray();
      try (FileReader reader = open("nullable-items.riffle", b)) {
        assertThat(reader.formatVersion()).isEqualTo("1.4");
        PageInfo page = reader.pages(0).get(0);
        int records = 0;
        for (int s = 0; s < page.index().size(); s++) {
          int codec = b[(int) page.offset() + 4096 * s + SectorLayout.CODEC_OFFSET];
          long first = page.index().get(s);
          long next = s + 1 < page.index().size() ? page.index().get(s + 1) : page.rowCount();
          boolean holdsNullItem = first <= nullItemRow && nullItemRow < next;
          assertThat(codec)
              .as("sector %d, rows [%d, %d)", s, first, next)
              .isEqualTo(holdsNullItem ? SectorLayout.CODEC_RECORDS : SectorLayout.CODEC_LISTS);
          records += holdsNullItem ? 1 : 0;
        }
        assertThat(records).isEqualTo(1);
        SameRows.assertSameRows("nullable items", reader, root, new SplittableRandom(5), 200, 300);
      }
    }
  }

  /**
   * Header bytes and packed counts of LISTS sectors set to other values, checksums repaired: a take
   * of every row of the sector decodes or reports corruption naming the file and an offset.
   */
  @Test
  void damagedListSectorsAreReportedAsCorrupt(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    Schema schema =
        new Schema(List.of(f("list_i32", ArrowType.List.INSTANCE, notNull("item", ITEMS.get(1)))));
    byte[] b = write(schema, 400, 5, 0.1, LISTS.withPageBytes(4096));
    int sector = FileLayout.DATA_OFFSET;
    assertThat(b[sector + SectorLayout.CODEC_OFFSET]).isEqualTo((byte) SectorLayout.CODEC_LISTS);
    int corrupt =
        damageSector(b, sector, "lists", 2, 120, 4, new int[] {0, 1, 0x7F, 0xFF}, 0x04, r);
    assertThat(corrupt).as("damage found").isPositive();
  }

  /**
   * Sets bytes {@code [from, to)} of the sector at {@code sector} (every one of the first 16, then
   * one in {@code oneIn} at random) to each of {@code values} and to the byte xor {@code flip},
   * repairs the checksums, and takes every row of the sector: it decodes, or it is reported as
   * corrupt naming the file and an offset.
   *
   * @return how many damages were reported as corrupt
   */
  private int damageSector(
      byte[] b,
      int sector,
      String prefix,
      int from,
      int to,
      int oneIn,
      int[] values,
      int flip,
      SplittableRandom r)
      throws IOException {
    long rows = b[sector] & 0xFF | (b[sector + 1] & 0xFF) << 8;
    long[] all = new long[(int) rows];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    int corrupt = 0;
    for (int i = from; i < to; i++) {
      if (i >= 16 && r.nextInt(oneIn) != 0) {
        continue;
      }
      int[] tried = java.util.Arrays.copyOf(values, values.length + 1);
      tried[values.length] = b[sector + i] ^ flip;
      for (int value : tried) {
        byte[] c = b.clone();
        c[sector + i] = (byte) value;
        CorruptionTest.repairChecksums(c);
        String name = prefix + "-" + i + "-" + value + ".riffle";
        try (FileReader rd = open(name, c);
            VectorSchemaRoot got = rd.take(all, null)) {
          assertThat(got.getRowCount()).isEqualTo(all.length);
        } catch (CorruptFileException e) {
          corrupt++;
          assertThat(CorruptionTest.messageProblem(e, name, c.length)).isNull();
        }
      }
    }
    return corrupt;
  }
}
