package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ZipLayout;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.TypeCase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The golden files in {@code spec/golden/}: one small file per layout and type family, each with
 * the values it must decode to ({@code NAME.expected.txt}) and its page statistics ({@code
 * NAME.stats.txt}, format 1.4). Every run checks that each committed file decodes to its expected
 * values and statistics and that the writer still produces it byte for byte; and that the same
 * inputs as written by format 1.0 ({@code spec/golden/1.0/}, frozen) still decode to the same
 * values, without statistics.
 *
 * <p>The files are regenerated only on request: {@code mvn -pl format test -Dtest=GoldenFilesTest
 * -Dgolden.regenerate=true}. Do that only for an intended format change, and record it in
 * spec/CHANGES.md. The rows come from {@link RandomData} with fixed seeds, so a change there also
 * changes the files.
 */
class GoldenFilesTest {
  static final Path GOLDEN = Path.of("..", "spec", "golden");
  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  private static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;

  @TempDir Path dir;
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** A golden file: its schema, rows, null rate and writer options. */
  record Golden(String name, Schema schema, int rows, double nullRate, WriterOptions options) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Golden> goldens() {
    // Small files without compressed sectors, split or packed records unless they are the point
    // of the file (the first thirteen are the first draft's inputs).
    WriterOptions small =
        WriterOptions.defaults()
            .withPageBytes(4096)
            .withCompressSectors(false)
            .withSplitFloats(false)
            .withListSectors(false)
            .withPackRecords(false);
    DictionaryEncoding enc = new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
    Field cat = new Field("category", new FieldType(true, new ArrowType.Int(8, true), enc), null);
    return Stream.of(
        new Golden(
            "empty",
            new Schema(List.of(TypeCase.f("x", new ArrowType.Int(32, true)))),
            0,
            0,
            small),
        new Golden(
            "sectors-flat-float64",
            new Schema(
                List.of(
                    TypeCase.f("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))),
            700,
            0.1,
            small),
        new Golden(
            "sectors-for-int",
            new Schema(
                List.of(
                    TypeCase.f("small_i64", new ArrowType.Int(64, true)),
                    TypeCase.f("small_u16", new ArrowType.Int(16, false)))),
            1200,
            0.1,
            small),
        new Golden(
            "sectors-bool",
            new Schema(List.of(TypeCase.f("b", ArrowType.Bool.INSTANCE))),
            5000,
            0.2,
            small),
        new Golden(
            "sectors-all-null",
            new Schema(
                List.of(TypeCase.f("n", new ArrowType.Int(32, true)), TypeCase.f("s", UTF8))),
            100,
            1.0,
            small),
        new Golden(
            "sectors-records-utf8",
            new Schema(
                List.of(TypeCase.f("s", UTF8), TypeCase.f("bin", ArrowType.LargeBinary.INSTANCE))),
            500,
            0.1,
            small),
        new Golden(
            "sectors-records-nested",
            new Schema(
                List.of(
                    TypeCase.f(
                        "list",
                        ArrowType.List.INSTANCE,
                        TypeCase.f("item", new ArrowType.Int(32, true))),
                    TypeCase.f(
                        "struct",
                        ArrowType.Struct.INSTANCE,
                        TypeCase.f("a", UTF8),
                        TypeCase.notNull("b", new ArrowType.Int(16, false))),
                    TypeCase.f(
                        "map",
                        new ArrowType.Map(false),
                        TypeCase.notNull(
                            "entries",
                            ArrowType.Struct.INSTANCE,
                            TypeCase.notNull("key", UTF8),
                            TypeCase.f("value", ArrowType.Bool.INSTANCE))))),
            300,
            0.1,
            small),
        new Golden(
            "zip-fixed-vectors",
            new Schema(
                List.of(
                    TypeCase.f(
                        "vec", new ArrowType.FixedSizeList(300), TypeCase.notNull("item", F32)))),
            20,
            0.1,
            small),
        new Golden(
            "zip-var-long-utf8",
            new Schema(List.of(TypeCase.f("long_text", UTF8))),
            12,
            0.1,
            small.withZstdLevel(0)),
        new Golden(
            "zip-var-zstd",
            new Schema(List.of(TypeCase.f("zstd_blob", ArrowType.Binary.INSTANCE))),
            8,
            0.1,
            small),
        new Golden(
            "dictionary",
            new Schema(List.of(cat, TypeCase.f("id", new ArrowType.Int(32, false)))),
            400,
            0.1,
            small),
        new Golden(
            "group",
            new Schema(
                List.of(
                    TypeCase.f(
                        "indices",
                        ArrowType.List.INSTANCE,
                        TypeCase.notNull("item", new ArrowType.Int(32, true))),
                    TypeCase.f("values", ArrowType.List.INSTANCE, TypeCase.notNull("item", F32)),
                    TypeCase.f("label", new ArrowType.Int(8, true)))),
            300,
            0.1,
            small.withColumnGroup("indices", "values")),
        new Golden(
            "temporal-decimal",
            new Schema(
                List.of(
                    TypeCase.f(
                        "ts",
                        new ArrowType.Timestamp(
                            org.apache.arrow.vector.types.TimeUnit.MICROSECOND, "UTC")),
                    TypeCase.f(
                        "date", new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY)),
                    TypeCase.f("dec", new ArrowType.Decimal(20, 4, 128)),
                    TypeCase.f("fsb", new ArrowType.FixedSizeBinary(12)))),
            300,
            0.1,
            small),
        // 1.1: compressed sectors of records (text, lists of text) and of flat values.
        new Golden(
            "sectors-zstd",
            new Schema(
                List.of(
                    TypeCase.f("text_s", UTF8),
                    TypeCase.f(
                        "rep_f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                    TypeCase.f("text_list", ArrowType.List.INSTANCE, TypeCase.f("item", UTF8)))),
            700,
            0.1,
            // Pages of 64 KiB: a 4 KiB page holds about one plain sector of rows, too few to fill
            // a compressed one.
            small.withCompressSectors(true).withPageBytes(64 * 1024)),
        // 1.2: split records — a float32 vector column (ZIP_FIXED turned ZIP_VAR, one null row
        // in ten) and lists of float64 vectors (ZIP_VAR; empty lists stay plain records).
        new Golden(
            "zip-split-floats",
            new Schema(
                List.of(
                    TypeCase.f(
                        "unit_vec",
                        new ArrowType.FixedSizeList(300),
                        TypeCase.notNull("item", F32)),
                    TypeCase.f(
                        "unit_list",
                        ArrowType.List.INSTANCE,
                        TypeCase.f(
                            "item",
                            new ArrowType.FixedSizeList(40),
                            TypeCase.notNull(
                                "item",
                                new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))))),
            24,
            0.1,
            small.withSplitFloats(true)),
        // 1.2: LISTS sectors — lists of uint64 (nullable lists) and large lists of int16, lists
        // of 0 to 5 items; with nulls the sectors carry a validity bitmap.
        new Golden(
            "sectors-lists",
            new Schema(
                List.of(
                    TypeCase.f(
                        "list_u64",
                        ArrowType.List.INSTANCE,
                        TypeCase.notNull("item", new ArrowType.Int(64, false))),
                    TypeCase.notNull(
                        "large_list_i16",
                        ArrowType.LargeList.INSTANCE,
                        TypeCase.notNull("item", new ArrowType.Int(16, true))))),
            400,
            0.1,
            small.withListSectors(true)),
        // 1.3: packed records — a group of sorted int32 ids (150 to 850 per row, gaps 1 to 24)
        // and float32 values, and a nullable large list of sorted uint16 ids alone; ZIP_VAR pages
        // where every record is packed (control 0x09).
        new Golden(
            "zip-packed-int-lists",
            new Schema(
                List.of(
                    TypeCase.notNull(
                        "ids_genes",
                        ArrowType.List.INSTANCE,
                        TypeCase.notNull("item", new ArrowType.Int(32, true))),
                    TypeCase.notNull(
                        "ids_counts", ArrowType.List.INSTANCE, TypeCase.notNull("item", F32)),
                    TypeCase.f(
                        "ids_u16",
                        ArrowType.LargeList.INSTANCE,
                        TypeCase.notNull("item", new ArrowType.Int(16, false))))),
            12,
            0.1,
            small
                .withCompressSectors(true)
                .withPackRecords(true)
                .withPageBytes(64 * 1024)
                .withColumnGroup("ids_genes", "ids_counts")),
        // 1.4: packed float lists — a group of sorted int32 gene ids and float32 counts
        // (integers 0–20, packed as integers, except every fifth row, whose random floats stay
        // plain inside the packed record) and a nullable list of float64 counts alone.
        new Golden(
            "zip-packed-counts",
            new Schema(
                List.of(
                    TypeCase.notNull(
                        "ids_genes",
                        ArrowType.List.INSTANCE,
                        TypeCase.notNull("item", new ArrowType.Int(32, true))),
                    TypeCase.notNull(
                        "ids_counts", ArrowType.List.INSTANCE, TypeCase.notNull("item", F32)),
                    TypeCase.f(
                        "ids_counts64",
                        ArrowType.List.INSTANCE,
                        TypeCase.notNull(
                            "item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))),
            12,
            0.1,
            small
                .withPackRecords(true)
                .withPageBytes(64 * 1024)
                .withColumnGroup("ids_genes", "ids_counts")),
        // 1.4: packed float lists in form DICTIONARY — the same columns holding normalised counts
        // (log1p of counts times a per-row scale: a few distinct values a row), every fifth row's
        // random floats again plain; see toNormalized.
        new Golden(
            "zip-packed-normalized",
            new Schema(
                List.of(
                    TypeCase.notNull(
                        "ids_genes",
                        ArrowType.List.INSTANCE,
                        TypeCase.notNull("item", new ArrowType.Int(32, true))),
                    TypeCase.notNull(
                        "ids_counts", ArrowType.List.INSTANCE, TypeCase.notNull("item", F32)),
                    TypeCase.f(
                        "ids_counts64",
                        ArrowType.List.INSTANCE,
                        TypeCase.notNull(
                            "item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))),
            12,
            0.1,
            small
                .withPackRecords(true)
                .withPageBytes(64 * 1024)
                .withColumnGroup("ids_genes", "ids_counts")),
        // 1.4: packable lists of nullable items — int32 ids and float32 counts ("_cnt"), each
        // list packed after a 0 byte when none of its items is null, else plain after a 1 byte.
        new Golden(
            "zip-packed-nullable-items",
            new Schema(
                List.of(
                    TypeCase.f(
                        "ids_genes",
                        ArrowType.List.INSTANCE,
                        TypeCase.f("item", new ArrowType.Int(32, true))),
                    TypeCase.f("ids_cnt32", ArrowType.List.INSTANCE, TypeCase.f("item", F32)),
                    TypeCase.f(
                        "ids_cnt64",
                        ArrowType.List.INSTANCE,
                        TypeCase.f(
                            "item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))),
            24,
            0.02,
            small
                .withPackRecords(true)
                .withPageBytes(64 * 1024)
                .withColumnGroup("ids_genes", "ids_cnt32")),
        // 1.4: LISTS sectors of lists whose items are declared nullable (Spark arrays, Parquet
        // lists): float32 and int64 items, a few of them null; a sector holding a list with a null
        // item is a RECORDS sector, every other one LISTS.
        new Golden(
            "sectors-lists-nullable-items",
            new Schema(
                List.of(
                    TypeCase.f("emb", ArrowType.List.INSTANCE, TypeCase.f("item", F32)),
                    TypeCase.notNull(
                        "ids",
                        ArrowType.LargeList.INSTANCE,
                        TypeCase.f("item", new ArrowType.Int(64, true))))),
            400,
            0.01,
            small.withListSectors(true)),
        // 1.4: LISTS sectors whose float items are packed decimals — float32 written from
        // three-decimal text ("_dec"), float64 counts ("_cnt"), items rarely null ("_fewnull").
        new Golden(
            "sectors-lists-decimals",
            new Schema(
                List.of(
                    TypeCase.f("emb_dec_fewnull", ArrowType.List.INSTANCE, TypeCase.f("item", F32)),
                    TypeCase.notNull(
                        "n_cnt",
                        ArrowType.LargeList.INSTANCE,
                        TypeCase.notNull(
                            "item", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))),
            1200,
            0.05,
            small.withListSectors(true).withPageBytes(16 * 1024)),
        // 1.4: page statistics — see toStatsRows.
        new Golden(
            "page-stats",
            new Schema(
                List.of(
                    TypeCase.f("n", new ArrowType.Int(32, true)),
                    TypeCase.f("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                    TypeCase.f("y", F32),
                    TypeCase.f("name", UTF8),
                    new Field(
                        "category",
                        new FieldType(
                            true,
                            new ArrowType.Int(32, true),
                            new DictionaryEncoding(2, false, new ArrowType.Int(32, true))),
                        null),
                    TypeCase.f("late", new ArrowType.Int(64, true)))),
            1200,
            0.1,
            small));
  }

  /**
   * Shapes a {@code page-stats} batch (nulls drawn by {@link RandomData}, one row in ten, stay null
   * except in {@code late}): {@code n} ascending (row · 3), so that pages have disjoint ranges;
   * {@code x} = (row − 1000) / 4, with NaN, -0.0, +0.0, -∞ and +∞ in turn in every 97th row below
   * 600 (only the first page holds them); {@code y} 0.0 up to row 700 (-0.0 in row 7), then
   * ascending, NaN in row 1169 (a zero min written -0.0, and a page with NaN); {@code name} random
   * strings of 0 to 24 letters (the empty one included), but every third one is "zz" and 58 more
   * bytes of prefix followed by up to 40 letters, and from row 1000 the others "a" and 59 more
   * bytes followed by up to 40 letters (maxima, and in the last pages minima, cut at 64 bytes);
   * {@code category} codes in runs of 150 rows (each page a few codes); {@code late} valid below
   * row 1024 and null from there (its last page all null).
   */
  private static void toStatsRows(VectorSchemaRoot root) {
    var n = (org.apache.arrow.vector.IntVector) root.getVector("n");
    var x = (org.apache.arrow.vector.Float8Vector) root.getVector("x");
    var y = (org.apache.arrow.vector.Float4Vector) root.getVector("y");
    var name = (org.apache.arrow.vector.VarCharVector) root.getVector("name");
    var late = (org.apache.arrow.vector.BigIntVector) root.getVector("late");
    var category = (org.apache.arrow.vector.IntVector) root.getVector("category");
    double[] specials = {Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY};
    String high = "zz-shared-prefix-of-sixty-bytes-so-that-bounds-are-cut-at-64";
    String low = "a-shared-prefix-of-sixty-bytes-so-that-bounds-are-cut-at-64-";
    // A variable-width vector is filled in row order: take the strings out, then write them back.
    byte[][] names = new byte[root.getRowCount()][];
    for (int row = 0; row < names.length; row++) {
      names[row] = name.isNull(row) ? null : name.get(row);
      if (names[row] != null && (row % 3 == 0 || row >= 1000)) {
        String letters = new String(names[row], StandardCharsets.UTF_8);
        letters = letters + letters;
        names[row] =
            ((row % 3 == 0 ? high : low) + letters.substring(0, Math.min(40, letters.length())))
                .getBytes(StandardCharsets.UTF_8);
      }
    }
    name.reset();
    for (int row = 0; row < names.length; row++) {
      if (names[row] == null) {
        name.setNull(row);
      } else {
        name.setSafe(row, names[row]);
      }
    }
    name.setValueCount(names.length);
    for (int row = 0; row < root.getRowCount(); row++) {
      if (!n.isNull(row)) {
        n.set(row, row * 3);
      }
      if (!x.isNull(row)) {
        x.set(row, row % 97 == 3 && row < 600 ? specials[(row / 97) % 5] : (row - 1000) / 4.0);
      }
      if (!y.isNull(row)) {
        float v = row <= 700 ? (row == 7 ? -0.0f : 0.0f) : (row - 700) / 2.0f;
        y.set(row, row == 1169 ? Float.NaN : v);
      }
      if (!category.isNull(row)) {
        category.set(row, (row / 150) % RandomData.DICTIONARY_SIZE);
      }
      if (row < 1024) {
        late.set(row, row * 1_000_003L - 700_000_000L);
      } else {
        late.setNull(row);
      }
    }
  }

  /**
   * Turns the random float items of a {@code zip-packed-counts} batch into counts (integers 0–19,
   * see {@link #count}), except in every fifth row.
   */
  /** A count from a random float: 20 times its fractional part, floored; 3 for NaN and ±∞. */
  private static double count(double x) {
    return Double.isFinite(x) ? Math.floor(Math.abs(x) % 1.0 * 20) : 3;
  }

  /**
   * Turns the random float items of a {@code zip-packed-normalized} batch into normalised counts,
   * {@code log1p(count · (1 + row / 7))}, except in every fifth row; row 3's first items are −0.0,
   * 0.0 and a NaN, which the dictionary keeps apart by their bits.
   */
  private static void toNormalized(VectorSchemaRoot root) {
    toCounts(root);
    for (String name : List.of("ids_counts", "ids_counts64")) {
      var list = (org.apache.arrow.vector.complex.ListVector) root.getVector(name);
      var items = list.getDataVector();
      for (int row = 0; row < root.getRowCount(); row++) {
        if (row % 5 == 4 || list.isNull(row)) {
          continue;
        }
        int from = list.getElementStartIndex(row);
        int to = list.getElementEndIndex(row);
        for (int i = from; i < to; i++) {
          double special =
              row != 3 || i - from > 2 ? 1 : i == from ? -0.0 : i == from + 1 ? 0 : Double.NaN;
          if (items instanceof org.apache.arrow.vector.Float4Vector v) {
            v.set(
                i, special != 1 ? (float) special : (float) Math.log1p(v.get(i) * (1 + row / 7.0)));
          } else {
            var v = (org.apache.arrow.vector.Float8Vector) items;
            v.set(i, special != 1 ? special : Math.log1p(v.get(i) * (1 + row / 7.0)));
          }
        }
      }
    }
  }

  private static void toCounts(VectorSchemaRoot root) {
    for (String name : List.of("ids_counts", "ids_counts64")) {
      var list = (org.apache.arrow.vector.complex.ListVector) root.getVector(name);
      var items = list.getDataVector();
      for (int row = 0; row < root.getRowCount(); row++) {
        if (row % 5 == 4 || list.isNull(row)) {
          continue;
        }
        int from = list.getElementStartIndex(row);
        int to = list.getElementEndIndex(row);
        for (int i = from; i < to; i++) {
          if (items instanceof org.apache.arrow.vector.Float4Vector) {
            var v = (org.apache.arrow.vector.Float4Vector) items;
            v.set(i, (float) count(v.get(i)));
          } else {
            var v = (org.apache.arrow.vector.Float8Vector) items;
            v.set(i, count(v.get(i)));
          }
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void goldenFile(Golden g) throws Exception {
    Path fresh = write(g, dir.resolve(g.name() + ".riffle"));
    Path committed = GOLDEN.resolve(g.name() + ".riffle");
    Path expected = GOLDEN.resolve(g.name() + ".expected.txt");
    Path expectedStats = GOLDEN.resolve(g.name() + ".stats.txt");
    if (Boolean.getBoolean("golden.regenerate")) {
      Files.createDirectories(GOLDEN);
      Files.copy(fresh, committed, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.writeString(expected, describe(committed));
      Files.writeString(expectedStats, describeStats(committed));
    }
    assertThat(committed)
        .as("golden file %s (regenerate only on request, see class doc)", committed)
        .exists();
    assertThat(describe(committed))
        .as("values decoded from %s", committed)
        .isEqualTo(Files.readString(expected));
    assertThat(describeStats(committed))
        .as("page statistics of %s", committed)
        .isEqualTo(Files.readString(expectedStats));
    try (FileReader reader = FileReader.open(committed, allocator)) {
      String layouts = reader.describe().toString();
      for (String layout : List.of("sectors", "zip-fixed", "zip-var", "zip-split", "zip-packed")) {
        if (g.name().startsWith(layout)) {
          String name =
              layout.equals("zip-split") || layout.equals("zip-packed") ? "zip-var" : layout;
          assertThat(layouts).as("%s covers the %s layout", g.name(), name).contains(name);
        }
      }
      assertThat(reader.formatVersion()).isEqualTo("1.4");
      if (g.name().startsWith("zip-split")) {
        long[] controls = SplitRecordsTest.controls(reader, Files.readAllBytes(committed));
        assertThat(controls[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT])
            .as("split records in %s", g.name())
            .isPositive();
        assertThat(controls[ZipLayout.CONTROL_VALID])
            .as("plain records in %s", g.name())
            .isPositive();
      }
      if (g.name().startsWith("zip-packed")) {
        long[] controls = PackedListsTest.controls(reader, Files.readAllBytes(committed));
        assertThat(controls[ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED])
            .as("packed records in %s", g.name())
            .isPositive();
        if (!g.name()
            .equals("zip-packed-nullable-items")) { // its rows are all valid: see goldens()
          assertThat(controls[0]).as("null rows in %s", g.name()).isPositive();
        }
      }
      if (g.name().equals("zip-packed-normalized")) {
        // Column 1 is the float64 lists alone: a packed record is 09 | varint n | form.
        byte[] b = Files.readAllBytes(committed);
        int[] forms = new int[3];
        for (var p : reader.pages(1)) {
          for (int k = 0; k < p.rowCount(); k++) {
            int at = (int) (p.offset() + p.index().get(k));
            if (b[at] == 9) {
              int n = at + 1;
              while (b[n] < 0) {
                n++;
              }
              forms[b[n + 1]]++;
            }
          }
        }
        assertThat(forms[2]).as("lists in form DICTIONARY in %s", g.name()).isPositive();
      }
      if (g.name().equals("sectors-lists-decimals")) {
        byte[] b = Files.readAllBytes(committed);
        for (int c = 0; c < 2; c++) {
          assertThat(ListSectorsTest.packedItemSectors(reader, b, c))
              .as("sectors with packed items in column %d of %s", c, g.name())
              .isPositive();
        }
      }
      if (g.name().equals("sectors-lists-nullable-items")) {
        long[] codecs = ListSectorsTest.codecs(reader, Files.readAllBytes(committed));
        assertThat(codecs[dev.riffle.format.SectorLayout.CODEC_LISTS])
            .as("LISTS sectors in %s", g.name())
            .isPositive();
        assertThat(codecs[dev.riffle.format.SectorLayout.CODEC_RECORDS])
            .as("RECORDS sectors (lists with a null item) in %s", g.name())
            .isPositive();
      }
    }
    if (g.name().equals("sectors-zstd")) {
      for (int[] kinds : SectorZstdTest.sectorKinds(committed, allocator)) {
        assertThat(kinds[1]).as("compressed sectors in every column of %s", g.name()).isPositive();
      }
    }
    assertThat(Files.readAllBytes(fresh))
        .as(
            "the writer no longer reproduces %s byte for byte;"
                + " if the format change is intended, regenerate and record it in spec/CHANGES.md",
            committed)
        .isEqualTo(Files.readAllBytes(committed));
  }

  /**
   * The 1.0 files of {@code spec/golden/1.0/}, written before record CRCs (1.4): a 1.4 reader reads
   * them to the same values as their 1.4 counterparts, by scan and by take of every row (which
   * verifies each zipped page whole, as 1.0 records have no CRCs of their own).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void version10FileStillReads(Golden g) throws Exception {
    Path old = GOLDEN.resolve("1.0").resolve(g.name() + ".riffle");
    if (g.name().equals("zip-packed-counts")
        || g.name().equals("zip-packed-normalized")
        || g.name().equals("zip-packed-nullable-items")
        || g.name().equals("sectors-lists-nullable-items")
        || g.name().equals("sectors-lists-decimals")
        || g.name().equals("page-stats")) {
      // New in 1.4: no 1.0 file of it.
      assertThat(old).doesNotExist();
      return;
    }
    assertThat(describe(old))
        .as("values decoded from %s", old)
        .isEqualTo(Files.readString(GOLDEN.resolve(g.name() + ".expected.txt")));
    try (FileReader reader = FileReader.open(old, allocator)) {
      assertThat(reader.formatVersion()).isEqualTo("1.0");
      for (Field f : reader.schema().fields()) {
        assertThat(reader.pageStats(f.getName())).as("statistics in a 1.0 file").isEmpty();
        assertThat(reader.candidateRows(dev.riffle.format.read.PageFilter.isNull(f.getName())))
            .as("a 1.0 file has no statistics to skip pages by")
            .isEqualTo(dev.riffle.format.read.RowRanges.all(reader.rowCount()));
      }
      long[] rows = new long[(int) reader.rowCount()];
      for (int i = 0; i < rows.length; i++) {
        rows[i] = rows.length - 1 - i;
      }
      try (VectorSchemaRoot taken = reader.take(rows, null)) {
        StringBuilder got = new StringBuilder();
        for (int i = taken.getRowCount() - 1; i >= 0; i--) {
          for (var v : taken.getFieldVectors()) {
            got.append(format(v.getObject(i))).append('\t');
          }
          got.append('\n');
        }
        assertThat(Files.readString(GOLDEN.resolve(g.name() + ".expected.txt")))
            .as("rows of %s by take", old)
            .contains(got);
      }
    }
  }

  private Path write(Golden g, Path file) throws IOException {
    DictionaryProvider.MapDictionaryProvider dicts = new DictionaryProvider.MapDictionaryProvider();
    List<AutoCloseable> owned = new ArrayList<>();
    try {
      for (Field f : g.schema().getFields()) {
        if (f.getDictionary() != null) {
          var d = RandomData.dictionary(f.getName(), 42, allocator);
          owned.add(d);
          dicts.put(new Dictionary(d, f.getDictionary()));
        }
      }
      try (VectorSchemaRoot root =
              RandomData.generate(g.schema(), g.rows(), 20261130L, g.nullRate(), allocator);
          FileWriter w = FileWriter.create(file, g.schema(), dicts, g.options())) {
        if (g.name().equals("zip-packed-counts")) {
          toCounts(root);
        }
        if (g.name().equals("zip-packed-normalized")) {
          toNormalized(root);
        }
        if (g.name().equals("page-stats")) {
          toStatsRows(root);
        }
        w.write(root);
        w.finish();
      }
      return file;
    } finally {
      for (AutoCloseable c : owned) {
        try {
          c.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  /** The schema, every row as text, and every dictionary, as decoded by the reader. */
  private String describe(Path file) throws IOException {
    StringBuilder out = new StringBuilder();
    try (FileReader reader = FileReader.open(file, allocator)) {
      out.append("schema: ").append(reader.arrowSchema()).append('\n');
      out.append("rows: ").append(reader.rowCount()).append('\n');
      ScanCursor cursor = reader.scan(null, 256);
      VectorSchemaRoot batch;
      while ((batch = cursor.next()) != null) {
        try (VectorSchemaRoot b = batch) {
          for (int i = 0; i < b.getRowCount(); i++) {
            for (var v : b.getFieldVectors()) {
              out.append(format(v.getObject(i))).append('\t');
            }
            out.append('\n');
          }
        }
      }
      DictionaryProvider dicts = reader.dictionaries();
      for (long id : dicts.getDictionaryIds()) {
        var v = dicts.lookup(id).getVector();
        out.append("dictionary ").append(id).append(':');
        for (int i = 0; i < v.getValueCount(); i++) {
          out.append(' ').append(format(v.getObject(i)));
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  /** Each page's statistics, column by column: the text of {@code NAME.stats.txt}. */
  private String describeStats(Path file) throws IOException {
    StringBuilder out = new StringBuilder();
    try (FileReader reader = FileReader.open(file, allocator)) {
      for (int c = 0; c < reader.schema().columns().size(); c++) {
        out.append("column ").append(reader.schema().columns().get(c).name()).append('\n');
        for (dev.riffle.format.read.PageInfo p : reader.pages(c)) {
          out.append("  rows [")
              .append(p.firstRow())
              .append(", ")
              .append(p.firstRow() + p.rowCount())
              .append(")\n");
          for (var s : p.stats()) {
            out.append("    ").append(s).append('\n');
          }
        }
      }
    }
    return out.toString();
  }

  /** Arrow's objects as stable text: byte arrays in hex (their toString is an identity hash). */
  static String format(Object o) {
    if (o instanceof byte[]) {
      StringBuilder b = new StringBuilder("0x");
      for (byte x : (byte[]) o) {
        b.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
      }
      return b.toString();
    }
    if (o instanceof java.util.List) {
      List<String> items = new ArrayList<>();
      for (Object x : (java.util.List<?>) o) {
        items.add(format(x));
      }
      return items.toString();
    }
    if (o instanceof java.util.Map) {
      StringBuilder b = new StringBuilder("{");
      for (var e : ((java.util.Map<?, ?>) o).entrySet()) {
        b.append(e.getKey()).append('=').append(format(e.getValue())).append(", ");
      }
      return b.append('}').toString();
    }
    if (o instanceof Character) {
      // UInt2Vector returns chars, which may be lone surrogates: print the number.
      return Integer.toString((Character) o);
    }
    return String.valueOf(o);
  }
}
