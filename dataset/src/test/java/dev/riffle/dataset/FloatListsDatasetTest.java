package dev.riffle.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.testing.FloatBits;
import dev.riffle.format.testing.FloatListsData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.write.WriterOptions;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * The adversarial float columns of the format's bit-for-bit test ({@link FloatListsData}), written
 * as a dataset of several files, read back bit for bit by a take across files (random rows in any
 * order, with repeats: each file's take, then the rows copied into one batch) and by a scan of a
 * view of random rows.
 */
@ExtendWith(SeedExtension.class)
class FloatListsDatasetTest {
  private static final int ROWS = 5000;

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

  @Test
  void everyFloatReadsBackBitForBitAcrossFiles(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    LocalStorage storage = new LocalStorage(dir);
    try (VectorSchemaRoot source = FloatListsData.generate(ROWS, r, allocator)) {
      DatasetOptions options =
          DatasetOptions.defaults()
              .withTargetFileRows(1000 + r.nextInt(1000))
              .withFileOptions(WriterOptions.defaults().withPageBytes(16 * 1024));
      try (DatasetWriter w = DatasetWriter.create(storage, FloatListsData.SCHEMA, null, options)) {
        w.write(source);
        assertThat(w.publish().files()).hasSizeGreaterThan(2);
      }
      try (Dataset ds = Dataset.open(storage, allocator)) {
        long[] take = new long[3000];
        for (int i = 0; i < take.length; i++) {
          take[i] = r.nextInt(ROWS);
        }
        try (VectorSchemaRoot got = ds.take(take, null)) {
          for (int i = 0; i < take.length; i++) {
            assertSameRow("dataset take", source, (int) take[i], got, i);
          }
        }
        Roaring64Bitmap rows = new Roaring64Bitmap();
        for (int i = 0; i < ROWS; i++) {
          if (r.nextInt(3) == 0) {
            rows.addLong(i);
          }
        }
        var it = rows.getLongIterator();
        int seen = 0;
        try (DatasetView.Cursor c = ds.view(rows).scan(null, 1 + r.nextInt(700))) {
          VectorSchemaRoot batch;
          while ((batch = c.next()) != null) {
            try (VectorSchemaRoot got = batch) {
              for (int i = 0; i < got.getRowCount(); i++, seen++) {
                assertSameRow("view scan", source, (int) it.next(), got, i);
              }
            }
          }
        }
        assertThat((long) seen).isEqualTo(rows.getLongCardinality());
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
}
