package dev.riffle.spark;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * Writes one task's rows into data files of its own (fresh names, so attempts never collide), in
 * batches of {@code batchRows} rows or {@link #BATCH_BYTES}. Commit hands the files to the driver;
 * abort, or a task that fails before committing, deletes them.
 */
final class TaskWriter implements DataWriter<InternalRow> {
  /** A batch is flushed to the file writer once its buffers reach this size. */
  static final long BATCH_BYTES = 32L << 20;

  private final int partitionId;
  private final BufferAllocator allocator;
  private final VectorSchemaRoot root;
  private final RowWriter rows;
  private final Storage storage;
  private final DatasetWriter writer;
  private final int batchRows;

  TaskWriter(TaskWriterFactory factory, int partitionId) throws IOException {
    this.partitionId = partitionId;
    this.batchRows = factory.options().batchRows();
    Schema schema = Schema.fromJSON(factory.arrowSchemaJson());
    allocator = new RootAllocator();
    VectorSchemaRoot r = null;
    Storage s = null;
    DatasetWriter w = null;
    try {
      r = VectorSchemaRoot.create(schema, allocator);
      r.allocateNew();
      rows = new RowWriter(r, factory.sparkSchema());
      s = factory.storage().open();
      w =
          DatasetWriter.forFiles(
              s, schema, null, factory.options().datasetOptions(), factory.namePrefix());
    } catch (IOException | RuntimeException e) {
      if (r != null) {
        r.close();
      }
      if (s != null) {
        s.close();
      }
      allocator.close();
      throw e;
    }
    root = r;
    storage = s;
    writer = w;
  }

  @Override
  public void write(InternalRow row) throws IOException {
    rows.write(row);
    int n = rows.rowCount();
    if (n >= batchRows || ((n & 63) == 0 && rows.bufferBytes() >= BATCH_BYTES)) {
      flush();
    }
  }

  private void flush() throws IOException {
    if (rows.rowCount() > 0) {
      writer.write(rows.finish());
      rows.reset();
    }
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    flush();
    return TaskFiles.of(partitionId, writer.finishFiles());
  }

  @Override
  public void abort() {
    // Deletes every file this task wrote (a no-op once they were handed over at commit).
    writer.close();
  }

  @Override
  public void close() throws IOException {
    try {
      writer.close();
    } finally {
      try {
        root.close();
        allocator.close();
      } finally {
        // Last: the writer deletes unpublished files through it.
        storage.close();
      }
    }
  }
}
