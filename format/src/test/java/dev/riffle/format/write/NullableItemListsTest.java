package dev.riffle.format.write;

import static dev.riffle.format.testing.TypeCase.f;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Packable lists whose item field is nullable (format 1.4, FORMAT.md §5.3), as Spark arrays and
 * Parquet lists declare theirs: a list without a null item packs after a 0 byte, one with a null
 * item stays plain after a 1 byte; both read back exactly, by take and by scan.
 */
@ExtendWith(SeedExtension.class)
class NullableItemListsTest {
  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  /** Ids and counts with nullable items, in a group and alone ("_cnt": integer-valued floats). */
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              f("ids_genes", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(32, true))),
              f("ids_cnt32", ArrowType.List.INSTANCE, f("item", F32)),
              f("ids_cnt64", ArrowType.LargeList.INSTANCE, f("item", F32))));

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private byte[] write(VectorSchemaRoot root, WriterOptions o) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileWriter w = FileWriter.create(out, SCHEMA, null, o)) {
      w.write(root);
      w.finish();
    }
    return out.toByteArray();
  }

  private static final WriterOptions OPTIONS =
      WriterOptions.defaults().withColumnGroup("ids_genes", "ids_cnt32").withPageBytes(64 * 1024);

  @Test
  void listsWithoutNullItemsPackAndAllReadBack(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    // A low null rate: most lists hold no null item, some do.
    try (VectorSchemaRoot source =
        RandomData.generate(SCHEMA, 300, r.nextLong(), 0.01, allocator)) {
      byte[] packed = write(source, OPTIONS);
      byte[] unpacked = write(source, OPTIONS.withPackRecords(false));
      try (FileReader f = FileReader.open(new BytesSource("n.riffle", packed), true, allocator);
          FileReader u = FileReader.open(new BytesSource("u.riffle", unpacked), true, allocator)) {
        SameRows.assertSameRows("nullable items", f, source, r, 400, 64);
        // Alone, a list with a null item would only grow by its 1 byte: it stays a plain record.
        int[] first = firstBytes(f, packed, 1);
        assertThat(first[0]).as("packed lists without null items").isPositive();
        assertThat(first[1]).as("packed lists alone with a null item").isZero();
        // In the group, the other list's packing pays for it: packed records holding a list with
        // a null item (in its plain form after a 1 byte) must occur.
        assertThat(packedRowsWithNullItems(f, packed, source))
            .as("packed group records holding a null item")
            .isPositive();
        assertThat(size(f)).as("packed vs unpacked bytes").isLessThan(size(u));
      }
    }
  }

  /** Of stored column {@code c}'s packed records (a list alone), how many start 0, how many 1. */
  private static int[] firstBytes(FileReader f, byte[] b, int c) throws IOException {
    int[] n = new int[256];
    for (PageInfo p : f.pages(c)) {
      if (p.layout() == ColumnLayout.LAYOUT_ZIP_VAR) {
        for (int k = 0; k < p.rowCount(); k++) {
          int at = (int) (p.offset() + p.index().get(k));
          if (b[at] == 9) {
            n[b[at + 1] & 0xFF]++;
          }
        }
      }
    }
    return n;
  }

  /** Rows of the group column (0) stored as packed records whose lists hold a null item. */
  private static int packedRowsWithNullItems(FileReader f, byte[] b, VectorSchemaRoot source)
      throws IOException {
    int n = 0;
    for (PageInfo p : f.pages(0)) {
      if (p.layout() != ColumnLayout.LAYOUT_ZIP_VAR) {
        continue;
      }
      for (int k = 0; k < p.rowCount(); k++) {
        int row = (int) (p.firstRow() + k);
        if (b[(int) (p.offset() + p.index().get(k))] == 9 && hasNullItem(source, row)) {
          n++;
        }
      }
    }
    return n;
  }

  private static boolean hasNullItem(VectorSchemaRoot source, int row) {
    for (String name : List.of("ids_genes", "ids_cnt32")) {
      var list = (org.apache.arrow.vector.complex.ListVector) source.getVector(name);
      if (!list.isNull(row)) {
        for (int i = list.getElementStartIndex(row); i < list.getElementEndIndex(row); i++) {
          if (list.getDataVector().isNull(i)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static long size(FileReader f) throws IOException {
    long n = 0;
    for (int c = 0; c < f.schema().columns().size(); c++) {
      for (PageInfo p : f.pages(c)) {
        n += p.byteLength();
      }
    }
    return n;
  }

  @Test
  void anUnknownNullItemsByteIsCorruptionAtItsOffset(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    try (VectorSchemaRoot source = RandomData.generate(SCHEMA, 40, r.nextLong(), 0.0, allocator)) {
      byte[] b = write(source, OPTIONS);
      int at = -1;
      long row = -1;
      try (FileReader f = FileReader.open(new BytesSource("b.riffle", b), true, allocator)) {
        for (PageInfo p : f.pages(1)) {
          for (int k = 0; k < p.rowCount() && at < 0; k++) {
            int x = (int) (p.offset() + p.index().get(k));
            if (b[x] == 9) {
              at = x + 1;
              row = p.firstRow() + k;
            }
          }
        }
      }
      assertThat(at).as("a packed ids_cnt64 record").isPositive();
      assertThat(b[at]).as("no null item").isEqualTo((byte) 0);
      byte[] c = b.clone();
      c[at] = 2;
      CorruptionTest.repairChecksums(c);
      long wanted = row;
      assertThatThrownBy(
              () -> {
                try (FileReader f =
                        FileReader.open(new BytesSource("c.riffle", c), true, allocator);
                    VectorSchemaRoot got = f.take(new long[] {wanted}, List.of("ids_cnt64"))) {
                  assertThat(got.getRowCount()).isEqualTo(1);
                }
              })
          .isInstanceOf(CorruptFileException.class)
          .hasMessage("c.riffle at offset " + at + ": unknown packed list null-items byte 2");
    }
  }
}
