package dev.riffle.loader.pipeline;

import dev.riffle.format.dataset.DatasetView;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Estimates decoded bytes per row of the projected columns, for the memory budget: a take of a few
 * evenly spaced rows, measured in Arrow buffer bytes.
 */
public final class RowBytes {
  private RowBytes() {}

  /**
   * Bytes the allocator accounts for a batch's buffers (capacities as allocated, rounded up the way
   * the allocator rounds), which is what a memory budget must count, not the bytes used.
   */
  static long allocated(VectorSchemaRoot root) {
    long bytes = 0;
    for (FieldVector v : root.getFieldVectors()) {
      for (ArrowBuf b : v.getBuffers(false)) {
        bytes += b.getActualMemoryConsumed();
      }
    }
    return bytes;
  }

  /**
   * Mean Arrow bytes per row over {@code sample} evenly spaced rows of the view (at least 1).
   *
   * @param fields columns, null for all
   */
  public static long estimate(DatasetView view, List<String> fields, int sample)
      throws IOException {
    long n = view.rowCount();
    if (n == 0) {
      return 1;
    }
    int k = (int) Math.min(n, Math.max(1, sample));
    long[] positions = new long[k];
    for (int i = 0; i < k; i++) {
      positions[i] = i * n / k;
    }
    try (VectorSchemaRoot root = view.take(positions, fields)) {
      long bytes = allocated(root);
      return Math.max(1, (bytes + k - 1) / k);
    }
  }
}
