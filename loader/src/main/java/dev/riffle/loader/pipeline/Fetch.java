package dev.riffle.loader.pipeline;

import dev.riffle.format.dataset.Dataset;
import dev.riffle.format.dataset.Manifest;
import dev.riffle.loader.plan.EpochPlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One fetch: this rank's slices of global batches [firstBatch, endBatch) of an epoch, read
 * together. Its rows are sorted and de-duplicated, read with one take per data file (each a sorted,
 * coalesced read plan in the format), then gathered into batches in plan order. Runs on an I/O
 * thread; the result is handed to the consumer through a Future.
 */
final class Fetch {
  final long epoch;
  final long firstBatch;
  final int batchRows;
  final long[] positions;
  final long[] rows;
  final boolean[] padding;
  final List<VectorSchemaRoot> batches = new ArrayList<>();
  int[] labels;
  long bytes;
  int next;

  private Fetch(long epoch, long firstBatch, int batchRows, int count) {
    this.epoch = epoch;
    this.firstBatch = firstBatch;
    this.batchRows = batchRows;
    this.positions = new long[count * batchRows];
    this.rows = new long[positions.length];
    this.padding = new boolean[positions.length];
  }

  int batchCount() {
    return positions.length / batchRows;
  }

  /** Plans the fetch: positions and global rows of every batch slice (cheap, no I/O). */
  static Fetch plan(
      EpochPlan plan, long firstBatch, long endBatch, int rank, int world, RowMap rowMap) {
    int m = plan.rankBatchRows(world);
    Fetch f = new Fetch(plan.epoch(), firstBatch, m, (int) (endBatch - firstBatch));
    long[] slice = new long[m];
    for (long t = firstBatch; t < endBatch; t++) {
      int base = (int) (t - firstBatch) * m;
      plan.slice(t, rank, world, slice);
      long start = plan.sliceStart(t, rank, world);
      for (int i = 0; i < m; i++) {
        f.positions[base + i] = slice[i];
        f.rows[base + i] = rowMap.globalRow(slice[i]);
        f.padding[base + i] = plan.isPadding(start + i);
      }
    }
    return f;
  }

  /** Reads the rows and cuts the batches; on failure nothing stays allocated. */
  void read(Dataset dataset, List<String> fields, String label, BufferAllocator allocator)
      throws IOException {
    long[] unique = Arrays.stream(rows).sorted().distinct().toArray();
    List<Manifest.DataFile> files = dataset.manifest().files();
    List<VectorSchemaRoot> parts = new ArrayList<>();
    // partStart[p]: index in unique of part p's first row.
    int[] partStart = new int[files.size() + 1];
    try {
      int u = 0;
      for (Manifest.DataFile file : files) {
        long end = file.firstRow() + file.rowCount();
        int v = u;
        while (v < unique.length && unique[v] < end) {
          v++;
        }
        if (v > u) {
          partStart[parts.size()] = u;
          parts.add(dataset.take(Arrays.copyOfRange(unique, u, v), fields));
        }
        u = v;
      }
      partStart[parts.size()] = unique.length;
      int[] part = new int[rows.length];
      int[] row = new int[rows.length];
      for (int k = 0; k < rows.length; k++) {
        int idx = Arrays.binarySearch(unique, rows[k]);
        int p = Arrays.binarySearch(partStart, 0, parts.size() + 1, idx);
        // The last part starting at or before idx.
        p = p >= 0 ? p : -p - 2;
        while (p + 1 < parts.size() && partStart[p + 1] == idx) {
          p++;
        }
        part[k] = p;
        row[k] = idx - partStart[p];
      }
      if (label != null) {
        labels = new int[rows.length];
        for (int k = 0; k < rows.length; k++) {
          FieldVector v = parts.get(part[k]).getVector(label);
          labels[k] = v.isNull(row[k]) ? -1 : (int) ((BaseIntVector) v).getValueAsLong(row[k]);
        }
      }
      for (int b = 0; b < batchCount(); b++) {
        VectorSchemaRoot root =
            Gather.gather(parts, part, row, b * batchRows, batchRows, allocator);
        batches.add(root);
        bytes += RowBytes.allocated(root);
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    } finally {
      parts.forEach(VectorSchemaRoot::close);
    }
  }

  /** Closes the batches not handed out yet. */
  void close() {
    for (int i = next; i < batches.size(); i++) {
      batches.get(i).close();
    }
    next = batches.size();
  }
}
