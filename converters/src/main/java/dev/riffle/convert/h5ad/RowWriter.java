package dev.riffle.convert.h5ad;

import dev.riffle.convert.ConvertOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.io.RecyclingAllocator;
import java.io.IOException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the cells batch by batch. A batch ends at {@link ConvertOptions#batchRows()} rows or
 * before its matrix entries (and fixed-size columns) pass {@link ConvertOptions#batchBytes()},
 * whichever comes first, but holds at least one row.
 */
final class RowWriter {
  private final AnnDataMapping layout;
  private final BufferAllocator allocator;
  private final ConvertOptions options;
  private final BufferMeter meter;
  private final long inputBytes;
  private final int rowBytes;

  RowWriter(
      AnnDataMapping layout,
      BufferAllocator allocator,
      ConvertOptions options,
      BufferMeter meter,
      long inputBytes) {
    this.layout = layout;
    this.allocator = allocator;
    this.options = options;
    this.meter = meter;
    this.inputBytes = inputBytes;
    int b = 0;
    for (Object s : layout.slots) {
      b += s instanceof Column ? ((Column) s).rowBytes() : 8;
    }
    this.rowBytes = b;
  }

  void writeAll(DatasetWriter writer) throws IOException {
    Schema schema = layout.schema();
    if (layout.rows == 0) {
      // One file with no rows still carries the categoricals' categories, which live in files.
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
        root.setRowCount(0);
        writer.write(root);
      }
      return;
    }
    // The next batch is read from the file while the writer encodes this one: at most two
    // batches are alive (the hand-over waits for the writer), and only the reader thread touches
    // the HDF5 file.
    // The batches' buffers are tens of MiB each: malloc would map fresh pages for every batch and
    // the process would fault each 4 KiB in again (600K faults for 2.4 GB of X). Two batches are
    // alive at once, so two batches' worth of freed blocks is all the next ones need.
    try (RecyclingAllocator batches =
        RecyclingAllocator.create(
            2 * Math.min(options.batchBytes(), 1L << 30), allocator.getLimit())) {
      writeAll(writer, schema, batches);
    }
  }

  private void writeAll(DatasetWriter writer, Schema schema, BufferAllocator batches)
      throws IOException {
    SynchronousQueue<Object> handOver = new SynchronousQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread reader = new Thread(() -> readAll(schema, batches, handOver, stop), "riffle-h5ad-read");
    reader.setDaemon(true);
    reader.start();
    long row = 0;
    long reported = 0;
    try {
      while (row < layout.rows) {
        Object next = take(handOver);
        if (next instanceof Failure f) {
          throw f.rethrow();
        }
        try (VectorSchemaRoot root = (VectorSchemaRoot) next) {
          writer.write(root);
          row += root.getRowCount();
        }
        long done = (long) (inputBytes * (row / (double) layout.rows));
        options.progress().accept(done - reported);
        reported = done;
      }
    } finally {
      stop.set(true);
      // A batch the reader made but could not hand over is closed by the reader itself.
      joinUninterruptibly(reader);
    }
  }

  /** What the reader hands over instead of a batch when it fails. */
  private record Failure(Throwable error) {
    IOException rethrow() {
      if (error instanceof IOException e) {
        return e;
      }
      if (error instanceof RuntimeException e) {
        throw e;
      }
      if (error instanceof Error e) {
        throw e;
      }
      return new IOException(error);
    }
  }

  private void readAll(
      Schema schema,
      BufferAllocator batches,
      SynchronousQueue<Object> handOver,
      AtomicBoolean stop) {
    long row = 0;
    try {
      while (row < layout.rows && !stop.get()) {
        VectorSchemaRoot root = read(schema, batches, row);
        row += root.getRowCount();
        if (!handOver(handOver, root, stop)) {
          root.close();
          return;
        }
      }
    } catch (Throwable t) {
      handOver(handOver, new Failure(t), stop);
    }
  }

  /** Reads the batch that starts at {@code row}. */
  private VectorSchemaRoot read(Schema schema, BufferAllocator batches, long row)
      throws IOException {
    int n = (int) Math.min(options.batchRows(), layout.rows - row);
    long[] bytes = new long[n + 1];
    for (int i = 0; i <= n; i++) {
      bytes[i] = (long) i * rowBytes;
    }
    for (Object s : layout.slots) {
      if (s instanceof AnnDataMapping.Matrix) {
        AnnDataMapping.Matrix m = (AnnDataMapping.Matrix) s;
        long[] ext = m.rows().extents(row, n);
        for (int i = 0; i <= n; i++) {
          bytes[i] += ext[i] * m.entryBytes();
        }
      }
    }
    int take = n;
    while (take > 1 && bytes[take] > options.batchBytes()) {
      take--;
    }
    meter.batch(take, bytes[take]);
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, batches);
    try {
      int f = 0;
      for (Object s : layout.slots) {
        if (s instanceof Column) {
          FieldVector v = root.getVector(f++);
          v.allocateNew();
          ((Column) s).fill(v, row, take);
        } else {
          ListVector indices = (ListVector) root.getVector(f++);
          ListVector values = (ListVector) root.getVector(f++);
          indices.allocateNew();
          values.allocateNew();
          ((AnnDataMapping.Matrix) s).rows().fill(indices, values, row, take);
        }
      }
      root.setRowCount(take);
      return root;
    } catch (IOException | RuntimeException | Error e) {
      root.close();
      throw e;
    }
  }

  /** Hands {@code item} to the writer; false if the writer stopped first. */
  private static boolean handOver(SynchronousQueue<Object> q, Object item, AtomicBoolean stop) {
    try {
      while (!q.offer(item, 50, TimeUnit.MILLISECONDS)) {
        if (stop.get()) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Object take(SynchronousQueue<Object> q) throws IOException {
    try {
      return q.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while reading the .h5ad file");
    }
  }

  private static void joinUninterruptibly(Thread t) {
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
