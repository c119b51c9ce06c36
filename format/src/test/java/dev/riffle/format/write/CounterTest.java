package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.FileLayout;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.TakePlan;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Machine-independent cost of random access (no timing): after open and loading the search
 * metadata, a take of 256 rows whose byte ranges do not touch costs exactly one read per row, one
 * dependent round, and one 4 KiB sector per row for narrow values (⌈bytes/4096⌉ + 1 at most for
 * wide ones). Ranges that touch would be coalesced, which would only lower the counts.
 */
@ExtendWith(SeedExtension.class)
class CounterTest {
  private static final int TAKE = 256;
  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  @TempDir Path dir;
  private BufferAllocator allocator;
  private long seed;

  @BeforeEach
  void setUp(@Seed long seed) {
    allocator = new RootAllocator();
    this.seed = seed;
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Fills row i of the batch. */
  interface RowFiller {
    void fill(VectorSchemaRoot root, int i, SplittableRandom r);
  }

  private Path write(String name, Schema schema, int rows, WriterOptions options, RowFiller filler)
      throws Exception {
    Path file = dir.resolve(name + ".riffle");
    SplittableRandom r = new SplittableRandom(seed);
    try (FileWriter w = FileWriter.create(file, schema, options);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      int at = 0;
      while (at < rows) {
        int n = Math.min(1024, rows - at);
        root.allocateNew();
        for (int i = 0; i < n; i++) {
          filler.fill(root, i, r);
        }
        root.setRowCount(n);
        w.write(root);
        at += n;
      }
      w.finish();
    }
    return file;
  }

  /**
   * Takes 256 random rows whose byte ranges are pairwise apart and checks the counters.
   *
   * @param maxSectorsPerRow the most sectors one row may touch
   * @return bytes read per row
   */
  private double check(Path file, List<String> columns, int maxSectorsPerRow) throws Exception {
    String where = "file " + file;
    try (FileReader reader = FileReader.open(file, allocator)) {
      reader.loadColumns(columns);
      long[] rows = apartRows(reader, columns);
      ReadStats stats = reader.stats();
      stats.reset();
      try (VectorSchemaRoot got = reader.take(rows, columns)) {
        assertThat(got.getRowCount()).isEqualTo(TAKE);
      }
      assertThat(stats.reads()).as(where + " reads").isEqualTo(TAKE);
      assertThat(stats.rounds()).as(where + " rounds").isEqualTo(1);
      assertThat(stats.sectors())
          .as(where + " sectors")
          .isLessThanOrEqualTo((long) TAKE * maxSectorsPerRow)
          .isGreaterThanOrEqualTo(TAKE);
      assertThat(stats.valuesDecoded()).isEqualTo((long) TAKE * columns.size());
      return stats.bytesRead() / (double) TAKE;
    }
  }

  /**
   * Random rows whose planned ranges neither overlap nor touch, so none can be coalesced. Rows of
   * zipped pages touch their neighbours, so a greedy pick gets about n (1 - e^-2) / 2 of n rows:
   * files hold well over 600 rows so that 256 are always found.
   */
  private long[] apartRows(FileReader reader, List<String> columns) throws Exception {
    SplittableRandom r = new SplittableRandom(seed + 1);
    TreeSet<Long> starts = new TreeSet<>();
    List<long[]> taken = new ArrayList<>();
    long[] rows = new long[TAKE];
    int n = 0;
    for (int attempt = 0; n < TAKE && attempt < 100_000; attempt++) {
      long row = r.nextLong(reader.rowCount());
      TakePlan p = reader.plan(new long[] {row}, columns);
      assertThat(p.reads()).isEqualTo(1);
      long s = p.readOffset(0);
      long e = s + p.readLength(0);
      boolean clash = false;
      for (long[] t : taken) {
        if (s <= t[1] && t[0] <= e) {
          clash = true;
          break;
        }
      }
      if (!clash) {
        taken.add(new long[] {s, e});
        starts.add(s);
        rows[n++] = row;
      }
    }
    assertThat(n).as("found enough rows with separate ranges").isEqualTo(TAKE);
    return rows;
  }

  @Test
  void u64WithNullsIsOneSectorPerRow() throws Exception {
    Schema s = new Schema(List.of(TypeCase.f("u64", new ArrowType.Int(64, false))));
    Path f =
        write(
            "u64",
            s,
            1_000_000,
            WriterOptions.defaults(),
            (root, i, r) -> {
              UInt8Vector v = (UInt8Vector) root.getVector(0);
              if (r.nextInt(10) == 0) {
                v.setNull(i);
              } else {
                v.setSafe(i, r.nextLong());
              }
            });
    check(f, List.of("u64"), 1);
  }

  @Test
  void sixteenByteStringsAreOneSectorPerRow() throws Exception {
    Schema s = new Schema(List.of(TypeCase.f("str16", ArrowType.Utf8.INSTANCE)));
    Path f =
        write(
            "str16",
            s,
            300_000,
            WriterOptions.defaults(),
            (root, i, r) ->
                ((VarCharVector) root.getVector(0)).setSafe(i, RandomData.ascii(r, 16)));
    check(f, List.of("str16"), 1);
  }

  @Test
  void shortListsAreOneSectorPerRow() throws Exception {
    Schema s =
        new Schema(
            List.of(
                TypeCase.f(
                    "list_u64",
                    ArrowType.List.INSTANCE,
                    TypeCase.f("item", new ArrowType.Int(64, false)))));
    Path f =
        write(
            "list_u64",
            s,
            200_000,
            WriterOptions.defaults(),
            (root, i, r) -> {
              ListVector l = (ListVector) root.getVector(0);
              int n = 1 + r.nextInt(9);
              int start = l.startNewValue(i);
              for (int k = 0; k < n; k++) {
                ((UInt8Vector) l.getDataVector()).setSafe(start + k, r.nextLong());
              }
              l.endValue(i, n);
            });
    check(f, List.of("list_u64"), 1);
  }

  @Test
  void vectorsAreOneReadOfAtMostTwoSectors() throws Exception {
    Field vec = TypeCase.f("vec768", new ArrowType.FixedSizeList(768), TypeCase.notNull("x", F32));
    Schema s = new Schema(List.of(vec));
    Path f =
        write(
            "vec768",
            s,
            4000,
            WriterOptions.defaults(),
            (root, i, r) -> {
              FixedSizeListVector l = (FixedSizeListVector) root.getVector(0);
              int start = l.startNewValue(i);
              for (int k = 0; k < 768; k++) {
                ((Float4Vector) l.getDataVector()).setSafe(start + k, (float) r.nextDouble());
              }
            });
    double bytes = check(f, List.of("vec768"), 3072 / FileLayout.SECTOR_BYTES + 2);
    // The 3072-byte vector and its record CRC.
    assertThat(bytes).isEqualTo(3072.0 + ZipLayout.RECORD_CRC_BYTES);
  }

  @Test
  void wideBinaryIsOneRead() throws Exception {
    Schema s = new Schema(List.of(TypeCase.f("bin20k", ArrowType.Binary.INSTANCE)));
    Path f =
        write(
            "bin20k",
            s,
            1200,
            WriterOptions.defaults(),
            (root, i, r) -> {
              byte[] b = new byte[20 * 1024];
              r.nextBytes(b);
              ((VarBinaryVector) root.getVector(0)).setSafe(i, b);
            });
    // Equal-sized non-null values go to fixed slots: exactly 20 KiB, 5 sectors or 6 unaligned.
    double bytes = check(f, List.of("bin20k"), 6);
    assertThat(bytes).isEqualTo(20 * 1024.0 + ZipLayout.RECORD_CRC_BYTES);
  }

  @Test
  void listOfBinaryIsOneRead() throws Exception {
    Schema s =
        new Schema(
            List.of(
                TypeCase.f(
                    "list_bin",
                    ArrowType.List.INSTANCE,
                    TypeCase.f("item", ArrowType.Binary.INSTANCE))));
    Path f =
        write(
            "list_bin",
            s,
            1500,
            WriterOptions.defaults(),
            (root, i, r) -> {
              ListVector l = (ListVector) root.getVector(0);
              int n = 1 + r.nextInt(3);
              int start = l.startNewValue(i);
              for (int k = 0; k < n; k++) {
                byte[] b = new byte[4000 + r.nextInt(8000)];
                r.nextBytes(b);
                ((VarBinaryVector) l.getDataVector()).setSafe(start + k, b);
              }
              l.endValue(i, n);
            });
    // At most 3 × 12 KB + framing: ⌈36,020 / 4096⌉ + 1 sectors.
    check(f, List.of("list_bin"), 10);
  }

  @Test
  void groupOfFiveScalarsIsOneReadAndOneSector() throws Exception {
    Schema s =
        new Schema(
            List.of(
                TypeCase.f("a", new ArrowType.Int(64, true)),
                TypeCase.f("b", F32),
                TypeCase.f("c", new ArrowType.Int(16, true)),
                TypeCase.f("d", ArrowType.Bool.INSTANCE),
                TypeCase.f("e", ArrowType.Utf8.INSTANCE)));
    WriterOptions o = WriterOptions.defaults().withColumnGroup("a", "b", "c", "d", "e");
    Path f =
        write(
            "group5",
            s,
            300_000,
            o,
            (root, i, r) -> {
              ((BigIntVector) root.getVector(0)).setSafe(i, r.nextLong());
              ((Float4Vector) root.getVector(1)).setSafe(i, (float) r.nextDouble());
              ((SmallIntVector) root.getVector(2)).setSafe(i, (short) r.nextInt());
              ((BitVector) root.getVector(3)).setSafe(i, r.nextInt(2));
              ((VarCharVector) root.getVector(4))
                  .setSafe(i, "x".repeat(r.nextInt(8)).getBytes(StandardCharsets.UTF_8));
            });
    check(f, List.of("a", "b", "c", "d", "e"), 1);
  }

  @Test
  void sparseRowGroupIsOneRead() throws Exception {
    Schema s =
        new Schema(
            List.of(
                TypeCase.f(
                    "indices",
                    ArrowType.List.INSTANCE,
                    TypeCase.notNull("item", new ArrowType.Int(32, true))),
                TypeCase.f("values", ArrowType.List.INSTANCE, TypeCase.notNull("item", F32))));
    WriterOptions o = WriterOptions.defaults().withColumnGroup("indices", "values");
    Path f =
        write(
            "sparse",
            s,
            2000,
            o,
            (root, i, r) -> {
              ListVector idx = (ListVector) root.getVector(0);
              ListVector val = (ListVector) root.getVector(1);
              int n = 300 + r.nextInt(2400);
              int a = idx.startNewValue(i);
              int b = val.startNewValue(i);
              int gene = 0;
              for (int k = 0; k < n; k++) {
                gene += 1 + r.nextInt(10);
                ((org.apache.arrow.vector.IntVector) idx.getDataVector()).setSafe(a + k, gene);
                ((Float4Vector) val.getDataVector()).setSafe(b + k, (float) r.nextDouble());
              }
              idx.endValue(i, n);
              val.endValue(i, n);
            });
    // Up to 2,700 × 8 bytes: 6 sectors, 7 when unaligned.
    check(f, List.of("indices", "values"), 7);
  }
}
