package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.TypeCase;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scans of columns stored in sectors (FORMAT.md §5.1), plain and compressed, in batches that start
 * and end inside sectors: lists of nullable floats (Spark's arrays) with null rows, empty lists,
 * null items, and rows of more items than their sector's bytes suggest, whose vectors are sized
 * from the sectors and grow past that estimate; integers and floats with and without null rows.
 * Every row is compared with what was written, and the values of null items are zero, not bytes
 * left over in a buffer that was not zeroed.
 */
class SectorScanTest {
  private static final int ROWS = 6000;
  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              TypeCase.f("emb", ArrowType.List.INSTANCE, TypeCase.f("item", F32)),
              TypeCase.notNull("id", new ArrowType.Int(64, true)),
              TypeCase.f("n", new ArrowType.Int(32, true)),
              TypeCase.notNull(
                  "score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));

  @TempDir Path dir;

  /** Buffers of more than 64 bytes released: replaced by larger ones, or closed. */
  private final AtomicLong releases = new AtomicLong();

  private BufferAllocator allocator;
  private VectorSchemaRoot data;

  @BeforeEach
  void setUp() {
    allocator =
        new RootAllocator(
            new AllocationListener() {
              @Override
              public void onRelease(long size) {
                // Allocating list items bare replaces the items' initial one-slot buffer.
                if (size > 64) {
                  releases.incrementAndGet();
                }
              }
            },
            Long.MAX_VALUE);
    data = generate(allocator);
  }

  @AfterEach
  void tearDown() {
    data.close();
    allocator.close();
  }

  /** Row i: see the class comment; rows 2000–2999 are lists of 16 non-null items only. */
  private static VectorSchemaRoot generate(BufferAllocator a) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a);
    root.allocateNew();
    ListVector emb = (ListVector) root.getVector("emb");
    Float4Vector items = (Float4Vector) emb.getDataVector();
    BigIntVector id = (BigIntVector) root.getVector("id");
    IntVector n = (IntVector) root.getVector("n");
    Float8Vector score = (Float8Vector) root.getVector("score");
    int item = 0;
    for (int i = 0; i < ROWS; i++) {
      boolean plainRows = i >= 2000 && i < 3000;
      if (!plainRows && i % 97 == 0) {
        emb.setNull(i);
      } else {
        int count = plainRows ? 16 : i % 89 == 0 ? 0 : i % 101 == 0 ? 300 : 16;
        int first = emb.startNewValue(i);
        for (int k = 0; k < count; k++) {
          boolean nullItem =
              !plainRows && (count == 300 ? k != 150 : (i + k) % 53 == 0 || (i + k) % 59 == 0);
          if (nullItem) {
            items.setNull(first + k);
          } else {
            items.setSafe(first + k, ((i * 31 + k) % 1000) / 7f);
          }
          item++;
        }
        emb.endValue(i, count);
      }
      id.setSafe(i, 1_000_000L + 3L * i);
      if (i % 13 == 0 && !plainRows) {
        n.setNull(i);
      } else {
        n.setSafe(i, (i * 7919) % 5000);
      }
      score.setSafe(i, (i % 1000) / 3.0);
    }
    items.setValueCount(item);
    root.setRowCount(ROWS);
    return root;
  }

  @Test
  void plainSectorsScanExactly() throws Exception {
    scanAll(write("plain", WriterOptions.defaults().withZstdLevel(0)), "plain");
  }

  @Test
  void compressedSectorsScanExactly() throws Exception {
    scanAll(write("zstd", WriterOptions.defaults()), "zstd");
  }

  @Test
  void listsOfNonNullItemsAreSizedOnceFromTheirSectors() throws Exception {
    // Rows 2000-2999 hold 16 non-null items each: the estimate from the sectors' bytes covers
    // them, so no result buffer of such a batch is replaced while it is decoded.
    for (String kind : List.of("plain", "zstd")) {
      WriterOptions options =
          kind.equals("plain")
              ? WriterOptions.defaults().withZstdLevel(0)
              : WriterOptions.defaults();
      Path file = write(kind + "-sized", options);
      try (FileReader reader = FileReader.open(file, allocator);
          ScanCursor cursor = reader.scan(List.of("emb"), 300, 2000, 3000)) {
        for (VectorSchemaRoot b = next(cursor); b != null; b = next(cursor)) {
          try (VectorSchemaRoot got = b) {
            assertThat(releases.get()).as(kind + ": buffers replaced during a batch").isZero();
            assertRows(got, cursor.batchFirstRow(), kind);
          }
        }
      }
    }
  }

  private VectorSchemaRoot next(ScanCursor cursor) throws Exception {
    releases.set(0);
    return cursor.next();
  }

  private Path write(String name, WriterOptions options) throws Exception {
    Path file = dir.resolve(name + ".riffle");
    try (FileWriter w = FileWriter.create(file, SCHEMA, options)) {
      w.write(data);
      w.finish();
    }
    return file;
  }

  private void scanAll(Path file, String kind) throws Exception {
    int[] embSectors = SectorZstdTest.sectorKinds(file, allocator).get(0);
    assertThat(embSectors[kind.equals("zstd") ? 1 : 0]).as(kind + " sectors of emb").isPositive();
    try (FileReader reader = FileReader.open(file, allocator)) {
      reader.loadColumns(null);
      for (var c : reader.describe()) {
        assertThat(c.layouts().keySet()).as(kind + " " + c.name()).containsExactly("sectors");
      }
      // Batches of 4096 rows, and of 77 rows, which start and end inside sectors.
      for (int batch : new int[] {4096, 77}) {
        long at = 0;
        try (ScanCursor cursor = reader.scan(null, batch)) {
          for (VectorSchemaRoot b = cursor.next(); b != null; b = cursor.next()) {
            try (VectorSchemaRoot got = b) {
              assertThat(cursor.batchFirstRow()).isEqualTo(at);
              assertRows(got, at, kind + " batch " + batch);
              at += got.getRowCount();
            }
          }
        }
        assertThat(at).isEqualTo(ROWS);
      }
      long[] rows = {0, 1, 101, 202, 2500, 4039, 5999};
      try (VectorSchemaRoot got = reader.take(rows, null)) {
        for (int j = 0; j < rows.length; j++) {
          for (FieldVector actual : got.getFieldVectors()) {
            assertRow(data.getVector(actual.getName()), (int) rows[j], actual, j, kind + " take");
          }
        }
      }
    }
  }

  private void assertRows(VectorSchemaRoot got, long first, String where) {
    for (FieldVector actual : got.getFieldVectors()) {
      FieldVector expected = data.getVector(actual.getName());
      for (int j = 0; j < got.getRowCount(); j++) {
        assertRow(expected, (int) first + j, actual, j, where);
      }
    }
    ListVector emb = (ListVector) got.getVector("emb");
    if (emb != null) {
      Float4Vector items = (Float4Vector) emb.getDataVector();
      int end = emb.getOffsetBuffer().getInt(4L * got.getRowCount());
      for (int k = 0; k < end; k++) {
        if (items.isNull(k) && items.getDataBuffer().getInt(4L * k) != 0) {
          fail(where + ": null item " + k + " of a batch holds stale bytes");
        }
      }
    }
  }

  private static void assertRow(FieldVector expected, int i, FieldVector actual, int j, String w) {
    if (!new RangeEqualsVisitor(expected, actual).rangeEquals(new Range(i, j, 1))) {
      fail(w + ": field " + actual.getName() + " row " + i + " differs");
    }
  }
}
