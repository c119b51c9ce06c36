package dev.riffle.format.read;

import dev.riffle.format.io.IoEngine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A take whose reads run on a concurrent engine without one area to hold them all (a take larger
 * than {@link ReadArena#MAX_AREA}). Each worker decodes the rows of the reads it did into its own
 * scratch batch (rows of one column arrive there in increasing position, as Arrow's variable-width
 * and list vectors need); the caller then copies them into the result in the requested order.
 */
final class ConcurrentTake {
  private ConcurrentTake() {}

  /** Runs the plan's reads on {@code e} and returns the batch, which the caller closes. */
  static VectorSchemaRoot run(FileReader reader, TakePlan plan, IoEngine e) throws IOException {
    int reads = plan.reads();
    int n = plan.rows.length;
    int cols = plan.columns.length;
    int workers = e.workersFor(reads);
    ColumnReader[] readers = new ColumnReader[cols];
    for (int c = 0; c < cols; c++) {
      readers[c] = reader.column(plan.columns[c]);
    }
    boolean direct = reader.source().prefersDirectBuffers();
    VectorSchemaRoot[] scratch = new VectorSchemaRoot[workers];
    Target[][] targets = new Target[workers][];
    int[][] counts = new int[workers][cols];
    int[] workerOf = new int[cols * n];
    int[] localOf = new int[cols * n];
    int capacity = Math.max(1, (int) Math.min(n, 2L * n / workers + 8));
    try {
      e.run(
          reads,
          (r, w) -> {
            if (scratch[w] == null) {
              scratch[w] = reader.newRoot(plan.fields, capacity);
              targets[w] = new Target[cols];
              for (int c = 0; c < cols; c++) {
                targets[w][c] = reader.target(readers[c].spec, scratch[w]);
              }
            }
            long len = plan.readLength[r];
            ByteBuffer area = ReadArena.get(len, direct);
            ByteBuffer buf =
                area != null
                    ? reader.planReads.readInto(area, 0, plan.readOffset[r], (int) len)
                    : reader.read(plan.readOffset[r], len);
            int[] count = counts[w];
            for (int k = plan.readSlotStart[r]; k < plan.readSlotStart[r + 1]; k++) {
              int slot = plan.readSlots[k];
              int c = slot / n;
              int i = slot - c * n;
              int local = count[c]++;
              readers[c].decodeRow(plan.rows[i], buf, plan.readOffset[r], targets[w][c], local);
              workerOf[slot] = w;
              localOf[slot] = local;
            }
          });
      VectorSchemaRoot root = reader.newRoot(plan.fields, n);
      try {
        FieldVector[] from = new FieldVector[workers];
        for (String name : plan.fields) {
          int c =
              Arrays.binarySearch(
                  plan.columns, reader.schema().columnOf(reader.schema().fieldIndex(name)));
          for (int w = 0; w < workers; w++) {
            from[w] = scratch[w] == null ? null : scratch[w].getVector(name);
            if (from[w] != null) {
              from[w].setValueCount(counts[w][c]);
            }
          }
          FieldVector to = root.getVector(name);
          int base = c * n;
          for (int i = 0; i < n; i++) {
            RowCopy.copy(from[workerOf[base + i]], localOf[base + i], to, i);
          }
        }
        root.setRowCount(n);
        reader.checkDictionaryIndices(root);
        reader.stats().decoded((long) n * plan.fields.size());
        return root;
      } catch (IOException | RuntimeException ex) {
        root.close();
        throw ex;
      }
    } finally {
      for (VectorSchemaRoot v : scratch) {
        if (v != null) {
          v.close();
        }
      }
    }
  }
}
