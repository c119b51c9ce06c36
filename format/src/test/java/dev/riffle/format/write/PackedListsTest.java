package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;
import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ByteSink;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.encoding.Codecs;
import dev.riffle.format.encoding.RecordPacker;
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
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Packed records (FORMAT.md §5.3): lists of non-null integers as bit-packed deltas. */
@ExtendWith(SeedExtension.class)
class PackedListsTest {
  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  /** Integer-kind item types: every INT width and sign, and the temporal kinds. */
  private static final List<ArrowType> INTS =
      List.of(
          new ArrowType.Int(8, true),
          new ArrowType.Int(8, false),
          new ArrowType.Int(16, true),
          new ArrowType.Int(16, false),
          new ArrowType.Int(32, true),
          new ArrowType.Int(32, false),
          new ArrowType.Int(64, true),
          new ArrowType.Int(64, false),
          new ArrowType.Date(DateUnit.DAY),
          new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
          new ArrowType.Duration(TimeUnit.NANOSECOND));

  private static final WriterOptions ON = WriterOptions.defaults();
  private static final WriterOptions OFF = WriterOptions.defaults().withPackRecords(false);

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Data: wide rows of integer lists in every shape

  /** A random schema of 1–3 fields, each holding packable lists somewhere in its tree. */
  private static Schema randomSchema(SplittableRandom r) {
    List<Field> fields = new ArrayList<>();
    int n = 1 + r.nextInt(3);
    for (int i = 0; i < n; i++) {
      ArrowType item = INTS.get(r.nextInt(INTS.size()));
      Field list =
          f(
              "l" + i,
              r.nextBoolean() ? ArrowType.List.INSTANCE : ArrowType.LargeList.INSTANCE,
              notNull("item", item));
      switch (r.nextInt(5)) {
        case 0:
          // A struct holding the list and a float list (a CSR row: ids and values).
          fields.add(
              f(
                  "s" + i,
                  ArrowType.Struct.INSTANCE,
                  TypeCase.notNull("ids", ArrowType.List.INSTANCE, notNull("item", item)),
                  f("vals", ArrowType.List.INSTANCE, notNull("item", F32))));
          break;
        case 1:
          // Lists of lists: the inner lists pack, the outer list's count stays plain.
          fields.add(
              f(
                  "ll" + i,
                  ArrowType.List.INSTANCE,
                  notNull("item", ArrowType.List.INSTANCE, notNull("item", item))));
          break;
        case 2:
          // A fixed-size list of two integer lists.
          fields.add(
              f(
                  "fl" + i,
                  new ArrowType.FixedSizeList(2),
                  f("item", ArrowType.List.INSTANCE, notNull("item", item))));
          break;
        default:
          fields.add(
              r.nextBoolean()
                  ? list
                  : notNull(list.getName(), list.getType(), list.getChildren().get(0)));
      }
    }
    return new Schema(fields);
  }

  /** Fills every vector of {@code root} with {@code rows} random rows (wide integer lists). */
  private static void fill(VectorSchemaRoot root, int rows, SplittableRandom r) {
    root.allocateNew();
    for (FieldVector v : root.getFieldVectors()) {
      for (int i = 0; i < rows; i++) {
        fill(v, i, r, 1);
      }
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
  }

  /**
   * One value; {@code depth} 1 is a top-level list, whose rows are long enough for ZIP_VAR pages.
   */
  private static void fill(FieldVector v, int i, SplittableRandom r, int depth) {
    if (v.getField().isNullable() && r.nextInt(10) == 0) {
      v.setNull(i);
      return;
    }
    if (v instanceof ListVector || v instanceof LargeListVector) {
      FieldVector items =
          v instanceof ListVector
              ? ((ListVector) v).getDataVector()
              : ((LargeListVector) v).getDataVector();
      int n = INTS.contains(items.getField().getType()) ? length(r, depth) : r.nextInt(40);
      int start =
          v instanceof ListVector
              ? ((ListVector) v).startNewValue(i)
              : (int) ((LargeListVector) v).startNewValue(i);
      if (INTS.contains(items.getField().getType())) {
        ints((BaseFixedWidthVector) items, start, n, r);
      } else {
        for (int k = 0; k < n; k++) {
          fill(items, start + k, r, depth + 1);
        }
      }
      if (v instanceof ListVector) {
        ((ListVector) v).endValue(i, n);
      } else {
        ((LargeListVector) v).endValue(i, n);
      }
    } else if (v instanceof FixedSizeListVector) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      int start = l.startNewValue(i);
      for (int k = 0; k < l.getListSize(); k++) {
        fill(l.getDataVector(), start + k, r, depth);
      }
    } else if (v instanceof StructVector) {
      StructVector s = (StructVector) v;
      for (FieldVector c : s.getChildrenFromFields()) {
        fill(c, i, r, depth);
      }
      s.setIndexDefined(i);
    } else if (v instanceof org.apache.arrow.vector.Float4Vector) {
      ((org.apache.arrow.vector.Float4Vector) v).setSafe(i, (float) r.nextDouble());
    } else {
      throw new IllegalArgumentException("no generator for " + v.getField());
    }
  }

  /** Mostly long lists (wide records), with empty and single-item ones mixed in. */
  private static int length(SplittableRandom r, int depth) {
    switch (r.nextInt(8)) {
      case 0:
        return 0;
      case 1:
        return 1;
      case 2:
        return 2;
      default:
        return depth == 1 ? 100 + r.nextInt(1500) : r.nextInt(60);
    }
  }

  /** Items of one list in one of several shapes (sorted ids, extremes, random, steps, constant). */
  private static void ints(BaseFixedWidthVector items, int start, int n, SplittableRandom r) {
    while (items.getValueCapacity() < start + n) {
      items.reAlloc();
    }
    int width = items.getTypeWidth();
    int shape = r.nextInt(6);
    long x = r.nextLong();
    long step = r.nextInt(5) - 2;
    for (int k = 0; k < n; k++) {
      long value;
      switch (shape) {
        case 0: // sorted distinct ids
          x = k == 0 ? r.nextInt(1000) : x + 1 + r.nextInt(24);
          value = x;
          break;
        case 1: // the extremes of every width, and their neighbours
          long[] edges = {
            Long.MIN_VALUE,
            Long.MAX_VALUE,
            0,
            -1,
            1,
            127,
            -128,
            255,
            32767,
            -32768,
            65535,
            Integer.MAX_VALUE,
            Integer.MIN_VALUE,
            0xFFFFFFFFL,
            Long.MIN_VALUE + 1
          };
          value = edges[r.nextInt(edges.length)];
          break;
        case 2: // random 64-bit values
          value = r.nextLong();
          break;
        case 3: // an arithmetic sequence (width 0 after the base delta)
          x += step;
          value = x;
          break;
        case 4: // small negative and positive values, unsorted
          value = r.nextInt(200) - 100;
          break;
        default: // one value repeated
          value = x;
      }
      long at = (long) (start + k) * width;
      switch (width) {
        case 1:
          items.getDataBuffer().setByte(at, (byte) value);
          break;
        case 2:
          items.getDataBuffer().setShort(at, (short) value);
          break;
        case 4:
          items.getDataBuffer().setInt(at, (int) value);
          break;
        default:
          items.getDataBuffer().setLong(at, value);
      }
      org.apache.arrow.vector.BitVectorHelper.setBit(items.getValidityBuffer(), start + k);
    }
  }

  private byte[] write(Schema schema, VectorSchemaRoot root, WriterOptions o) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileWriter w = FileWriter.create(out, schema, null, o)) {
      w.write(root);
      w.finish();
    }
    return out.toByteArray();
  }

  private FileReader open(String name, byte[] b) throws IOException {
    return FileReader.open(new BytesSource(name, b), true, allocator);
  }

  /** Counts of ZIP_VAR records by control byte (index = control, 0–15), over all columns. */
  static long[] controls(FileReader r, byte[] b) throws IOException {
    long[] counts = new long[16];
    for (int c = 0; c < r.schema().columns().size(); c++) {
      for (PageInfo p : r.pages(c)) {
        if (p.layout() != ColumnLayout.LAYOUT_ZIP_VAR) {
          continue;
        }
        for (int k = 0; k < p.rowCount(); k++) {
          counts[b[(int) (p.offset() + p.index().get(k))] & 15]++;
        }
      }
    }
    return counts;
  }

  // ---------------------------------------------------------------------------------------------
  // Round trips

  @Test
  void randomIntegerListsRoundTrip(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    long packedRecords = 0;
    for (int round = 0; round < 8; round++) {
      Schema schema = randomSchema(r);
      String what = "round " + round + ", " + schema;
      int rows = 20 + r.nextInt(150);
      WriterOptions o = ON.withPageBytes(r.nextBoolean() ? 4096 : 1 << 20);
      if (r.nextInt(3) == 0) {
        o = o.withZstdLevel(0);
      }
      List<String> names = new ArrayList<>();
      for (Field fl : schema.getFields()) {
        names.add(fl.getName());
      }
      if (names.size() > 1 && r.nextBoolean()) {
        o = o.withColumnGroup(names.toArray(new String[0]));
      }
      try (VectorSchemaRoot source = VectorSchemaRoot.create(schema, allocator)) {
        fill(source, rows, r);
        byte[] on = write(schema, source, o);
        byte[] off = write(schema, source, o.withPackRecords(false));
        try (FileReader a = open("on.riffle", on);
            FileReader b = open("off.riffle", off)) {
          long[] ca = controls(a, on);
          assertThat(controls(b, off)[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED])
              .as(what)
              .isZero();
          packedRecords += ca[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED];
          if (o.zstdLevel() == 0) {
            // A packed record is kept only where it is smaller than the plain one.
            assertThat(on.length).as(what).isLessThanOrEqualTo(off.length);
          } else {
            // Against zstd the packed record is kept unless the zstd frame is at most 3/4 of it
            // (its inflate costs every read more than unpacking), while without packing the frame
            // only had to be 3/4 of the plain record: a record may stay packed at up to 4/3 of the
            // frame the other file holds (seed 42b6f5840ebdfd5b: 412,631 bytes against 405,631).
            assertThat(on.length * 3L).as(what).isLessThanOrEqualTo(off.length * 4L);
          }
          SameRows.assertSameRows(what + " packed", a, source, r, 300, 200);
          SameRows.assertSameRows(what + " plain", b, source, r, 300, 200);
        }
      }
    }
    assertThat(packedRecords).as("packed records written").isPositive();
  }

  /**
   * A CSR-like group row (sorted int32 ids, random float values as in the CLI's sparse data), the
   * shape issue #5's loader reads. Values of small integers would make zstd the smaller record.
   */
  private Schema sparseSchema() {
    return new Schema(
        List.of(
            f("indices", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(32, true))),
            f("values", ArrowType.List.INSTANCE, notNull("item", F32))));
  }

  private void fillSparse(VectorSchemaRoot root, int rows, SplittableRandom r) {
    root.allocateNew();
    ListVector idx = (ListVector) root.getVector(0);
    ListVector val = (ListVector) root.getVector(1);
    for (int i = 0; i < rows; i++) {
      int n = 1000 + r.nextInt(1000);
      int a = idx.startNewValue(i);
      int b = val.startNewValue(i);
      int gene = r.nextInt(10);
      for (int k = 0; k < n; k++) {
        ((org.apache.arrow.vector.IntVector) idx.getDataVector()).setSafe(a + k, gene);
        gene += 1 + r.nextInt(20);
        ((org.apache.arrow.vector.Float4Vector) val.getDataVector())
            .setSafe(b + k, (float) (0.1 + Math.exp(2 * r.nextDouble()) - 1));
      }
      idx.endValue(i, n);
      val.endValue(i, n);
    }
    idx.setValueCount(rows);
    val.setValueCount(rows);
    root.setRowCount(rows);
  }

  @Test
  void sparseRowsShrinkAndATakeIsOneReadOfTheRecord(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    Schema schema = sparseSchema();
    WriterOptions o = ON.withColumnGroup("indices", "values");
    try (VectorSchemaRoot source = VectorSchemaRoot.create(schema, allocator)) {
      fillSparse(source, 300, r);
      byte[] on = write(schema, source, o);
      byte[] off = write(schema, source, o.withPackRecords(false));
      // Half a row is int32 ids of gaps below 21: 5 bits an id instead of 32, so ~0.58 of a row.
      assertThat((double) on.length / off.length).isLessThan(0.65);
      try (FileReader f = open("sparse.riffle", on)) {
        long[] c = controls(f, on);
        assertThat(c[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED]).isEqualTo(300);
        f.loadColumns(null);
        PageInfo page = f.pages(0).get(0);
        for (int i = 0; i < 30; i++) {
          int row = r.nextInt(300);
          f.stats().reset();
          try (VectorSchemaRoot got = f.take(new long[] {row}, null)) {
            assertThat(SameRows.text(got.getVector(0).getObject(0)))
                .isEqualTo(SameRows.text(source.getVector(0).getObject(row)));
            assertThat(SameRows.text(got.getVector(1).getObject(0)))
                .isEqualTo(SameRows.text(source.getVector(1).getObject(row)));
          }
          int p = 0;
          while (f.pages(0).get(p).firstRow() + f.pages(0).get(p).rowCount() <= row) {
            p++;
          }
          page = f.pages(0).get(p);
          int k = (int) (row - page.firstRow());
          long length = page.index().get(k + 1) - page.index().get(k);
          assertThat(f.stats().reads()).isEqualTo(1);
          assertThat(f.stats().rounds()).isEqualTo(1);
          assertThat(f.stats().bytesRead()).isEqualTo(length);
        }
      }
    }
  }

  @Test
  void onByDefaultAndOnlyForColumnsWithPackableLists() throws Exception {
    Schema sparse = sparseSchema();
    try (VectorSchemaRoot source = VectorSchemaRoot.create(sparse, allocator)) {
      fillSparse(source, 50, new SplittableRandom(3));
      byte[] on = write(sparse, source, WriterOptions.defaults());
      byte[] off = write(sparse, source, OFF);
      try (FileReader a = open("a.riffle", on);
          FileReader b = open("b.riffle", off)) {
        int packed = ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED;
        assertThat(controls(a, on)[packed]).isPositive();
        assertThat(controls(b, off)[packed]).isZero();
      }
    }
    // Nullable items, float items, maps, booleans: nothing packs; the file is as it was.
    Schema others =
        new Schema(
            List.of(
                f("a", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(32, true))),
                f("b", ArrowType.List.INSTANCE, notNull("item", F32)),
                f("c", ArrowType.List.INSTANCE, notNull("item", ArrowType.Bool.INSTANCE)),
                f("long_s", ArrowType.Utf8.INSTANCE)));
    byte[] d = RandomData.file(others, 300, 5, 0.1, WriterOptions.defaults(), allocator);
    assertThat(d).isEqualTo(RandomData.file(others, 300, 5, 0.1, OFF, allocator));
  }

  /** Rows of one size go to ZIP_FIXED unless packed records make the page 1/20 smaller. */
  @Test
  void equalSizeRowsTurnZipVarWhenPackingSaves() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                notNull(
                    "ids", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(64, true)))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      ListVector l = (ListVector) root.getVector(0);
      for (int i = 0; i < 40; i++) {
        int a = l.startNewValue(i);
        for (int k = 0; k < 600; k++) {
          ((org.apache.arrow.vector.BigIntVector) l.getDataVector()).setSafe(a + k, i + 3L * k);
        }
        l.endValue(i, 600);
      }
      l.setValueCount(40);
      root.setRowCount(40);
      try (FileReader on = open("on.riffle", write(schema, root, ON));
          FileReader off = open("off.riffle", write(schema, root, OFF))) {
        assertThat(off.pages(0).get(0).layout()).isEqualTo(ColumnLayout.LAYOUT_ZIP_FIXED);
        assertThat(on.pages(0).get(0).layout()).isEqualTo(ColumnLayout.LAYOUT_ZIP_VAR);
        // 600 items of a constant step: count, first, base delta, width 0 — 6 bytes a row, and
        // the record CRC.
        assertThat(on.pages(0).get(0).byteLength()).isEqualTo(40L * (6 + 4));
        SameRows.assertSameRows("steps", on, root, new SplittableRandom(1), 300, 200);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The spec's example, versions

  /** FORMAT.md §5.3, Example F, byte for byte. */
  @Test
  void specExampleF() throws Exception {
    Field field = f("ids", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(32, true)));
    RecordPacker p = RecordPacker.of(Codecs.forField(field));
    byte[] plain =
        HexFormat.of()
            .parseHex("05" + "64000000" + "67000000" + "6b000000" + "6c000000" + "78000000");
    ByteSink out = new ByteSink();
    p.pack(plain, 0, plain.length, out);
    assertThat(HexFormat.of().formatHex(out.toByteArray())).isEqualTo("05c801020432b0");
    // Its record CRC in a 1.4 page: over the control byte and the payload.
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(HexFormat.of().parseHex("09" + "05c801020432b0"));
    assertThat(crc.getValue()).isEqualTo(0xF4706EDFL);
    // A uint8 list [255, 0]: items are zero-extended, so the delta is -255 (zigzag 509).
    Field u8 = f("b", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(8, false)));
    out.clear();
    RecordPacker.of(Codecs.forField(u8)).pack(new byte[] {2, (byte) 0xFF, 0}, 0, 3, out);
    assertThat(HexFormat.of().formatHex(out.toByteArray())).isEqualTo("02fe03fd0300");
  }

  // ---------------------------------------------------------------------------------------------
  // Damage

  /** A one-column file of rows [first, first + 7, …] of 400 int32 ids; record k at offsets[k]. */
  private byte[] damageFile() throws IOException {
    Schema schema =
        new Schema(
            List.of(
                notNull(
                    "ids", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(32, true)))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      ListVector l = (ListVector) root.getVector(0);
      SplittableRandom r = new SplittableRandom(11);
      for (int i = 0; i < 8; i++) {
        int a = l.startNewValue(i);
        int id = r.nextInt(100);
        for (int k = 0; k < 400 + i; k++) {
          ((org.apache.arrow.vector.IntVector) l.getDataVector()).setSafe(a + k, id);
          id += 1 + r.nextInt(30);
        }
        l.endValue(i, 400 + i);
      }
      l.setValueCount(8);
      root.setRowCount(8);
      return write(schema, root, ON);
    }
  }

  /** Takes rows 0–7 of the damaged file {@code c} with its checksums repaired: null if it reads. */
  private String takeAll(String name, byte[] c) throws IOException {
    c = c.clone();
    // The record CRCs would catch every damage below first; repaired, the decoder is tested.
    CorruptionTest.repairChecksums(c);
    try (FileReader rd = open(name, c);
        VectorSchemaRoot got = rd.take(new long[] {0, 1, 2, 3, 4, 5, 6, 7}, null)) {
      assertThat(got.getRowCount()).isEqualTo(8);
      return null;
    } catch (CorruptFileException e) {
      return e.getMessage();
    }
  }

  @Test
  void namedDamageIsReportedWithResourceAndOffset() throws Exception {
    byte[] b = damageFile();
    int rec;
    try (FileReader r = open("d.riffle", b)) {
      PageInfo p = r.pages(0).get(0);
      assertThat(p.layout()).isEqualTo(ColumnLayout.LAYOUT_ZIP_VAR);
      rec = (int) p.offset();
    }
    // Record 0: 09 | varint 400 (90 03) | first id | base delta | width | packed deltas.
    assertThat(b[rec]).isEqualTo((byte) 9);
    assertThat(b[rec + 1] & 0xFF).isEqualTo(0x90);
    int first = rec + 3;
    int base = first + 1;
    while ((b[first] & 0x80) != 0) {
      first++;
      base++;
    }
    int width = base + 1;
    assertThat(b[width]).isBetween((byte) 1, (byte) 6);
    // A bit width above 64.
    for (int w : new int[] {65, 0x7F, 0xFF}) {
      byte[] c = b.clone();
      c[width] = (byte) w;
      String m = takeAll("width.riffle", c);
      assertThat(m)
          .isEqualTo(
              "width.riffle at offset " + width + ": packed list bit width " + w + " exceeds 64");
    }
    // A count the packed bits of the record cannot hold (more items, same record bytes).
    byte[] c = b.clone();
    c[rec + 2] = 0x04; // 400 -> 528
    assertThat(takeAll("count.riffle", c))
        .startsWith("count.riffle at offset " + (width + 1) + ": record needs ");
    // A width that needs more packed bytes than the record has.
    c = b.clone();
    c[width] = 40;
    assertThat(takeAll("short.riffle", c))
        .startsWith("short.riffle at offset " + (width + 1) + ": record needs ");
    // A list of 2^31 - 9 items of width 0 would take 9 bytes but restore 8 GiB: over the budget.
    c = b.clone();
    byte[] bomb = HexFormat.of().parseHex("09f7ffffff07000000");
    System.arraycopy(bomb, 0, c, rec, bomb.length);
    assertThat(takeAll("bomb.riffle", c))
        .isEqualTo(
            "bomb.riffle at offset "
                + (rec + 6)
                + ": packed lists restore more than 1073741824 item bytes");
    // The bits of a null record (control 8: PACKED without VALID).
    c = b.clone();
    c[rec] = 8;
    assertThat(takeAll("null.riffle", c))
        .isEqualTo("null.riffle at offset " + rec + ": null record with a payload");
    c[rec] = 11;
    assertThat(takeAll("zstd.riffle", c))
        .isEqualTo("zstd.riffle at offset " + rec + ": bad control byte 11");
  }

  /** Every byte of a packed record set to other values: decodes or is corruption, never a crash. */
  @Test
  void everyDamagedByteIsDecodedOrReported(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] b = damageFile();
    long start;
    long end;
    try (FileReader f = open("d.riffle", b)) {
      PageInfo p = f.pages(0).get(0);
      start = p.offset();
      end = p.offset() + p.index().get(2);
    }
    int corrupt = 0;
    for (long at = start; at < end; at++) {
      if (at > start + 24 && r.nextInt(8) != 0) {
        continue;
      }
      for (int value : new int[] {0, 0x40, 0x7F, 0x80, 0xFF, b[(int) at] ^ (1 << r.nextInt(8))}) {
        byte[] c = b.clone();
        c[(int) at] = (byte) value;
        String name = "flip-" + at + "-" + value + ".riffle";
        try (FileReader rd = open(name, c);
            VectorSchemaRoot got = rd.take(new long[] {0, 1, 7}, null)) {
          assertThat(got.getRowCount()).isEqualTo(3);
        } catch (CorruptFileException e) {
          corrupt++;
          assertThat(CorruptionTest.messageProblem(e, name, c.length)).isNull();
        }
      }
    }
    assertThat(corrupt).isPositive();
  }
}
