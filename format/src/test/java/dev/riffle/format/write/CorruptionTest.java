package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import dev.riffle.format.ColumnInfo;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.DirectoryLayout;
import dev.riffle.format.FileLayout;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.PageEntryLayout;
import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.UnsupportedVersionException;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.encoding.EliasFano;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.PageStats;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Damaged files must be reported as {@link CorruptFileException}, never read as something else.
 *
 * <p>For small files of every layout (sectors of values and of records, fixed slots, variable
 * records with and without zstd, a dictionary, column groups, nested types), each written with 4
 * KiB pages so that every column has several, "read everything" (open, {@code loadColumns}, {@code
 * describe}, {@code pages}, {@code dictionaries}, a full scan, a take of every row in shuffled
 * order and a projected take) is run on
 *
 * <ul>
 *   <li>truncations (0, 1, every twentieth of the length, length − 1): always corrupt;
 *   <li>single-byte flips in the head, the data region, the column blocks, schema and directory,
 *       and the footer, and zeroed ranges of 1–4096 bytes anywhere: corrupt whenever a checksummed
 *       byte changed (FORMAT.md §7.6), otherwise either corrupt or read with values identical to
 *       the undamaged file's. Each mutation is also read with a take of every row first, under the
 *       same rule: since format 1.4 every zipped record carries its own CRC, so a take verifies
 *       every byte it decodes without the page CRC of a scan;
 *   <li>single-byte flips with every checksum recomputed afterwards, which reach the parsers and
 *       decoders behind the checksums: corrupt or readable, with takes that agree with the scan;
 *   <li>a changed version: {@link UnsupportedVersionException} naming both versions.
 * </ul>
 *
 * Any other exception, an {@link OutOfMemoryError}, a leaked Arrow buffer (checked after each
 * mutation, also after a failure in the middle of a take or scan), a hang, or a message without the
 * file name and offset fails the test; a reader bug found here gets a regression test in {@link
 * ReaderFuzzTest}. Failing inputs are written to {@code target/corruption-failures/}, with the
 * undamaged file. Data and mutations are drawn from the test's seed ({@link SeedExtension}); each
 * test prints how many reads were rejected and how many read without error.
 */
@ExtendWith(SeedExtension.class)
class CorruptionTest {
  static final int PAGE_BYTES = 4096;
  static final int BATCH_ROWS = 100;
  static final double NULL_RATE = 0.1;

  /** Largest take in "read everything" (all rows of the test files; a sample of bigger inputs). */
  static final int MAX_TAKE_ROWS = 10_000;

  /** Scans of fuzzed files stop after this many rows. */
  static final long MAX_SCAN_ROWS = 1_000_000;

  /** Arrow memory one read of a damaged file may use. */
  static final long READ_MEMORY_LIMIT = 256L << 20;

  /**
   * A hang detector, not a speed test: a file's few hundred mutated reads take a second or two
   * alone, and up to several times that on a shared machine under load.
   */
  static final Duration PER_FILE = Duration.ofSeconds(60);

  @TempDir Path dir;
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    // Closing fails the test if any buffer leaked.
    allocator.close();
  }

  // ---------------------------------------------------------------------------------------------
  // The files

  static Stream<TypeCase> files() {
    return fileCases().stream();
  }

  /** Small files covering every layout; rows are chosen so that each column has several pages. */
  static List<TypeCase> fileCases() {
    ArrowType utf8 = ArrowType.Utf8.INSTANCE;
    ArrowType f32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    ArrowType f64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    List<TypeCase> c = new ArrayList<>();
    c.add(
        new TypeCase(
            "sectors",
            new Schema(
                List.of(
                    f("i32", new ArrowType.Int(32, true)),
                    f("small_i64", new ArrowType.Int(64, true)),
                    f("bool", ArrowType.Bool.INSTANCE),
                    f("f64", f64),
                    f("utf8", utf8),
                    f("list_i64", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(64, true))),
                    f(
                        "struct",
                        ArrowType.Struct.INSTANCE,
                        f("a", new ArrowType.Int(32, true)),
                        notNull("b", utf8)))),
            List.of(),
            600));
    c.add(
        new TypeCase(
            "zip_fixed",
            new Schema(
                List.of(
                    f("fsb1100", new ArrowType.FixedSizeBinary(1100)),
                    notNull("vec300", new ArrowType.FixedSizeList(300), notNull("item", f32)),
                    f("i16", new ArrowType.Int(16, true)))),
            List.of(),
            30));
    c.add(
        new TypeCase(
            "zip_var",
            new Schema(List.of(f("long_utf8", utf8), f("zstd_binary", ArrowType.Binary.INSTANCE))),
            List.of(),
            30));
    DictionaryEncoding enc = new DictionaryEncoding(7, false, new ArrowType.Int(16, true));
    c.add(
        new TypeCase(
            "dictionary",
            new Schema(
                List.of(
                    new Field(
                        "category", new FieldType(true, new ArrowType.Int(16, true), enc), null),
                    f("id", new ArrowType.Int(64, false)))),
            List.of(),
            1200));
    c.add(
        new TypeCase(
            "groups",
            new Schema(
                List.of(
                    f("g_a", new ArrowType.Int(64, false)),
                    notNull("g_b", f32),
                    f("g_c", utf8),
                    f("g_d", ArrowType.Bool.INSTANCE),
                    f("g_e", new ArrowType.Int(16, true)),
                    f("outside", new ArrowType.Int(32, true)),
                    f(
                        "indices",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.Int(32, true))),
                    f("values", ArrowType.List.INSTANCE, notNull("item", f32)))),
            List.of(List.of("g_a", "g_b", "g_c", "g_d", "g_e"), List.of("indices", "values")),
            800));
    c.add(
        new TypeCase(
            "nested",
            new Schema(
                List.of(
                    f(
                        "list_struct",
                        ArrowType.List.INSTANCE,
                        f(
                            "item",
                            ArrowType.Struct.INSTANCE,
                            f("x", new ArrowType.Int(8, true)),
                            f("y", utf8))),
                    f(
                        "map",
                        new ArrowType.Map(false),
                        notNull(
                            "entries",
                            ArrowType.Struct.INSTANCE,
                            notNull("key", utf8),
                            f("value", new ArrowType.Int(32, true)))),
                    f(
                        "list_list_i16",
                        ArrowType.List.INSTANCE,
                        f(
                            "inner",
                            ArrowType.List.INSTANCE,
                            f("item", new ArrowType.Int(16, true)))),
                    f("dec128", new ArrowType.Decimal(38, 5, 128)))),
            List.of(),
            300));
    // Wide float rows that shrink when split into byte planes: split records (format 1.2).
    c.add(
        new TypeCase(
            "zip_split",
            new Schema(
                List.of(
                    f("unit_vec", new ArrowType.FixedSizeList(300), notNull("item", f32)),
                    f(
                        "unit_list",
                        ArrowType.List.INSTANCE,
                        f("item", new ArrowType.FixedSizeList(40), notNull("item", f64))))),
            List.of(),
            30));
    // Lists of fixed-width items: LISTS sectors (format 1.2).
    c.add(
        new TypeCase(
            "sectors_lists",
            new Schema(
                List.of(
                    f(
                        "list_u64",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.Int(64, false))),
                    f(
                        "list_bool",
                        ArrowType.LargeList.INSTANCE,
                        notNull("item", ArrowType.Bool.INSTANCE)))),
            List.of(),
            900));
    // LISTS sectors of lists whose items are nullable (format 1.4), mixed with RECORDS sectors
    // where a list holds a null item (rarely: "_fewnull", see RandomData).
    c.add(
        new TypeCase(
            "sectors_lists_nullable_items",
            new Schema(
                List.of(
                    f("emb_fewnull", ArrowType.List.INSTANCE, f("item", f32)),
                    notNull(
                        "nums_fewnull",
                        ArrowType.LargeList.INSTANCE,
                        f("item", new ArrowType.Int(64, true))))),
            List.of(),
            900));
    // LISTS sectors whose float items are packed decimals (format 1.4).
    c.add(
        new TypeCase(
            "sectors_lists_decimals",
            new Schema(
                List.of(
                    f("emb_dec", ArrowType.List.INSTANCE, notNull("item", f32)),
                    notNull("n_cnt", ArrowType.LargeList.INSTANCE, notNull("item", f64)))),
            List.of(),
            2000));
    // Wide rows of integer lists: packed records (format 1.3), alone, in a struct, and in a group.
    c.add(
        new TypeCase(
            "zip_packed",
            new Schema(
                List.of(
                    f(
                        "ids_i32",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.Int(32, true))),
                    f(
                        "ids_struct",
                        ArrowType.Struct.INSTANCE,
                        notNull(
                            "ids_u64",
                            ArrowType.LargeList.INSTANCE,
                            notNull("item", new ArrowType.Int(64, false))),
                        f("x", utf8)),
                    f(
                        "ids_g16",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.Int(16, true))),
                    f("ids_gf", ArrowType.List.INSTANCE, notNull("item", f32)))),
            List.of(List.of("ids_g16", "ids_gf")),
            30));
    // Counts rows: packed float lists (format 1.4), in a group with sorted ids, and alone.
    c.add(
        new TypeCase(
            "zip_counts",
            new Schema(
                List.of(
                    notNull(
                        "ids_genes",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.Int(32, true))),
                    notNull("ids_cnt32", ArrowType.List.INSTANCE, notNull("item", f32)),
                    f("ids_cnt64", ArrowType.LargeList.INSTANCE, notNull("item", f64)))),
            List.of(List.of("ids_genes", "ids_cnt32")),
            30));
    // Normalised counts rows: packed float lists in form DICTIONARY (format 1.4), as above.
    c.add(
        new TypeCase(
            "zip_normalized",
            new Schema(
                List.of(
                    notNull(
                        "ids_genes",
                        ArrowType.List.INSTANCE,
                        notNull("item", new ArrowType.Int(32, true))),
                    notNull("ids_nrm32", ArrowType.List.INSTANCE, notNull("item", f32)),
                    f("ids_nrm64", ArrowType.LargeList.INSTANCE, notNull("item", f64)))),
            List.of(List.of("ids_genes", "ids_nrm32")),
            30));
    // Packable lists of nullable items (format 1.4): a null-items byte, then packed or plain.
    c.add(
        new TypeCase(
            "zip_nullable_items",
            new Schema(
                List.of(
                    f("ids_genes", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(32, true))),
                    f("ids_cnt32", ArrowType.List.INSTANCE, f("item", f32)),
                    f("ids_nrm64", ArrowType.LargeList.INSTANCE, f("item", f64)))),
            List.of(List.of("ids_genes", "ids_cnt32")),
            30));
    // Compressible values: compressed sectors (format 1.1).
    c.add(
        new TypeCase(
            "sectors_zstd",
            new Schema(
                List.of(
                    f("text_s", utf8),
                    f("rep_f64", f64),
                    f("text_list", ArrowType.List.INSTANCE, f("item", utf8)))),
            List.of(),
            900));
    return c;
  }

  /**
   * 4 KiB pages, so that small files have several; 6 KiB for compressed sectors and 16 KiB for
   * packed decimal items, which need more rows in a page than one plain sector holds.
   */
  static int pageBytes(TypeCase c) {
    return c.name.equals("sectors_zstd")
        ? 6 * 1024
        : c.name.equals("sectors_lists_decimals") ? 16 * 1024 : PAGE_BYTES;
  }

  /** Writes {@code rows} random rows of a case (see {@link #pageBytes}) into memory. */
  static byte[] writeFile(TypeCase c, int rows, long seed, double nullRate, BufferAllocator a)
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
      WriterOptions options =
          WriterOptions.defaults()
              .withPageBytes(pageBytes(c))
              .withColumnGroups(c.groups)
              .withSplitFloats(c.name.equals("zip_split"))
              .withListSectors(c.name.startsWith("sectors_lists"))
              .withPackRecords(
                  c.name.equals("zip_packed")
                      || c.name.equals("zip_counts")
                      || c.name.equals("zip_normalized")
                      || c.name.equals("zip_nullable_items"));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (FileWriter w = FileWriter.create(out, c.schema, provider, options)) {
        w.write(root);
        w.finish();
      }
      return out.toByteArray();
    } finally {
      dictionaries.forEach(VarCharVector::close);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The tests

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void truncation(TypeCase c, @Seed long seed) throws Exception {
    Failures failures = new Failures(c);
    try (Original o = new Original(c, seed, allocator)) {
      int len = o.bytes.length;
      List<Integer> cuts = new ArrayList<>(List.of(0, 1, len - 1));
      for (int k = 1; k < 20; k++) {
        cuts.add((int) ((long) len * k / 20));
      }
      assertTimeoutPreemptively(
          PER_FILE,
          () -> {
            for (int cut : cuts) {
              Path file = dir.resolve(c.name + "-cut" + cut + ".riffle");
              byte[] bytes = Arrays.copyOf(o.bytes, cut);
              Files.write(file, bytes);
              String what = "truncated to " + cut + " of " + len + " bytes";
              Throwable t =
                  attempt(
                      file.toString(),
                      a -> FileReader.open(file, a),
                      (r, a) -> readEverything(r, o.takeRows, Observer.NONE, a));
              if (t == null) {
                failures.add(what, bytes, "a truncated file was read without error", null);
              } else if (t instanceof CorruptFileException) {
                failures.checkMessage(what, bytes, (CorruptFileException) t, file.toString());
              } else {
                failures.add(what, bytes, "threw " + t.getClass().getName(), t);
              }
            }
          },
          failures.where);
    }
    failures.assertNone();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void byteFlips(TypeCase c, @Seed long seed) throws Exception {
    mutations(
        c,
        seed,
        "byteFlips",
        o -> {
          SplittableRandom r = new SplittableRandom(seed ^ 0x5eed);
          Layout l = o.layout;
          int len = o.bytes.length;
          List<Mutation> m = new ArrayList<>();
          flips(m, o, r, "head", 0, FileLayout.HEAD_BYTES, 10);
          flips(m, o, r, "pages", FileLayout.DATA_OFFSET, (int) l.firstBlock, 100);
          flips(m, o, r, "blocks", (int) l.firstBlock, (int) l.schemaOffset, 60);
          flips(m, o, r, "meta", (int) l.schemaOffset, len - FooterLayout.FOOTER_BYTES, 50);
          flips(m, o, r, "footer", len - FooterLayout.FOOTER_BYTES, len, 40);
          return m;
        });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void zeroedRanges(TypeCase c, @Seed long seed) throws Exception {
    mutations(
        c,
        seed,
        "zeroedRanges",
        o -> {
          SplittableRandom r = new SplittableRandom(seed ^ 0x2e20);
          int len = o.bytes.length;
          List<Mutation> m = new ArrayList<>();
          for (int i = 0; i < 60; i++) {
            int n = 1 + r.nextInt(4096);
            // Bias a third of the ranges to the metadata at the end of the file.
            int from =
                i % 3 == 0
                    ? (int) o.layout.firstBlock + r.nextInt(len - (int) o.layout.firstBlock)
                    : r.nextInt(len);
            int to = Math.min(len, from + n);
            byte[] b = o.bytes.clone();
            Arrays.fill(b, from, to, (byte) 0);
            m.add(new Mutation("zero-" + from + "-" + to, b, false));
          }
          return m;
        });
  }

  /**
   * Flips with every checksum recomputed, so that the structure checks, parsers and decoders behind
   * the checksums see the damage.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("files")
  void flipsBehindRepairedChecksums(TypeCase c, @Seed long seed) throws Exception {
    mutations(
        c,
        seed,
        "flipsBehindRepairedChecksums",
        o -> {
          SplittableRandom r = new SplittableRandom(seed ^ 0xc3c);
          Layout l = o.layout;
          int len = o.bytes.length;
          List<Mutation> m = new ArrayList<>();
          List<Mutation> raw = new ArrayList<>();
          flips(raw, o, r, "pages", FileLayout.DATA_OFFSET, (int) l.firstBlock, 70);
          flips(raw, o, r, "blocks", (int) l.firstBlock, (int) l.schemaOffset, 70);
          flips(raw, o, r, "meta", (int) l.schemaOffset, len - FooterLayout.FOOTER_BYTES, 50);
          flips(raw, o, r, "footer", len - FooterLayout.FOOTER_BYTES, len - 12, 20);
          for (Mutation x : raw) {
            byte[] b = x.bytes.clone();
            repairChecksums(b);
            m.add(new Mutation(x.id + "-crcfixed", b, true));
          }
          return m;
        });
  }

  /**
   * Files of format 1.0 have no record CRCs: a take verifies each zipped page whole the first time
   * it touches it, so a flipped byte in a record is an error there too, never another value.
   */
  @Test
  void version10ZipPagesAreVerifiedOnTake(@Seed long seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    for (String golden :
        List.of("zip-fixed-vectors", "zip-var-zstd", "zip-split-floats", "zip-packed-int-lists")) {
      Path file = GoldenFilesTest.GOLDEN.resolve("1.0").resolve(golden + ".riffle");
      byte[] bytes = Files.readAllBytes(file);
      List<PageInfo> zipped = new ArrayList<>();
      VectorSchemaRoot expected;
      long[] rows;
      try (FileReader r = FileReader.open(new BytesSource(golden, bytes), true, allocator)) {
        assertThat(r.formatVersion()).isEqualTo("1.0");
        for (int c = 0; c < r.schema().columns().size(); c++) {
          for (PageInfo p : r.pages(c)) {
            if (p.layout() != ColumnLayout.LAYOUT_SECTORS) {
              zipped.add(p);
            }
          }
        }
        rows = shuffledRows(r.rowCount(), seed);
        expected = r.take(rows, null);
      }
      try (VectorSchemaRoot e = expected) {
        assertThat(zipped).as(golden).isNotEmpty();
        for (int i = 0; i < 40; i++) {
          PageInfo p = zipped.get(random.nextInt(zipped.size()));
          int at = (int) (p.offset() + random.nextLong(p.byteLength()));
          byte[] b = bytes.clone();
          b[at] ^= (byte) (1 + random.nextInt(255));
          String name = golden + "-flip-" + at;
          try (FileReader r = FileReader.open(new BytesSource(name, b), true, allocator);
              VectorSchemaRoot got = r.take(rows, null)) {
            throw new AssertionError(
                name + ": a flipped byte in a zipped page of a 1.0 file was taken without error");
          } catch (CorruptFileException ex) {
            assertThat(ex.getMessage()).as(name).startsWith(name + " at offset");
          }
        }
      }
    }
  }

  @Test
  void repairingTheChecksumsOfAValidFileChangesNothing(@Seed long seed) throws Exception {
    for (TypeCase c : fileCases()) {
      byte[] bytes = writeFile(c, c.severalPagesRows, seed, NULL_RATE, allocator);
      byte[] repaired = bytes.clone();
      repairChecksums(repaired);
      assertThat(repaired).as(c.name).isEqualTo(bytes);
    }
  }

  @Test
  void unsupportedVersions(@Seed long seed) throws Exception {
    TypeCase c = fileCases().get(0);
    byte[] valid = writeFile(c, 50, seed, NULL_RATE, allocator);
    int len = valid.length;
    String supported =
        "this reader reads 1.0 and " + FileLayout.VERSION_MAJOR + "." + FileLayout.VERSION_MINOR;
    int[][] versions = {
      {FileLayout.VERSION_MAJOR + 1, 0},
      {FileLayout.VERSION_MAJOR, FileLayout.VERSION_MINOR + 1},
      {0, 0},
      {0xFFFF, 0xFFFF},
    };
    for (int[] v : versions) {
      String found = v[0] + "." + v[1];
      // A newer writer's file: head and footer agree on the version.
      byte[] both = withVersion(valid, v[0], v[1], true);
      String name = "version-" + v[0] + "-" + v[1] + ".riffle";
      Throwable t = openAndRead(both, name);
      assertThat(t)
          .as(found + " in head and footer")
          .isInstanceOf(UnsupportedVersionException.class)
          .hasMessageContaining(name)
          .hasMessageContaining("offset " + (len - 24))
          .hasMessageContaining("format version " + found + " is not supported")
          .hasMessageContaining(supported);
      // Only the footer changed: head and footer disagree, which is damage (FORMAT.md §8).
      byte[] footerOnly = withVersion(valid, v[0], v[1], false);
      String name2 = "footer-version-" + v[0] + "-" + v[1] + ".riffle";
      Throwable t2 = openAndRead(footerOnly, name2);
      assertThat(t2)
          .as(found + " in the footer only")
          .isInstanceOf(CorruptFileException.class)
          .isNotInstanceOf(UnsupportedVersionException.class)
          .hasMessageContaining(name2)
          .hasMessageContaining("offset 8")
          .hasMessageContaining(found);
    }
    // The supported versions themselves still read: 1.4 as written, 1.0 as a 1.0 writer wrote it.
    assertThat(openAndRead(valid, "v14.riffle")).isNull();
    byte[] old =
        Files.readAllBytes(GoldenFilesTest.GOLDEN.resolve("1.0").resolve("sectors-for-int.riffle"));
    assertThat(openAndRead(old, "v10.riffle")).isNull();
    // A 1.4 file relabelled 1.0 is not a 1.0 file: its column blocks carry statistics (1.4).
    assertThat(openAndRead(withVersion(valid, 1, 0, true), "v1.riffle"))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("unknown column flags");
  }

  private Throwable openAndRead(byte[] bytes, String name) {
    return attempt(
        name,
        a -> FileReader.open(new BytesSource(name, bytes), true, a),
        (r, a) -> readEverything(r, null, Observer.NONE, a));
  }

  private static byte[] withVersion(byte[] valid, int major, int minor, boolean head) {
    byte[] b = valid.clone();
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int f = b.length - FooterLayout.FOOTER_BYTES;
    buf.putShort(f + FooterLayout.FOOTER_VERSION_MAJOR, (short) major);
    buf.putShort(f + FooterLayout.FOOTER_VERSION_MINOR, (short) minor);
    if (head) {
      buf.putShort(8, (short) major);
      buf.putShort(10, (short) minor);
    }
    buf.putInt(f + FooterLayout.FOOTER_CRC, crc(buf, f, FooterLayout.FOOTER_CRC));
    return b;
  }

  // ---------------------------------------------------------------------------------------------
  // Mutations and the rules they are judged by

  /** A damaged copy; {@code crcFixed}: every checksum was recomputed after the damage. */
  record Mutation(String id, byte[] bytes, boolean crcFixed) {}

  private static void flips(
      List<Mutation> out, Original o, SplittableRandom r, String region, int from, int to, int n) {
    if (to <= from) {
      return;
    }
    for (int i = 0; i < n; i++) {
      int at = from + r.nextInt(to - from);
      int mask = 1 + r.nextInt(255);
      byte[] b = o.bytes.clone();
      b[at] ^= (byte) mask;
      out.add(
          new Mutation(
              "flip-" + region + "-" + at + "-x" + Integer.toHexString(mask),
              b, /* fixed */
              false));
    }
  }

  private void mutations(
      TypeCase c, long seed, String method, Function<Original, List<Mutation>> generate)
      throws Exception {
    Failures failures = new Failures(c);
    try (Original o = new Original(c, seed, allocator)) {
      List<Mutation> mutations = generate.apply(o);
      assertTimeoutPreemptively(
          PER_FILE,
          () -> {
            for (Mutation m : mutations) {
              judge(o, m, failures);
            }
          },
          () -> failures.where + ": timed out, a read may hang; " + failures.summary());
      System.out.println(
          method + " " + c.name + ": " + mutations.size() + " mutations, " + failures.summary());
      if (failures.count > 0) {
        Path d = Paths.get("target", "corruption-failures");
        Files.createDirectories(d);
        Files.write(d.resolve(c.name + "-original-" + Long.toHexString(seed) + ".riffle"), o.bytes);
      }
      failures.assertNone();
    }
  }

  /** Reads a mutation twice (scan first, take first) and applies the rules of the class doc. */
  private void judge(Original o, Mutation m, Failures failures) {
    String name = o.c.name + "-" + m.id + ".riffle";
    byte[] b = m.bytes;
    BitSet changed = new BitSet();
    for (int i = 0; i < b.length; i++) {
      if (b[i] != o.bytes[i]) {
        changed.set(i);
      }
    }
    boolean touchesChecked = changed.intersects(o.layout.checked);

    // 1. Scan, then take: every checksum is verified by the scan.
    Throwable t =
        attempt(
            name,
            a -> FileReader.open(new BytesSource(name, b), true, a),
            (r, a) ->
                readEverything(
                    r,
                    m.crcFixed ? null : o.takeRows,
                    m.crcFixed ? Observer.NONE : o.expected.same(),
                    a));
    judgeOutcome(m, name, b, t, changed.isEmpty(), touchesChecked && !m.crcFixed, failures, "");

    // 2. Take first (of every row): each record is checked by its own CRC (1.4), so a take either
    // fails or returns exactly the undamaged values.
    boolean compare = !m.crcFixed;
    Throwable t2 =
        attempt(
            name,
            a -> FileReader.open(new BytesSource(name, b), true, a),
            (r, a) -> {
              if (!m.crcFixed && r.rowCount() != o.expected.rowCount) {
                throw new ValuesDiffer(
                    "row count " + r.rowCount() + " instead of " + o.expected.rowCount);
              }
              long[] rows = m.crcFixed ? shuffledRows(r.rowCount(), 1) : o.takeRows;
              try (VectorSchemaRoot got = r.take(rows, null)) {
                if (compare) {
                  assertSame(o.expected.take, got, "take first");
                }
              }
            });
    judgeOutcome(
        m,
        name,
        b,
        t2,
        changed.isEmpty(),
        touchesChecked && !m.crcFixed,
        failures,
        " (take first)");
  }

  private static void judgeOutcome(
      Mutation m,
      String name,
      byte[] b,
      Throwable t,
      boolean unchanged,
      boolean mustBeCorrupt,
      Failures failures,
      String pass) {
    String what = m.id + pass;
    if (t instanceof CorruptFileException) {
      if (unchanged) {
        failures.add(what, b, "an unchanged file was rejected", t);
      } else {
        failures.checkMessage(what, b, (CorruptFileException) t, name);
      }
    } else if (t instanceof ValuesDiffer) {
      failures.add(what, b, "read without error but returned other values", t);
    } else if (t != null) {
      failures.add(what, b, "threw " + t.getClass().getName(), t);
    } else if (mustBeCorrupt) {
      failures.add(what, b, "checksummed bytes changed, yet the file read without error", null);
    } else if (t == null) {
      failures.readable++;
    }
    if (t instanceof CorruptFileException) {
      failures.corrupt++;
    }
  }

  @FunctionalInterface
  interface Opener {
    FileReader open(BufferAllocator a) throws Exception;
  }

  @FunctionalInterface
  interface Reading {
    void run(FileReader r, BufferAllocator a) throws Exception;
  }

  /** Thrown by the comparing observer; an AssertionError so that no catch in the reader eats it. */
  static final class ValuesDiffer extends AssertionError {
    private static final long serialVersionUID = 1L;

    ValuesDiffer(String message) {
      super(message);
    }
  }

  /** Buffers left allocated after a reader and all its results were closed. */
  static final class Leak extends AssertionError {
    private static final long serialVersionUID = 1L;

    Leak(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Opens and reads with a child allocator of its own, so that a leak is pinned to this read;
   * returns what was thrown (null if nothing), a {@link Leak} if buffers were left allocated.
   */
  Throwable attempt(String name, Opener opener, Reading reading) {
    BufferAllocator a = allocator.newChildAllocator(name, 0, READ_MEMORY_LIMIT);
    Throwable thrown = null;
    try (FileReader r = opener.open(a)) {
      reading.run(r, a);
    } catch (Throwable t) {
      thrown = t;
    }
    try {
      a.close();
    } catch (IllegalStateException leak) {
      Leak l =
          new Leak(
              "Arrow buffers leaked"
                  + (thrown == null ? "" : " after " + thrown)
                  + ": "
                  + leak.getMessage(),
              leak);
      if (thrown != null) {
        l.addSuppressed(thrown);
      }
      return l;
    }
    return thrown;
  }

  /** Collects distinct failures of one test, saving each failing input. */
  static final class Failures {
    /** Names the file in every message. */
    final String where;

    final TypeCase c;
    final Map<String, String> distinct = new LinkedHashMap<>();
    int count;
    int corrupt;
    int readable;

    Failures(TypeCase c) {
      this.where = "file " + c.name;
      this.c = c;
    }

    void checkMessage(String what, byte[] bytes, CorruptFileException e, String name) {
      String problem = messageProblem(e, name, bytes.length);
      if (problem != null) {
        add(what, bytes, problem, e);
      }
    }

    synchronized void add(String what, byte[] bytes, String problem, Throwable t) {
      count++;
      String key = problem + " " + (t == null ? "" : t.getClass().getName() + " " + origin(t));
      if (distinct.containsKey(key) || distinct.size() >= 8) {
        return;
      }
      String saved;
      try {
        Path d = Paths.get("target", "corruption-failures");
        Files.createDirectories(d);
        Path p = d.resolve(c.name + "-" + what.replaceAll("[^A-Za-z0-9._-]", "_") + ".riffle");
        Files.write(p, bytes);
        saved = p.toAbsolutePath().toString();
      } catch (IOException e) {
        saved = "(not saved: " + e + ")";
      }
      StringWriter trace = new StringWriter();
      if (t != null) {
        t.printStackTrace(new PrintWriter(trace));
      }
      distinct.put(
          key, c.name + " " + what + ": " + problem + "\n  input saved as " + saved + "\n" + trace);
    }

    String summary() {
      return count
          + " failures, "
          + corrupt
          + " reads rejected as corrupt, "
          + readable
          + " read without error";
    }

    void assertNone() {
      if (count > 0) {
        fail(
            where
                + ": "
                + count
                + " failures, "
                + distinct.size()
                + " distinct:\n"
                + String.join("\n", distinct.values()));
      }
    }
  }

  /** The first stack frame in Riffle's main code, to tell distinct bugs apart. */
  private static String origin(Throwable t) {
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().startsWith("dev.riffle.format")) {
        return e.toString();
      }
    }
    return t.getStackTrace().length > 0 ? t.getStackTrace()[0].toString() : "";
  }

  /**
   * What is wrong with a CorruptFileException's message for a file of this name and length (null if
   * nothing): it must name the resource and an offset inside the file.
   */
  static String messageProblem(CorruptFileException e, String name, long length) {
    String m = e.getMessage();
    if (m == null || !m.contains(name) || !m.contains("offset") || !name.equals(e.resource())) {
      return "message lacks the file name or \"offset\": " + m;
    }
    if (e.offset() < 0 || e.offset() > length) {
      return "offset " + e.offset() + " outside the file of " + length + " bytes: " + m;
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Read everything

  /** What "read everything" hands over, in order. Batches are closed after each call. */
  interface Observer {
    Observer NONE = new Observer() {};

    default void opened(FileReader r) {}

    default void described(List<ColumnInfo> columns, String pages) {}

    default void dictionaries(FileReader r, DictionaryProvider d) throws IOException {}

    default void scanned(int batch, VectorSchemaRoot b) {}

    default void took(VectorSchemaRoot got) {}
  }

  /**
   * Opens nothing, closes nothing: loads all columns, describes them and their pages, gets the
   * dictionaries, scans every row in batches of {@link #BATCH_ROWS}, takes {@code takeRows} (null:
   * all rows in a shuffled order, at most {@link #MAX_TAKE_ROWS}) and checks that the take returned
   * what the scan did for the same rows, then takes the rows again projected to the last field.
   */
  static void readEverything(FileReader r, long[] takeRows, Observer o, BufferAllocator a)
      throws IOException {
    o.opened(r);
    r.loadColumns(null);
    List<ColumnInfo> info = r.describe();
    StringBuilder pages = new StringBuilder();
    for (int c = 0; c < r.schema().columns().size(); c++) {
      pages.append(c).append(':');
      for (PageInfo p : r.pages(c)) {
        pages.append(' ').append(pageString(p));
      }
      pages.append('\n');
    }
    o.described(info, pages.toString());
    o.dictionaries(r, r.dictionaries());
    // Page statistics (1.4) and the filters they answer: damage reaches their checks too.
    for (Field f : r.schema().fields()) {
      List<PageStats> stats = r.pageStats(f.getName());
      for (PageStats s : stats) {
        s.toString();
      }
      RowRanges nulls = r.candidateRows(PageFilter.isNull(f.getName()));
      if (!stats.isEmpty() && nulls.rowCount() > rowCountOf(stats)) {
        throw new AssertionError("null filter keeps more rows than the pages hold");
      }
      PageStats first = stats.isEmpty() ? null : stats.get(0);
      if (first != null && first.hasMinMax() && !first.minIsPrefix() && first.min() != null) {
        Object min = first.min();
        if (!(min instanceof Integer)) { // a code range, not a value
          r.candidateRows(PageFilter.le(f.getName(), min));
        }
      }
    }
    long rowCount = r.rowCount();
    boolean keep = rowCount <= MAX_TAKE_ROWS;
    List<VectorSchemaRoot> scanned = new ArrayList<>();
    try {
      ScanCursor cursor = r.scan(null, BATCH_ROWS);
      long at = 0;
      int batch = 0;
      VectorSchemaRoot next;
      while (at < MAX_SCAN_ROWS && (next = cursor.next()) != null) {
        try (VectorSchemaRoot b = next) {
          long expected = Math.min(BATCH_ROWS, rowCount - at);
          if (b.getRowCount() != expected) {
            throw new AssertionError(
                "scan batch " + batch + " has " + b.getRowCount() + " rows, not " + expected);
          }
          o.scanned(batch++, b);
          if (keep) {
            scanned.add(b.slice(0, b.getRowCount()));
          }
          at += b.getRowCount();
        }
      }
      if (at < MAX_SCAN_ROWS && at != rowCount) {
        throw new AssertionError("scan returned " + at + " rows of " + rowCount);
      }
      long[] rows = takeRows != null ? takeRows : shuffledRows(rowCount, rowCount * 31 + 7);
      try (VectorSchemaRoot got = r.take(rows, null)) {
        if (got.getRowCount() != rows.length) {
          throw new AssertionError("take of " + rows.length + " returned " + got.getRowCount());
        }
        o.took(got);
        if (keep) {
          for (FieldVector v : got.getFieldVectors()) {
            for (int j = 0; j < rows.length; j++) {
              VectorSchemaRoot from = scanned.get((int) (rows[j] / BATCH_ROWS));
              FieldVector s = from.getVector(v.getName());
              int i = (int) (rows[j] % BATCH_ROWS);
              if (!rowEquals(s, i, v, j)) {
                throw new ValuesDiffer(
                    "take and scan disagree on field "
                        + v.getName()
                        + " row "
                        + rows[j]
                        + ": scan "
                        + render(s.getObject(i))
                        + ", take "
                        + render(v.getObject(j)));
              }
            }
          }
        }
      }
      if (!r.schema().fields().isEmpty()) {
        String last = r.schema().fields().get(r.schema().fields().size() - 1).getName();
        long[] some = Arrays.copyOf(rows, Math.min(rows.length, 50));
        try (VectorSchemaRoot got = r.take(some, List.of(last))) {
          if (got.getFieldVectors().size() != 1 || got.getRowCount() != some.length) {
            throw new AssertionError("projected take returned " + got.getSchema());
          }
        }
      }
    } finally {
      scanned.forEach(VectorSchemaRoot::close);
    }
  }

  private static long rowCountOf(List<PageStats> stats) {
    long n = 0;
    for (PageStats s : stats) {
      n += s.rowCount();
    }
    return n;
  }

  static String pageString(PageInfo p) {
    return p.offset()
        + "+"
        + p.byteLength()
        + "/rows "
        + p.firstRow()
        + "+"
        + p.rowCount()
        + "/"
        + ColumnLayout.layoutName(p.layout())
        + "/flags "
        + p.flags()
        + "/crc "
        + Integer.toHexString(p.crc32c())
        + "/slot "
        + p.slotWidth()
        + "/index "
        + (p.index() == null ? "-" : Integer.toString(p.index().size()));
  }

  /** All of [0, rowCount) shuffled if it has at most MAX_TAKE_ROWS rows, else a sample. */
  static long[] shuffledRows(long rowCount, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] rows;
    if (rowCount <= MAX_TAKE_ROWS) {
      rows = new long[(int) rowCount];
      Arrays.setAll(rows, i -> i);
      for (int i = rows.length - 1; i > 0; i--) {
        int j = r.nextInt(i + 1);
        long x = rows[i];
        rows[i] = rows[j];
        rows[j] = x;
      }
    } else {
      rows = r.longs(MAX_TAKE_ROWS, 0, rowCount).toArray();
      rows[0] = rowCount - 1;
      rows[1] = 0;
    }
    return rows;
  }

  static boolean rowEquals(ValueVector a, int i, ValueVector b, int j) {
    RangeEqualsVisitor eq =
        new RangeEqualsVisitor(a, b, (x, y) -> x.getMinorType() == y.getMinorType());
    return eq.rangeEquals(new Range(i, j, 1));
  }

  static void assertSame(VectorSchemaRoot expected, VectorSchemaRoot got, String where) {
    if (expected.getRowCount() != got.getRowCount()
        || expected.getFieldVectors().size() != got.getFieldVectors().size()) {
      throw new ValuesDiffer(
          where
              + ": "
              + got.getRowCount()
              + " rows of "
              + got.getSchema()
              + " instead of "
              + expected.getRowCount()
              + " rows of "
              + expected.getSchema());
    }
    for (int f = 0; f < got.getFieldVectors().size(); f++) {
      assertSame(expected.getVector(f), got.getVector(f), where);
    }
  }

  static void assertSame(ValueVector expected, ValueVector got, String where) {
    if (expected.getValueCount() != got.getValueCount()
        || !expected.getName().equals(got.getName())) {
      throw new ValuesDiffer(
          where
              + ": "
              + got.getName()
              + " has "
              + got.getValueCount()
              + " values instead of "
              + expected.getName()
              + "'s "
              + expected.getValueCount());
    }
    RangeEqualsVisitor eq =
        new RangeEqualsVisitor(expected, got, (x, y) -> x.getMinorType() == y.getMinorType());
    if (expected.getValueCount() == 0 || eq.rangeEquals(new Range(0, 0, got.getValueCount()))) {
      return;
    }
    for (int i = 0; i < got.getValueCount(); i++) {
      if (!rowEquals(expected, i, got, i)) {
        throw new ValuesDiffer(
            where
                + ": field "
                + got.getName()
                + " row "
                + i
                + " expected "
                + render(expected.getObject(i))
                + " got "
                + render(got.getObject(i)));
      }
    }
    throw new ValuesDiffer(where + ": field " + got.getName() + " differs");
  }

  static String render(Object o) {
    String s;
    if (o == null) {
      s = "null";
    } else if (o instanceof byte[]) {
      s = "0x" + HexFormat.of().formatHex((byte[]) o);
    } else if (o instanceof List) {
      s =
          ((List<?>) o)
              .stream().map(CorruptionTest::render).collect(Collectors.joining(", ", "[", "]"));
    } else if (o instanceof Map) {
      s =
          ((Map<?, ?>) o)
              .entrySet().stream()
                  .map(e -> e.getKey() + "=" + render(e.getValue()))
                  .collect(Collectors.joining(", ", "{", "}"));
    } else {
      s = o.toString();
    }
    return s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }

  /** What the undamaged file returned, kept to compare damaged reads with. */
  static final class Expected implements Observer, AutoCloseable {
    Schema schema;
    long rowCount;
    List<ColumnInfo> columns;
    String pages;
    FileReader reader;
    final List<VectorSchemaRoot> batches = new ArrayList<>();
    VectorSchemaRoot take;

    @Override
    public void opened(FileReader r) {
      reader = r;
      schema = r.arrowSchema();
      rowCount = r.rowCount();
    }

    @Override
    public void described(List<ColumnInfo> columns, String pages) {
      this.columns = columns;
      this.pages = pages;
    }

    @Override
    public void scanned(int batch, VectorSchemaRoot b) {
      batches.add(b.slice(0, b.getRowCount()));
    }

    @Override
    public void took(VectorSchemaRoot got) {
      take = got.slice(0, got.getRowCount());
    }

    /** An observer that throws {@link ValuesDiffer} where a read differs from this one. */
    Observer same() {
      Expected e = this;
      return new Observer() {
        @Override
        public void opened(FileReader r) {
          if (!r.arrowSchema().equals(e.schema) || r.rowCount() != e.rowCount) {
            throw new ValuesDiffer(
                "schema or row count differ: "
                    + r.arrowSchema()
                    + ", "
                    + r.rowCount()
                    + " rows instead of "
                    + e.schema
                    + ", "
                    + e.rowCount);
          }
        }

        @Override
        public void described(List<ColumnInfo> columns, String pages) {
          if (!columns.equals(e.columns) || !pages.equals(e.pages)) {
            throw new ValuesDiffer(
                "describe() or pages() differ:\n"
                    + columns
                    + "\n"
                    + pages
                    + "instead of\n"
                    + e.columns
                    + "\n"
                    + e.pages);
          }
        }

        @Override
        public void dictionaries(FileReader r, DictionaryProvider d) throws IOException {
          for (long id : e.reader.dictionaries().getDictionaryIds()) {
            Dictionary got = d.lookup(id);
            if (got == null) {
              throw new ValuesDiffer("dictionary " + id + " missing");
            }
            assertSame(e.dictionary(id), got.getVector(), "dictionary " + id);
          }
        }

        @Override
        public void scanned(int batch, VectorSchemaRoot b) {
          if (batch >= e.batches.size()) {
            throw new ValuesDiffer("scan returned more than " + e.batches.size() + " batches");
          }
          assertSame(e.batches.get(batch), b, "scan batch " + batch);
        }

        @Override
        public void took(VectorSchemaRoot got) {
          assertSame(e.take, got, "take");
        }
      };
    }

    FieldVector dictionary(long id) throws IOException {
      return reader.dictionaries().lookup(id).getVector();
    }

    @Override
    public void close() {
      batches.forEach(VectorSchemaRoot::close);
      if (take != null) {
        take.close();
      }
    }
  }

  /** An undamaged file of a case, its layout, and everything read from it. */
  static final class Original implements AutoCloseable {
    final TypeCase c;
    final byte[] bytes;
    final long[] takeRows;
    final FileReader reader;
    final Expected expected = new Expected();
    final Layout layout;

    Original(TypeCase c, long seed, BufferAllocator allocator) throws IOException {
      this.c = c;
      this.bytes = writeFile(c, c.severalPagesRows, seed, NULL_RATE, allocator);
      String name = c.name + ".riffle";
      this.reader = FileReader.open(new BytesSource(name, bytes), true, allocator);
      try {
        this.takeRows = shuffledRows(reader.rowCount(), seed);
        readEverything(reader, takeRows, expected, allocator);
        this.layout = new Layout(bytes, reader);
        assertThat(layout.pageCount)
            .as(c.name + ": every column should have several pages")
            .isGreaterThanOrEqualTo(2L * reader.schema().columns().size());
      } catch (IOException | RuntimeException | Error e) {
        close();
        throw e;
      }
    }

    @Override
    public void close() throws IOException {
      expected.close();
      reader.close();
    }
  }

  /** Where the parts of a valid file lie, and which bytes a checksum covers (FORMAT.md §7.6). */
  static final class Layout {
    final long schemaOffset;
    long firstBlock;
    long pageCount;

    /** Bytes that a checksum, magic or version check covers. */
    final BitSet checked = new BitSet();

    Layout(byte[] b, FileReader r) throws IOException {
      ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
      int f = b.length - FooterLayout.FOOTER_BYTES;
      schemaOffset = buf.getLong(f + FooterLayout.FOOTER_SCHEMA_OFFSET);
      long directoryOffset = buf.getLong(f + FooterLayout.FOOTER_DIRECTORY_OFFSET);
      int columns = buf.getInt(f + FooterLayout.FOOTER_COLUMN_COUNT);
      checked.set(0, 12);
      checked.set((int) schemaOffset, b.length);
      firstBlock = schemaOffset;
      for (int c = 0; c < columns; c++) {
        int e = (int) directoryOffset + c * DirectoryLayout.ENTRY_BYTES;
        long blockOffset = buf.getLong(e);
        long blockLength = buf.getLong(e + 8);
        checked.set((int) blockOffset, (int) (blockOffset + blockLength));
        firstBlock = Math.min(firstBlock, blockOffset);
      }
      for (int c = 0; c < columns; c++) {
        for (PageInfo p : r.pages(c)) {
          int from = (int) p.offset();
          int to = (int) (p.offset() + p.byteLength());
          checked.set(from, to);
          pageCount++;
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers shared with ReaderFuzzTest

  /** An immutable in-memory file. */
  static final class BytesSource implements RandomAccessSource {
    private final String name;
    private final byte[] bytes;
    boolean closed;

    BytesSource(String name, byte[] bytes) {
      this.name = name;
      this.bytes = bytes;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public long length() {
      return bytes.length;
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
      if (offset < 0) {
        // As FileChannel.read does.
        throw new IllegalArgumentException("negative position " + offset);
      }
      int n = dst.remaining();
      if (offset > bytes.length - (long) n) {
        throw new EOFException(name + ": end of file at offset " + bytes.length);
      }
      dst.put(bytes, (int) offset, n);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /**
   * Recomputes, where the framing allows, every checksum of a (damaged) file: sector CRCs, page
   * CRCs in the page entries, statistics section CRCs (1.4), column block CRCs, schema and
   * directory CRCs, and the footer CRC. A valid file is left unchanged. Never throws, whatever the
   * bytes.
   */
  static void repairChecksums(byte[] b) {
    int len = b.length;
    if (len < FileLayout.MIN_FILE_BYTES) {
      return;
    }
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int f = len - FooterLayout.FOOTER_BYTES;
    long schemaOffset = buf.getLong(f + FooterLayout.FOOTER_SCHEMA_OFFSET);
    long schemaLength = buf.getLong(f + FooterLayout.FOOTER_SCHEMA_LENGTH);
    long directoryOffset = buf.getLong(f + FooterLayout.FOOTER_DIRECTORY_OFFSET);
    long columns = buf.getInt(f + FooterLayout.FOOTER_COLUMN_COUNT) & 0xFFFFFFFFL;
    if (directoryOffset >= 0
        && directoryOffset <= f
        && columns * DirectoryLayout.ENTRY_BYTES == f - directoryOffset) {
      for (int c = 0; c < columns; c++) {
        int e = (int) directoryOffset + c * DirectoryLayout.ENTRY_BYTES;
        long blockOffset = buf.getLong(e);
        long blockLength = buf.getLong(e + 8);
        if (blockOffset >= 0
            && blockLength >= ColumnLayout.HEADER_BYTES + 4
            && blockLength <= len
            && blockOffset <= len - blockLength) {
          repairBlock(buf, (int) blockOffset, (int) blockLength);
        }
      }
      buf.putInt(
          f + FooterLayout.FOOTER_DIRECTORY_CRC,
          crc(buf, (int) directoryOffset, (int) (f - directoryOffset)));
    }
    if (schemaOffset >= 0 && schemaLength >= 0 && schemaOffset <= f && schemaLength <= f) {
      if (schemaOffset + schemaLength <= f) {
        buf.putInt(
            f + FooterLayout.FOOTER_SCHEMA_CRC, crc(buf, (int) schemaOffset, (int) schemaLength));
      }
    }
    buf.putInt(f + FooterLayout.FOOTER_CRC, crc(buf, f, FooterLayout.FOOTER_CRC));
  }

  private static void repairBlock(ByteBuffer buf, int at, int length) {
    int len = buf.capacity();
    long pages = buf.getInt(at) & 0xFFFFFFFFL;
    if (ColumnLayout.HEADER_BYTES + PageEntryLayout.ENTRY_BYTES * pages <= length - 4L) {
      long indexAt = at + ColumnLayout.HEADER_BYTES + PageEntryLayout.ENTRY_BYTES * pages;
      for (int p = 0; p < pages; p++) {
        int e = at + ColumnLayout.HEADER_BYTES + PageEntryLayout.ENTRY_BYTES * p;
        long offset = buf.getLong(e);
        long bytes = buf.getLong(e + 8);
        int layout = buf.get(e + 28) & 0xFF;
        int indexLength = buf.getInt(e + 40);
        long thisIndex = indexAt;
        indexAt += indexLength & 0xFFFFFFFFL;
        if (offset < 0 || bytes <= 0 || bytes > len || offset > len - bytes) {
          continue;
        }
        if ((buf.get(e + 29) & PageEntryLayout.FLAG_RECORD_CRC) != 0) {
          repairRecords(buf, layout, (int) offset, (int) bytes, buf.getInt(e + 36), thisIndex);
        }
        if (layout == ColumnLayout.LAYOUT_SECTORS
            && offset % FileLayout.SECTOR_BYTES == 0
            && bytes % FileLayout.SECTOR_BYTES == 0) {
          for (long s = offset; s < offset + bytes; s += FileLayout.SECTOR_BYTES) {
            int crcAt = (int) s + FileLayout.SECTOR_BYTES - 4;
            buf.putInt(crcAt, crc(buf, (int) s, FileLayout.SECTOR_BYTES - 4));
          }
        }
        buf.putInt(e + 32, crc(buf, (int) offset, (int) bytes));
      }
    }
    repairStats(buf, at, length);
    buf.putInt(at + length - 4, crc(buf, at, length - 4));
  }

  /**
   * Recomputes the CRC of a block's statistics section (FORMAT.md §4.5), found from the block's end
   * by its length, if the block says it has one and the length fits.
   */
  static void repairStats(ByteBuffer buf, int at, int length) {
    if (length < ColumnLayout.HEADER_BYTES + PageStatsLayout.TRAILER_BYTES + 4
        || (buf.getInt(at + 4) & ColumnLayout.FLAG_STATS) == 0) {
      return;
    }
    int trailer = at + length - 4 - PageStatsLayout.TRAILER_BYTES;
    long statsLength = buf.getInt(trailer) & 0xFFFFFFFFL;
    if (statsLength <= trailer - at - ColumnLayout.HEADER_BYTES) {
      int start = trailer - (int) statsLength;
      buf.putInt(trailer + 4, crc(buf, start, (int) statsLength + 4));
    }
  }

  /**
   * Recomputes the record CRCs of a zipped page (FORMAT.md §5.2, §5.3), so that a mutation reaches
   * the decoders behind them; records the index does not delimit sensibly are left alone.
   */
  private static void repairRecords(
      ByteBuffer buf, int layout, int offset, int bytes, int slot, long indexAt) {
    int crcBytes = ZipLayout.RECORD_CRC_BYTES;
    if (layout == ColumnLayout.LAYOUT_ZIP_FIXED) {
      if (slot > crcBytes && bytes % slot == 0) {
        for (int s = offset; s < offset + bytes; s += slot) {
          buf.putInt(s + slot - crcBytes, crc(buf, s, slot - crcBytes));
        }
      }
      return;
    }
    if (layout != ColumnLayout.LAYOUT_ZIP_VAR || indexAt > buf.capacity()) {
      return;
    }
    EliasFano ef;
    try {
      ef = EliasFano.read(buf.duplicate().position((int) indexAt), "repair", indexAt);
    } catch (CorruptFileException | RuntimeException e) {
      return;
    }
    for (int k = 0; k + 1 < ef.size(); k++) {
      long a = ef.get(k);
      long b = ef.get(k + 1);
      if (a < 0 || b > bytes || b - a < 1 + crcBytes || buf.get(offset + (int) a) == 0) {
        continue;
      }
      int from = offset + (int) a;
      int n = (int) (b - a) - crcBytes;
      buf.putInt(from + n, crc(buf, from, n));
    }
  }

  static int crc(ByteBuffer buf, int from, int length) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().limit(from + length).position(from));
    return (int) crc.getValue();
  }

  @Test
  void bytesSourceBehavesLikeAFile() throws Exception {
    BytesSource s = new BytesSource("x", new byte[] {1, 2, 3});
    ByteBuffer b = ByteBuffer.allocate(2);
    s.readFully(1, b);
    assertThat(b.array()).containsExactly(2, 3);
    assertThat(catchThrowable(() -> s.readFully(2, ByteBuffer.allocate(2))))
        .isInstanceOf(EOFException.class);
    assertThat(catchThrowable(() -> s.readFully(Long.MAX_VALUE, ByteBuffer.allocate(2))))
        .isInstanceOf(EOFException.class);
  }
}
