package dev.riffle.loader.pipeline;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.loader.plan.EpochPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One fetch: this rank's slices of global batches [firstBatch, endBatch) of an epoch, read
 * together. Its rows are sorted and de-duplicated and read in chunks (by data file, and at most a
 * few thousand rows each: each a sorted, coalesced read plan in the format) on the loader's I/O
 * threads in parallel. The result is handed to the consumer through a Future, which cuts the
 * batches in plan order from the chunks as it hands them out.
 */
final class Fetch {
  final long epoch;
  final long firstBatch;
  final int batchRows;
  final long[] positions;
  final long[] rows;
  final boolean[] padding;
  // The chunks read (part p holds unique rows [partStart[p], partStart[p + 1])), kept until the
  // fetch is handed out or closed; batch slot k is row rowOf[k] of part partOf[k].
  private VectorSchemaRoot[] parts = new VectorSchemaRoot[0];
  private int[] partOf;
  private int[] rowOf;
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

  /**
   * Starts reading the fetch on {@code pool}: its sorted, de-duplicated rows are split by data file
   * and into chunks of at most {@code chunkRows} rows, one {@link Dataset#take} each, run as
   * separate tasks; the task that finishes the last chunk indexes the rows (no task ever waits for
   * another, so a pool of any size cannot deadlock). The future completes with this fetch, or with
   * the first failure, in which case nothing stays allocated. If {@code cancelled} is true when a
   * chunk starts, it reads nothing and the fetch completes with no batches.
   */
  CompletableFuture<Fetch> start(
      Dataset dataset,
      List<String> fields,
      String label,
      Executor pool,
      int chunkRows,
      BooleanSupplier cancelled) {
    long[] unique = Arrays.stream(rows).sorted().distinct().toArray();
    int[] chunkStart = chunks(unique, dataset.manifest().files(), Math.max(1, chunkRows));
    int count = chunkStart.length - 1;
    VectorSchemaRoot[] parts = new VectorSchemaRoot[count];
    AtomicInteger left = new AtomicInteger(count);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CompletableFuture<Fetch> result = new CompletableFuture<>();
    if (count == 0) {
      pool.execute(() -> finish(unique, chunkStart, parts, null, label, result));
      return result;
    }
    for (int c = 0; c < count; c++) {
      int chunk = c;
      pool.execute(
          () -> {
            try {
              if (!cancelled.getAsBoolean() && failure.get() == null) {
                long[] take = Arrays.copyOfRange(unique, chunkStart[chunk], chunkStart[chunk + 1]);
                // The reader's default engine: a chunk's reads (one per block run) go out side by
                // side, so the disk sees more than one read per loader thread, which made cold
                // block shuffle faster (benchmarks/RESULTS.md, the loader).
                parts[chunk] = dataset.take(take, fields);
              }
            } catch (Throwable t) {
              failure.compareAndSet(null, t);
            }
            // The last chunk's decrement sees every other chunk's part (atomic read-modify-write).
            if (left.decrementAndGet() == 0) {
              Throwable t = failure.get();
              if (t == null && cancelled.getAsBoolean()) {
                closeAll(parts);
                result.complete(this);
              } else {
                finish(unique, chunkStart, parts, t, label, result);
              }
            }
          });
    }
    return result;
  }

  /**
   * Chunk boundaries over {@code unique} (sorted global rows): a chunk never spans two data files
   * and holds at most {@code chunkRows} rows; a file's rows are split into chunks of equal size.
   */
  static int[] chunks(long[] unique, List<Manifest.DataFile> files, int chunkRows) {
    List<Integer> starts = new ArrayList<>();
    int u = 0;
    for (Manifest.DataFile file : files) {
      long end = file.firstRow() + file.rowCount();
      int v = u;
      while (v < unique.length && unique[v] < end) {
        v++;
      }
      int n = v - u;
      if (n > 0) {
        int pieces = (int) ((n + (long) chunkRows - 1) / chunkRows);
        for (int p = 0; p < pieces; p++) {
          starts.add(u + (int) ((long) n * p / pieces));
        }
      }
      u = v;
    }
    int[] out = new int[starts.size() + 1];
    for (int i = 0; i < starts.size(); i++) {
      out[i] = starts.get(i);
    }
    out[starts.size()] = unique.length;
    return out;
  }

  private void finish(
      long[] unique,
      int[] partStart,
      VectorSchemaRoot[] read,
      Throwable failure,
      String label,
      CompletableFuture<Fetch> result) {
    if (failure != null) {
      closeAll(read);
      result.completeExceptionally(failure);
      return;
    }
    try {
      index(unique, partStart, read, label);
      parts = read;
      for (VectorSchemaRoot p : parts) {
        bytes += RowBytes.allocated(p);
      }
      result.complete(this);
    } catch (Throwable t) {
      closeAll(read);
      result.completeExceptionally(t);
    }
  }

  private static void closeAll(VectorSchemaRoot[] parts) {
    for (int i = 0; i < parts.length; i++) {
      if (parts[i] != null) {
        parts[i].close();
        parts[i] = null;
      }
    }
  }

  /** Where each slot's row lies in the parts, and the slots' labels. */
  private void index(long[] unique, int[] partStart, VectorSchemaRoot[] read, String label) {
    int n = read.length;
    partOf = new int[rows.length];
    rowOf = new int[rows.length];
    for (int k = 0; k < rows.length; k++) {
      int idx = Arrays.binarySearch(unique, rows[k]);
      int p = Arrays.binarySearch(partStart, 0, n + 1, idx);
      // The last part starting at or before idx (parts are never empty).
      p = p >= 0 ? p : -p - 2;
      while (p + 1 < n && partStart[p + 1] == idx) {
        p++;
      }
      partOf[k] = p;
      rowOf[k] = idx - partStart[p];
    }
    if (label != null) {
      // Looked up once per part: a lookup by name walks the root's columns.
      FieldVector[] byPart = new FieldVector[n];
      for (int p = 0; p < n; p++) {
        byPart[p] = read[p].getVector(label);
      }
      labels = new int[rows.length];
      for (int k = 0; k < rows.length; k++) {
        FieldVector v = byPart[partOf[k]];
        labels[k] = v.isNull(rowOf[k]) ? -1 : (int) ((BaseIntVector) v).getValueAsLong(rowOf[k]);
      }
    }
  }

  /**
   * Cuts batch {@code b} of the fetch (a new batch the caller closes): the in-memory shuffle, done
   * by the consumer as it hands the batch out, so a fetch never holds its rows twice.
   */
  VectorSchemaRoot cut(int b, BufferAllocator allocator) {
    return Gather.gather(Arrays.asList(parts), partOf, rowOf, b * batchRows, batchRows, allocator);
  }

  /** Batch {@code b}'s rows where the fetch holds them, not gathered (valid until closed). */
  BatchRows rows(int b) {
    return new BatchRows(
        Arrays.asList(parts), partOf, rowOf, rows, padding, b * batchRows, batchRows);
  }

  /** Closes the rows read; no batch is cut after this. */
  void close() {
    closeAll(parts);
    next = batchCount();
  }
}
