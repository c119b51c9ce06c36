package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Takes and scans of wide variable-size rows (ZIP_FIXED and ZIP_VAR pages) allocate every result
 * buffer once, at its final size: no buffer is released (replaced by a larger one) while a batch is
 * built. Counted through the allocator's listener, so machine-independent; the rows are also
 * compared with what was written.
 */
@ExtendWith(SeedExtension.class)
class PresizeTest {
  private static final int ROWS = 400;

  /**
   * Pages large enough that each column is one page. With default pages a short last page can hold
   * only empty or null rows and be written as sectors, whose rows are not pre-sized (they grow).
   */
  private static final int ONE_PAGE = 64 << 20;

  @TempDir Path dir;
  private final AtomicLong allocations = new AtomicLong();
  private final AtomicLong releases = new AtomicLong();
  private BufferAllocator allocator;
  private long seed;

  @BeforeEach
  void setUp(@Seed long seed) {
    allocator =
        new RootAllocator(
            new AllocationListener() {
              @Override
              public void onAllocation(long size) {
                allocations.incrementAndGet();
              }

              @Override
              public void onRelease(long size) {
                releases.incrementAndGet();
              }
            },
            Long.MAX_VALUE);
    this.seed = seed;
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Field names steer RandomData: long_ values of 1.5–6 KiB, zstd_ compressible 3–6 KiB. */
  private static List<Field> fields() {
    ArrowType bin = ArrowType.Binary.INSTANCE;
    ArrowType utf8 = ArrowType.Utf8.INSTANCE;
    return List.of(
        TypeCase.f("long_s", utf8),
        TypeCase.f("zstd_b", bin),
        TypeCase.f("long_lb", ArrowType.List.INSTANCE, TypeCase.notNull("item", bin)),
        TypeCase.f(
            "long_ll",
            ArrowType.LargeList.INSTANCE,
            TypeCase.f("item", ArrowType.LargeBinary.INSTANCE)),
        TypeCase.f(
            "long_ls",
            ArrowType.List.INSTANCE,
            TypeCase.f(
                "item",
                ArrowType.Struct.INSTANCE,
                TypeCase.f("a", new ArrowType.Int(32, true)),
                TypeCase.f("b", utf8))),
        TypeCase.f("long_fsl", new ArrowType.FixedSizeList(3), TypeCase.f("item", utf8)));
  }

  @Test
  void takesAndScansAllocateEachBufferOnce() throws Exception {
    // zstd only where the record is one binary value, whose inflated size the frame header gives;
    // other compressed records would have to be inflated twice to be measured, and are not.
    for (Field f : fields()) {
      WriterOptions options = WriterOptions.defaults().withPageBytes(ONE_PAGE);
      check(
          new Schema(List.of(f)),
          f.getName().startsWith("zstd_") ? options : options.withZstdLevel(0),
          f.getName());
    }
  }

  @Test
  void groupsAllocateEachBufferOnce() throws Exception {
    Schema schema = new Schema(fields().subList(0, 3));
    WriterOptions options =
        WriterOptions.defaults()
            .withPageBytes(ONE_PAGE)
            .withZstdLevel(0)
            .withColumnGroup("long_s", "zstd_b", "long_lb");
    check(schema, options, "group");
  }

  private void check(Schema schema, WriterOptions options, String name) throws Exception {
    String where = name;
    Path file = dir.resolve(name + ".riffle");
    try (VectorSchemaRoot data = RandomData.generate(schema, ROWS, seed, 0.1, allocator)) {
      try (FileWriter w = FileWriter.create(file, schema, options)) {
        w.write(data);
        w.finish();
      }
      try (FileReader reader = FileReader.open(file, allocator)) {
        reader.loadColumns(null);
        assertThat(reader.describe().get(0).layouts().keySet())
            .as(where + " pages")
            .containsAnyOf("zip-var", "zip-fixed")
            .doesNotContain("sectors");
        SplittableRandom r = new SplittableRandom(seed);
        long[] rows = r.longs(150, 0, ROWS).toArray();
        long before = allocator.getAllocatedMemory();
        releases.set(0);
        try (VectorSchemaRoot got = reader.take(rows, null)) {
          assertThat(releases.get()).as(where + " buffers replaced during a take").isZero();
          assertThat(got.getRowCount()).isEqualTo(rows.length);
          assertRows(data, rows, got, where + " take");
        }
        assertThat(allocator.getAllocatedMemory()).isEqualTo(before);
        ScanCursor cursor = reader.scan(null, 70);
        long at = 0;
        while (true) {
          releases.set(0);
          VectorSchemaRoot b = cursor.next();
          if (b == null) {
            break;
          }
          try (VectorSchemaRoot got = b) {
            assertThat(releases.get()).as(where + " buffers replaced during a scan").isZero();
            long[] idx = new long[got.getRowCount()];
            for (int i = 0; i < idx.length; i++) {
              idx[i] = at + i;
            }
            assertRows(data, idx, got, where + " scan");
            at += idx.length;
          }
        }
        assertThat(at).isEqualTo(ROWS);
      }
    }
  }

  private static void assertRows(
      VectorSchemaRoot data, long[] rows, VectorSchemaRoot got, String where) {
    for (FieldVector actual : got.getFieldVectors()) {
      FieldVector expected = data.getVector(actual.getName());
      for (int j = 0; j < rows.length; j++) {
        if (!new RangeEqualsVisitor(expected, actual).rangeEquals(new Range((int) rows[j], j, 1))) {
          fail(where + ": field " + actual.getName() + " row " + rows[j] + " differs");
        }
      }
    }
  }
}
