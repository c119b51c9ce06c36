package dev.riffle.spark;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.RowSets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Plans a read: the top-level columns the query needs (nested fields are read whole) and one
 * partition per data file, or per row range of a file larger than a partition should be.
 */
final class RiffleScanBuilder
    implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsReportStatistics, Batch {
  private final DatasetSnapshot snapshot;
  private StructType readSchema;

  RiffleScanBuilder(DatasetSnapshot snapshot) {
    this.snapshot = snapshot;
    this.readSchema = snapshot.sparkSchema();
  }

  @Override
  public void pruneColumns(StructType required) {
    StructType all = snapshot.sparkSchema();
    List<StructField> kept = new ArrayList<>();
    for (StructField f : all.fields()) {
      if (Arrays.asList(required.fieldNames()).contains(f.name())) {
        kept.add(f);
      }
    }
    readSchema = new StructType(kept.toArray(new StructField[0]));
  }

  @Override
  public Scan build() {
    return this;
  }

  @Override
  public StructType readSchema() {
    return readSchema;
  }

  @Override
  public String description() {
    return "riffle "
        + snapshot.options().location()
        + " version "
        + snapshot.manifest().version()
        + (snapshot.options().split() == null ? "" : " split " + snapshot.options().split())
        + " columns "
        + Arrays.toString(readSchema.fieldNames());
  }

  /**
   * The rows of the view, exactly, and the bytes of the files in proportion to them (all columns:
   * the manifest has no per-column sizes, and too large is the safe side for broadcast joins).
   */
  @Override
  public Statistics estimateStatistics() {
    Manifest m = snapshot.manifest();
    long total = m.totalRows();
    long rows = snapshot.rows() == null ? total : snapshot.rows().getLongCardinality();
    long bytes = m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    long share = total == 0 ? 0 : (long) Math.ceil(bytes * (rows / (double) total));
    return new Statistics() {
      @Override
      public OptionalLong sizeInBytes() {
        return OptionalLong.of(share);
      }

      @Override
      public OptionalLong numRows() {
        return OptionalLong.of(rows);
      }
    };
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return ReadMetrics.supported();
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public InputPartition[] planInputPartitions() {
    long maxBytes = SQLConf.get().filesMaxPartitionBytes();
    long fixedRows = snapshot.options().rowsPerPartition();
    Roaring64Bitmap view = snapshot.rows();
    List<InputPartition> out = new ArrayList<>();
    for (Manifest.DataFile f : snapshot.manifest().files()) {
      long n = f.rowCount();
      if (n == 0) {
        continue;
      }
      long chunk =
          fixedRows > 0
              ? fixedRows
              : Math.max(1, (long) Math.ceil(n * (double) maxBytes / Math.max(1, f.byteLength())));
      for (long start = 0; start < n; start += chunk) {
        long end = Math.min(n, start + chunk);
        String rows = null;
        if (view != null) {
          Roaring64Bitmap part = new Roaring64Bitmap();
          part.addRange(f.firstRow() + start, f.firstRow() + end);
          part.and(view);
          long live = part.getLongCardinality();
          if (live == 0) {
            continue;
          }
          rows = live == end - start ? null : RowSets.encode(part);
        }
        out.add(
            new FilePartition(
                f.path(),
                f.byteLength(),
                n,
                f.footerCrc32c(),
                snapshot.manifest().version(),
                f.firstRow(),
                start,
                end,
                rows));
      }
    }
    return out.toArray(new InputPartition[0]);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    String location = snapshot.options().location();
    return new RiffleReaderFactory(
        TaskStorage.of(location, Storages.driverConf(location)),
        snapshot.schema().arrow().toJson(),
        List.of(readSchema.fieldNames()),
        readSchema,
        snapshot.options().batchRows());
  }
}
