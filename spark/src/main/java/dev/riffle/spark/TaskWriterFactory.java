package dev.riffle.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.types.StructType;

/**
 * Sent to the executors: makes each task's writer.
 *
 * @param options the write's options
 * @param storage opens the dataset
 * @param arrowSchemaJson the Arrow schema every file is written with
 * @param sparkSchema the rows' schema
 * @param namePrefix starts the names of the job's files
 */
record TaskWriterFactory(
    RiffleOptions options,
    TaskStorage storage,
    String arrowSchemaJson,
    StructType sparkSchema,
    String namePrefix)
    implements DataWriterFactory {

  @Override
  public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
    try {
      return new TaskWriter(this, partitionId);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
