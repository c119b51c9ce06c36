package dev.riffle.datagen;

import java.io.IOException;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Runs a {@link SyntheticData} over a row range: one generator seeded once, batches filled in row
 * order. Every writer of synthetic rows goes through here (or calls {@link SyntheticData#fill} in
 * the same order), which is what makes a seed name the same rows everywhere.
 */
public final class Batches {
  private Batches() {}

  /** Where generated batches go; returns whether to go on. */
  @FunctionalInterface
  public interface Sink {
    boolean accept(VectorSchemaRoot batch) throws IOException;
  }

  /**
   * Generates rows {@code [0, rows)} in batches of at most {@code batchRows} rows from a generator
   * seeded with {@code seed}, into {@code sink} until it says stop. Each batch is closed once the
   * sink returns. The rows do not depend on the batch size (see {@link SyntheticData}).
   *
   * @param rowsDone told the number of rows done after each batch; may be null
   */
  public static void generate(
      SyntheticData data,
      BufferAllocator allocator,
      long rows,
      long seed,
      int batchRows,
      Sink sink,
      LongConsumer rowsDone)
      throws IOException {
    if (batchRows < 1) {
      throw new IllegalArgumentException("batchRows must be at least 1, not " + batchRows);
    }
    SplittableRandom rng = new SplittableRandom(seed);
    for (long first = 0; first < rows; first += batchRows) {
      int count = (int) Math.min(batchRows, rows - first);
      boolean more;
      try (VectorSchemaRoot batch = VectorSchemaRoot.create(data.schema(), allocator)) {
        for (FieldVector v : batch.getFieldVectors()) {
          v.setInitialCapacity(count);
        }
        batch.allocateNew();
        data.fill(batch, first, count, rows, rng);
        batch.setRowCount(count);
        more = sink.accept(batch);
      }
      if (rowsDone != null) {
        rowsDone.accept(first + count);
      }
      if (!more) {
        return;
      }
    }
  }

  /**
   * Rows {@code [0, rows)} of a dataset of {@code rows} rows as one batch, which the caller closes:
   * the same rows as {@link #generate} with the same seed and row count.
   */
  public static VectorSchemaRoot all(
      SyntheticData data, BufferAllocator allocator, int rows, long seed) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(data.schema(), allocator);
    try {
      for (FieldVector v : batch.getFieldVectors()) {
        v.setInitialCapacity(rows);
      }
      batch.allocateNew();
      data.fill(batch, 0, rows, rows, new SplittableRandom(seed));
      batch.setRowCount(rows);
      return batch;
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
  }
}
