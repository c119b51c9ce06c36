package dev.riffle.bench;

import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Public access to the lance8 generator for the JMH benchmarks (another package). */
public final class Lance8Access {
  private Lance8Access() {}

  public static boolean narrow(String type) {
    return Lance8.narrow(type);
  }

  /** A batch of {@code rows} rows of one lance8 type. */
  public static VectorSchemaRoot batch(
      String type, int rows, BufferAllocator allocator, long seed) {
    VectorSchemaRoot root =
        VectorSchemaRoot.create(new Schema(List.of(Lance8.field(type))), allocator);
    root.allocateNew();
    Lance8.fill(type, root.getVector(0), rows, new SplittableRandom(seed));
    root.setRowCount(rows);
    return root;
  }
}
