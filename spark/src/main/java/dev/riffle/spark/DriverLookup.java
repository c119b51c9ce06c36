package dev.riffle.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A {@code _row_id} lookup of a few rows, read on the driver: Spark plans a {@link LocalScan} as a
 * table of rows it already has ({@code LocalTableScanExec}), so a lookup costs the takes, not the
 * scheduling of a job and its tasks (about a second, against milliseconds of reads). The rows are
 * read by the same partitions and readers as the executors' (takes, checksums, projection); Spark
 * applies the filters it kept on top, as on a scan.
 */
final class DriverLookup implements LocalScan, SupportsReportStatistics {
  private final RiffleScanBuilder scan;

  DriverLookup(RiffleScanBuilder scan) {
    this.scan = scan;
  }

  @Override
  public InternalRow[] rows() {
    RiffleReaderFactory factory = scan.createReaderFactory();
    StructType schema = scan.readSchema();
    // Batches are freed by the next read: each row is copied out, as Spark's own rows are.
    UnsafeProjection copy = UnsafeProjection.create(schema);
    List<InternalRow> out = new ArrayList<>();
    for (InputPartition p : scan.planInputPartitions()) {
      try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(p)) {
        while (reader.next()) {
          Iterator<InternalRow> rows = reader.get().rowIterator();
          while (rows.hasNext()) {
            out.add(copy.apply(rows.next()).copy());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e.getMessage(), e);
      }
    }
    return out.toArray(new InternalRow[0]);
  }

  @Override
  public StructType readSchema() {
    return scan.readSchema();
  }

  @Override
  public String description() {
    return scan.description() + " on the driver";
  }

  @Override
  public Statistics estimateStatistics() {
    return scan.estimateStatistics();
  }
}
