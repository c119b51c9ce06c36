package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.DirectoryLayout;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.PageStats;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
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

/**
 * Damaged statistics (FORMAT.md §4.5) are an error, never a skip: a flipped byte anywhere in a
 * statistics section behind a recomputed block CRC fails the section's own CRC; behind both
 * recomputed CRCs, it fails a consistency check or leaves statistics that pass them all (what the
 * spec says no reader can tell); and each rule of §4.5, broken on purpose, is a {@link
 * CorruptFileException} naming the file and an offset. The STATS flag is refused in a 1.0 file and
 * required in a 1.4 one.
 */
@ExtendWith(SeedExtension.class)
class PageStatsCorruptionTest {
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
  void flipsInStatisticsFailTheirChecksum(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    int flips = 0;
    for (byte[] file : files(seed)) {
      for (int c = 0; c < columns(file); c++) {
        int[] section = section(file, c);
        for (int k = 0; k < 25; k++) {
          int at = section[0] + r.nextInt(section[1] - section[0]);
          byte[] b = file.clone();
          b[at] ^= (byte) (1 + r.nextInt(255));
          repairBlockCrc(b, c);
          String name = "flip-" + c + "-" + at;
          Throwable t = load(b, name);
          assertThat(t).as("%s: a flip in the statistics section", name).isNotNull();
          assertThat(t).isInstanceOf(CorruptFileException.class);
          assertThat(t.getMessage()).startsWith(name + " at offset ").contains("statistics");
          flips++;
        }
      }
    }
    assertThat(flips).isGreaterThan(100);
  }

  @Test
  void flipsBehindBothChecksumsAreCaughtOrPassEveryCheck(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    int caught = 0;
    int passed = 0;
    for (byte[] file : files(seed)) {
      for (int c = 0; c < columns(file); c++) {
        int[] section = section(file, c);
        for (int k = 0; k < 25; k++) {
          int at = section[0] + r.nextInt(section[1] - section[0]);
          byte[] b = file.clone();
          b[at] ^= (byte) (1 + r.nextInt(255));
          CorruptionTest.repairChecksums(b);
          String name = "repaired-flip-" + c + "-" + at;
          Throwable t = load(b, name);
          if (t == null) {
            passed++;
            continue;
          }
          assertThat(t).as(name).isInstanceOf(CorruptFileException.class);
          assertThat(t.getMessage()).startsWith(name + " at offset ");
          caught++;
        }
      }
    }
    System.out.println(
        "statistics flips behind repaired checksums: "
            + caught
            + " caught, "
            + passed
            + " well-formed");
    assertThat(caught).isPositive();
  }

  /** Opens, loads every column, reads all statistics and applies filters; null if all went well. */
  private Throwable load(byte[] b, String name) {
    return catchThrowable(
        () -> {
          try (FileReader r = FileReader.open(new BytesSource(name, b), true, allocator)) {
            r.loadColumns(null);
            for (Field f : r.schema().fields()) {
              List<PageStats> s = r.pageStats(f.getName());
              for (PageStats p : s) {
                assertThat(p.nullCount()).isBetween(0L, p.rowCount());
              }
              r.candidateRows(PageFilter.isNotNull(f.getName()));
            }
          }
        });
  }

  // ---------------------------------------------------------------------------------------------
  // Each rule, broken

  /**
   * One page per column: {@code n} int32 (rows 0..99, row 5 null), {@code x} float64 (0.0 to 49.5,
   * so its min is a zero), {@code s} utf8, {@code cat} a dictionary of 10, {@code b} bool.
   */
  private byte[] small() throws Exception {
    DictionaryEncoding enc = new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
    Schema schema =
        new Schema(
            List.of(
                TypeCase.f("n", new ArrowType.Int(32, true)),
                TypeCase.f("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                TypeCase.f("s", ArrowType.Utf8.INSTANCE),
                new Field("cat", new FieldType(true, new ArrowType.Int(8, true), enc), null),
                TypeCase.f("b", ArrowType.Bool.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        VarCharVector dict = new VarCharVector("cat", allocator)) {
      for (int k = 0; k < 10; k++) {
        dict.setSafe(k, ("c" + k).getBytes(StandardCharsets.UTF_8));
      }
      dict.setValueCount(10);
      IntVector n = (IntVector) root.getVector("n");
      Float8Vector x = (Float8Vector) root.getVector("x");
      VarCharVector s = (VarCharVector) root.getVector("s");
      var cat = (org.apache.arrow.vector.TinyIntVector) root.getVector("cat");
      BitVector bool = (BitVector) root.getVector("b");
      for (int i = 0; i < 100; i++) {
        if (i == 5) {
          n.setNull(i);
        } else {
          n.setSafe(i, i);
        }
        x.setSafe(i, i / 2.0);
        s.setSafe(i, ("s" + (i % 7)).getBytes(StandardCharsets.UTF_8));
        cat.setSafe(i, i % 10);
        bool.setSafe(i, i % 2);
      }
      root.setRowCount(100);
      DictionaryProvider.MapDictionaryProvider p = new DictionaryProvider.MapDictionaryProvider();
      p.put(new Dictionary(dict, enc));
      return PageStatsTest.write(root, p, WriterOptions.defaults());
    }
  }

  private interface Damage {
    void apply(ByteBuffer b, int entry);
  }

  /** Damages the first entry of column {@code c}, repairs every checksum, expects the error. */
  private void broken(byte[] file, int c, String what, Damage d, String message) throws Exception {
    byte[] b = file.clone();
    int entry = section(b, c)[0];
    d.apply(ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN), entry);
    CorruptionTest.repairChecksums(b);
    Throwable t = load(b, what);
    assertThat(t).as(what).isInstanceOf(CorruptFileException.class);
    assertThat(t.getMessage()).as(what).startsWith(what + " at offset ").contains(message);
  }

  @Test
  void everyRuleIsChecked() throws Exception {
    byte[] f = small();
    assertThat(load(f, "small")).isNull();
    // n: int32 entry = nullCount, flags, min (4), max (4).
    broken(f, 0, "nulls-above-rows", (b, e) -> b.putInt(e, 101), "null count 101 of 100 rows");
    broken(f, 0, "nulls-vs-flag", (b, e) -> b.putInt(e, 0), "HAS_NULLS");
    broken(f, 0, "unknown-flag", (b, e) -> b.put(e + 4, (byte) 0x11), "bad statistics flags");
    broken(f, 0, "nan-flag-on-int", (b, e) -> b.put(e + 4, (byte) 0x03), "bad statistics flags");
    broken(f, 0, "no-range", (b, e) -> b.put(e + 4, (byte) 0), "do not fit");
    broken(
        f,
        0,
        "min-above-max",
        (b, e) -> {
          int min = b.getInt(e + 5);
          b.putInt(e + 5, b.getInt(e + 9));
          b.putInt(e + 9, min);
        },
        "min greater than max");
    // x: float64, min 0.0 written -0.0.
    broken(f, 1, "nan-min", (b, e) -> b.putDouble(e + 5, Double.NaN), "NaN bound");
    broken(f, 1, "plus-zero-min", (b, e) -> b.putDouble(e + 5, 0.0), "wrong sign");
    // NaN and no bounds: allowed, but then the bounds written are bytes too many.
    broken(f, 1, "nan-instead-of-range", (b, e) -> b.put(e + 4, (byte) 0x02), "trailing bytes");
    // s: utf8, flags RANGE, min "s0" (u8 2), max "s6".
    broken(f, 2, "short-prefix", (b, e) -> b.put(e + 4, (byte) 0x05), "bad bound length 2");
    broken(f, 2, "long-bound", (b, e) -> b.put(e + 5, (byte) 65), "bad bound length 65");
    // cat: 10 codes, a 2-byte bitmap after nullCount and flags.
    broken(f, 3, "bitmap-padding", (b, e) -> b.put(e + 6, (byte) 0x07), "code bitmap");
    broken(f, 3, "bitmap-empty", (b, e) -> b.putShort(e + 5, (short) 0), "code bitmap");
    broken(f, 3, "codes-with-range", (b, e) -> b.put(e + 4, (byte) 1), "bad statistics flags");
    // b: bool bounds 0 and 1.
    broken(f, 4, "bool-bound", (b, e) -> b.put(e + 6, (byte) 2), "boolean bound");
    // The section's length.
    broken(f, 0, "stats-length", (b, e) -> statsLength(b, 0, +1), "statistics section");
    broken(f, 0, "stats-length-huge", (b, e) -> statsLength(b, 0, 1 << 30), "claims");
  }

  @Test
  void theStatsFlagIsRequiredIn14AndRefusedIn10() throws Exception {
    byte[] f = small();
    byte[] cleared = f.clone();
    flipStatsFlag(cleared, 0);
    CorruptionTest.repairChecksums(cleared);
    Throwable t = load(cleared, "cleared");
    assertThat(t).isInstanceOf(CorruptFileException.class);
    assertThat(t.getMessage()).startsWith("cleared at offset ").contains("no statistics section");

    byte[] old =
        Files.readAllBytes(GoldenFilesTest.GOLDEN.resolve("1.0").resolve("dictionary.riffle"));
    assertThat(load(old, "old")).isNull();
    flipStatsFlag(old, 0);
    CorruptionTest.repairChecksums(old);
    t = load(old, "old-with-flag");
    assertThat(t).isInstanceOf(CorruptFileException.class);
    assertThat(t.getMessage())
        .startsWith("old-with-flag at offset ")
        .contains("unknown column flags 3");
  }

  // ---------------------------------------------------------------------------------------------
  // Finding the statistics in a file's bytes

  private List<byte[]> files(long seed) throws Exception {
    List<byte[]> out = new ArrayList<>();
    out.add(small());
    out.add(Files.readAllBytes(GoldenFilesTest.GOLDEN.resolve("page-stats.riffle")));
    for (TypeCase c : CorruptionTest.fileCases()) {
      if (List.of("sectors", "dictionary", "groups", "nested").contains(c.name)) {
        out.add(CorruptionTest.writeFile(c, c.severalPagesRows, seed, 0.1, allocator));
      }
    }
    return out;
  }

  private static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static int columns(byte[] b) {
    return le(b).getInt(b.length - FooterLayout.FOOTER_BYTES + FooterLayout.FOOTER_COLUMN_COUNT);
  }

  /** Offset and length of column {@code c}'s block. */
  private static int[] block(byte[] b, int c) {
    ByteBuffer buf = le(b);
    int f = b.length - FooterLayout.FOOTER_BYTES;
    int dir = (int) buf.getLong(f + FooterLayout.FOOTER_DIRECTORY_OFFSET);
    int e = dir + c * DirectoryLayout.ENTRY_BYTES;
    return new int[] {(int) buf.getLong(e), (int) buf.getLong(e + 8)};
  }

  /** Column {@code c}'s statistics section: [first entry byte, end of its trailer). */
  private static int[] section(byte[] b, int c) {
    int[] k = block(b, c);
    int trailer = k[0] + k[1] - 4 - PageStatsLayout.TRAILER_BYTES;
    int length = le(b).getInt(trailer);
    return new int[] {trailer - length, trailer + PageStatsLayout.TRAILER_BYTES};
  }

  private static void statsLength(ByteBuffer b, int c, int delta) {
    int[] k = block(b.array(), c);
    int trailer = k[0] + k[1] - 4 - PageStatsLayout.TRAILER_BYTES;
    b.putInt(trailer, b.getInt(trailer) + delta);
  }

  private static void flipStatsFlag(byte[] b, int c) {
    int at = block(b, c)[0] + 4;
    b[at] ^= (byte) ColumnLayout.FLAG_STATS;
  }

  /** Recomputes only the block CRC of column {@code c}, not the statistics CRC. */
  private static void repairBlockCrc(byte[] b, int c) {
    int[] k = block(b, c);
    le(b).putInt(k[0] + k[1] - 4, CorruptionTest.crc(le(b), k[0], k[1] - 4));
  }
}
