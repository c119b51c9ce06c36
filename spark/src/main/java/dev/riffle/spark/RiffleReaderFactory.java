package dev.riffle.spark;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Sent to the executors: opens each partition's file and reads it as columnar batches.
 *
 * @param storage opens the dataset
 * @param arrowSchemaJson the version's Arrow schema, which every file must have
 * @param fields the top-level fields to read, in output order
 * @param readSchema their Spark types
 * @param batchRows rows per batch
 */
record RiffleReaderFactory(
    TaskStorage storage,
    String arrowSchemaJson,
    List<String> fields,
    StructType readSchema,
    int batchRows)
    implements PartitionReaderFactory {

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException("riffle reads columnar batches only");
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new FileBatchReader(this, (FilePartition) partition);
  }
}
