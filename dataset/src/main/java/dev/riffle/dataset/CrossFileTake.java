package dev.riffle.dataset;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.RowCopy;
import dev.riffle.format.schema.RiffleSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A take across files: one take per file that holds any of the rows ({@link RowRouter.Route}), then
 * the parts stitched into one batch in the requested order. On local files the parts are taken one
 * after another; once the files turn out to be remote, side by side, so that their round trips
 * overlap. Thread-safe.
 */
final class CrossFileTake implements AutoCloseable {
  /** Threads for the per-file parts of one take on remote files: enough to overlap round trips. */
  static final int REMOTE_TAKE_THREADS = 16;

  /** Rewrites the dictionary codes of a part taken from a file into the dataset's, in place. */
  interface Remap {
    void apply(VectorSchemaRoot part, int file) throws IOException;
  }

  private final FileCatalog files;
  private final RiffleSchema schema;
  private final BufferAllocator allocator;
  private final Object lock = new Object();
  private ExecutorService pool;

  CrossFileTake(FileCatalog files, RiffleSchema schema, BufferAllocator allocator) {
    this.files = files;
    this.schema = schema;
    this.allocator = allocator;
  }

  /**
   * The rows of {@code route}, in request order, as one batch the caller closes.
   *
   * @param names the top-level fields, resolved
   * @param remap applied to every part before stitching, or null if no field is categorical
   */
  VectorSchemaRoot take(RowRouter.Route route, List<String> names, Remap remap) throws IOException {
    int n = route.rows();
    List<VectorSchemaRoot> parts = new ArrayList<>();
    VectorSchemaRoot out = null;
    try {
      takeParts(route, names, parts);
      if (remap != null) {
        for (int p = 0; p < parts.size(); p++) {
          remap.apply(parts.get(p), route.files()[p]);
        }
      }
      if (parts.size() == 1) {
        // Every row from one file: its batch is already in the requested order.
        out = parts.remove(0);
        return out;
      }
      out = emptyBatch(names, n);
      int[] partOf = route.partOf();
      int[] rowOf = route.rowOf();
      for (FieldVector target : out.getFieldVectors()) {
        FieldVector[] sources = new FieldVector[parts.size()];
        for (int p = 0; p < sources.length; p++) {
          sources[p] = parts.get(p).getVector(target.getName());
        }
        // In output order: variable-width and list vectors must be filled front to back.
        for (int k = 0; k < n; k++) {
          RowCopy.copy(sources[partOf[k]], rowOf[k], target, k);
        }
      }
      out.setRowCount(n);
      return out;
    } catch (IOException | RuntimeException e) {
      if (out != null) {
        out.close();
      }
      throw e;
    } finally {
      parts.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * Takes each file's rows into {@code parts}, in part order; on failure, {@code parts} holds what
   * to close.
   */
  private void takeParts(RowRouter.Route route, List<String> names, List<VectorSchemaRoot> parts)
      throws IOException {
    int m = route.parts();
    if (m == 0) {
      return;
    }
    FileReader first = files.file(route.files()[0]);
    if (m == 1 || !files.remote()) {
      parts.add(first.take(route.localRows()[0], names));
      for (int p = 1; p < m; p++) {
        parts.add(files.file(route.files()[p]).take(route.localRows()[p], names));
      }
      return;
    }
    List<Future<VectorSchemaRoot>> futures = new ArrayList<>(m);
    ExecutorService pool = pool();
    for (int p = 0; p < m; p++) {
      int file = route.files()[p];
      long[] local = route.localRows()[p];
      futures.add(pool.submit(() -> files.file(file).take(local, names)));
    }
    // Wait for every part, also after a failure, so that no take still runs (and allocates)
    // once this one has returned; parts that did succeed go to the caller to close.
    Throwable failure = null;
    for (Future<VectorSchemaRoot> f : futures) {
      boolean interrupted = false;
      while (true) {
        try {
          VectorSchemaRoot part = f.get();
          parts.add(part);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          failure = failure == null ? e.getCause() : failure;
          break;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof RuntimeException re) {
      throw re;
    }
    if (failure instanceof Error err) {
      throw err;
    }
    if (failure != null) {
      throw new IOException(failure);
    }
  }

  private ExecutorService pool() {
    synchronized (lock) {
      if (pool == null) {
        ThreadPoolExecutor p =
            new ThreadPoolExecutor(
                REMOTE_TAKE_THREADS,
                REMOTE_TAKE_THREADS,
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                r -> {
                  Thread t = new Thread(r, "riffle-dataset-take");
                  t.setDaemon(true);
                  return t;
                });
        p.allowCoreThreadTimeOut(true);
        pool = p;
      }
      return pool;
    }
  }

  private VectorSchemaRoot emptyBatch(List<String> names, int capacity) {
    List<FieldVector> vectors = new ArrayList<>();
    for (String name : names) {
      FieldVector v = schema.fields().get(schema.fieldIndex(name)).createVector(allocator);
      v.setInitialCapacity(Math.max(1, capacity));
      v.allocateNew();
      vectors.add(v);
    }
    return new VectorSchemaRoot(vectors);
  }

  /** Stops the remote take threads; takes return only after all their parts, so none is queued. */
  @Override
  public void close() {
    synchronized (lock) {
      if (pool != null) {
        pool.shutdown();
        pool = null;
      }
    }
  }
}
