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
 * @param fields the top-level fields of the dataset to read
 * @param readSchema the Spark types of the output columns: the fields, and {@code _row_id} if asked
 * @param batchRows rows per batch
 * @param filter what page statistics may exclude, or null
 * @param count the row count to return as the only row, or -1 ({@code count(*)} answered from the
 *     manifest: no file is opened)
 */
record RiffleReaderFactory(
    TaskStorage storage,
    String arrowSchemaJson,
    List<String> fields,
    StructType readSchema,
    int batchRows,
    PushedFilter filter,
    long count)
    implements PartitionReaderFactory {

  /** The position of {@code _row_id} in the output, or -1. */
  int rowIdIndex() {
    return java.util.Arrays.asList(readSchema.fieldNames()).indexOf(RowIds.COLUMN);
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return count < 0;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    if (count < 0) {
      throw new UnsupportedOperationException("riffle reads columnar batches only");
    }
    return new PartitionReader<>() {
      private boolean done;

      @Override
      public boolean next() {
        boolean first = !done;
        done = true;
        return first;
      }

      @Override
      public InternalRow get() {
        return new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(
            new Object[] {count});
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new FileBatchReader(this, (FilePartition) partition);
  }
}
