package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.read.FileReader;
import java.io.IOException;
import java.util.SplittableRandom;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Checks that a file reads back its source row for row, through both read paths: a take of random
 * rows (in random order, with repeats) and a scan in batches of a random size. Values are compared
 * as {@link GoldenFilesTest#format} text, so byte arrays compare by content.
 */
final class SameRows {
  private SameRows() {}

  /**
   * @param maxTake the take's length is {@code min(maxTake, 2 · rows)}
   * @param maxBatch scan batches hold 1 to {@code maxBatch} rows
   */
  static void assertSameRows(
      String what,
      FileReader f,
      VectorSchemaRoot source,
      SplittableRandom r,
      int maxTake,
      int maxBatch)
      throws IOException {
    int rows = source.getRowCount();
    int columns = source.getFieldVectors().size();
    long[] take = new long[(int) Math.min(maxTake, 2L * rows)];
    for (int i = 0; i < take.length; i++) {
      take[i] = r.nextInt(rows);
    }
    try (VectorSchemaRoot got = f.take(take, null)) {
      for (int c = 0; c < columns; c++) {
        for (int i = 0; i < take.length; i++) {
          assertThat(text(got.getVector(c).getObject(i)))
              .as(what + ": take of row " + take[i] + ", column " + c)
              .isEqualTo(text(source.getVector(c).getObject((int) take[i])));
        }
      }
    }
    int at = 0;
    var cursor = f.scan(null, 1 + r.nextInt(maxBatch));
    VectorSchemaRoot batch;
    while ((batch = cursor.next()) != null) {
      try (VectorSchemaRoot b = batch) {
        for (int i = 0; i < b.getRowCount(); i++, at++) {
          for (int c = 0; c < columns; c++) {
            assertThat(text(b.getVector(c).getObject(i)))
                .as(what + ": scan row " + at + ", column " + c)
                .isEqualTo(text(source.getVector(c).getObject(at)));
          }
        }
      }
    }
    assertThat(at).as(what + ": rows scanned").isEqualTo(rows);
  }

  static String text(Object o) {
    return GoldenFilesTest.format(o);
  }
}
