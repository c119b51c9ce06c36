package dev.riffle.loader.pipeline;

import dev.riffle.dataset.DatasetView;
import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Estimates decoded bytes per row of the projected columns, for the memory budget: a take of a few
 * evenly spaced rows, measured in Arrow buffer bytes.
 */
public final class RowBytes {
  private RowBytes() {}

  /**
   * Bytes the allocator holds for a batch's buffers: each underlying allocation counted once, at
   * the size it was accounted (rounded up the way the allocator rounds), which is what a memory
   * budget must count. Not {@link ArrowBuf#getActualMemoryConsumed()} per buffer: a fixed-width
   * vector's validity and data buffers are slices of one allocation, and each slice reports the
   * whole of it, so summing them counted a sparse row twice (about 33 KB for 16 KB held). Not the
   * readable bytes either: the allocation is up to twice those.
   */
  static long allocated(VectorSchemaRoot root) {
    Set<ReferenceManager> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    long bytes = 0;
    for (FieldVector v : root.getFieldVectors()) {
      bytes += allocated(v, seen);
    }
    return bytes;
  }

  private static long allocated(FieldVector v, Set<ReferenceManager> seen) {
    long bytes = 0;
    // The vector's own buffers whatever its value count (getBuffers returns none for an empty
    // vector, and a list's leaves out its child's), then its children's; each allocation once.
    for (ArrowBuf b : v.getFieldBuffers()) {
      ReferenceManager rm = b.getReferenceManager();
      if (b.capacity() > 0 && seen.add(rm)) {
        bytes += rm.getAccountedSize();
      }
    }
    for (FieldVector child : v.getChildrenFromFields()) {
      bytes += allocated(child, seen);
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
