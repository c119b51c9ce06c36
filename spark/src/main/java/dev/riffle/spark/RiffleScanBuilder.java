package dev.riffle.spark;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.RowSets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Plans a read: the top-level columns the query needs (nested fields are read whole), and {@code
 * _row_id} if asked; one partition per data file, or per row range of a file larger than a
 * partition should be. What Spark pushes down: filters that page statistics can test (the tasks
 * skip the pages they exclude; Spark still evaluates the filters), predicates on {@code _row_id}
 * (exact: only those rows are read), {@code count(*)} (answered from the manifest, no file read)
 * and a limit (partitions past it are not planned). A lookup of a few {@code _row_id}s is read on
 * the driver ({@link DriverLookup}).
 */
final class RiffleScanBuilder
    implements ScanBuilder,
        SupportsPushDownRequiredColumns,
        SupportsPushDownV2Filters,
        SupportsPushDownAggregates,
        SupportsPushDownLimit,
        SupportsReportStatistics,
        Batch {
  private final DatasetSnapshot snapshot;
  private StructType readSchema;

  /** What the statistics may exclude, ANDed; empty: nothing. */
  private final List<PushedFilter> filters = new ArrayList<>();

  /** The ids that the {@code _row_id} predicates select, or null if there are none. */
  private Roaring64Bitmap ids;

  private final List<Predicate> pushed = new ArrayList<>();

  /** {@code count(*)} answered from the manifest. */
  private boolean countOnly;

  /** The most rows the query needs, or -1. */
  private long limit = -1;

  RiffleScanBuilder(DatasetSnapshot snapshot) {
    this.snapshot = snapshot;
    this.readSchema = snapshot.sparkSchema();
  }

  @Override
  public void pruneColumns(StructType required) {
    StructType all = snapshot.sparkSchema();
    List<String> names = Arrays.asList(required.fieldNames());
    List<StructField> kept = new ArrayList<>();
    for (StructField f : all.fields()) {
      if (names.contains(f.name())) {
        kept.add(f);
      }
    }
    if (names.contains(RowIds.COLUMN) && !Arrays.asList(all.fieldNames()).contains(RowIds.COLUMN)) {
      kept.add(RiffleTable.ROW_ID_FIELD);
    }
    readSchema = new StructType(kept.toArray(new StructField[0]));
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    Map<String, Field> fields = new HashMap<>();
    for (Field f : snapshot.schema().arrow().getFields()) {
      fields.put(f.getName(), f);
    }
    Map<String, DataType> types = new HashMap<>();
    for (StructField f : snapshot.sparkSchema().fields()) {
      types.put(f.name(), f.dataType());
    }
    boolean rowIdIsMetadata = !fields.containsKey(RowIds.COLUMN);
    List<Predicate> after = new ArrayList<>();
    for (Predicate p : predicates) {
      Roaring64Bitmap selected =
          rowIdIsMetadata ? RowIds.of(p, snapshot.manifest().totalRows()) : null;
      if (selected != null) {
        // Exact: the scan returns these rows only, so Spark need not test them again.
        if (ids == null) {
          ids = selected;
        } else {
          ids.and(selected);
        }
        pushed.add(p);
        continue;
      }
      PushedFilter f = PushedFilter.of(p, fields, types);
      if (f != null) {
        filters.add(f);
        pushed.add(p);
      }
      after.add(p);
    }
    return after.toArray(new Predicate[0]);
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.toArray(new Predicate[0]);
  }

  /** {@code count(*)} without grouping, over the view: its rows are known without reading. */
  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    countOnly = supportCompletePushDown(aggregation);
    return countOnly;
  }

  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return aggregation.groupByExpressions().length == 0
        && aggregation.aggregateExpressions().length == 1
        && aggregation.aggregateExpressions()[0] instanceof CountStar
        && filters.isEmpty();
  }

  @Override
  public boolean pushLimit(int n) {
    limit = n;
    return true;
  }

  /** The rows the scan returns before Spark's own filters: the view's, and the ids' if any. */
  private Roaring64Bitmap rows() {
    Roaring64Bitmap view = snapshot.rows();
    if (ids == null) {
      return view;
    }
    Roaring64Bitmap r = ids.clone();
    if (view != null) {
      r.and(view);
    }
    return r;
  }

  private long rowCount() {
    Roaring64Bitmap r = rows();
    return r == null ? snapshot.manifest().totalRows() : r.getLongCardinality();
  }

  /**
   * This scan, or a lookup read on the driver where the {@code _row_id} predicates (and a limit)
   * select at most {@code driverRows} rows (no job: {@link DriverLookup}).
   */
  @Override
  public Scan build() {
    long rows = limit >= 0 ? Math.min(rowCount(), limit) : rowCount();
    if (ids != null && !countOnly && rows <= snapshot.options().driverRows()) {
      return new DriverLookup(this);
    }
    return this;
  }

  @Override
  public StructType readSchema() {
    return countOnly ? new StructType().add("count(*)", DataTypes.LongType, false) : readSchema;
  }

  @Override
  public String description() {
    return "riffle "
        + snapshot.options().location()
        + " version "
        + snapshot.manifest().version()
        + (snapshot.options().split() == null ? "" : " split " + snapshot.options().split())
        + (countOnly
            ? " count(*) from the manifest"
            : " columns " + Arrays.toString(readSchema.fieldNames()))
        + (filters.isEmpty() ? "" : " page filter " + filters)
        + (ids == null ? "" : " row ids " + ids.getLongCardinality())
        + (limit < 0 ? "" : " limit " + limit);
  }

  /**
   * The rows of the view, exactly, and the bytes of the files in proportion to them (all columns:
   * the manifest has no per-column sizes, and too large is the safe side for broadcast joins).
   */
  @Override
  public Statistics estimateStatistics() {
    Manifest m = snapshot.manifest();
    long total = m.totalRows();
    long rows = limit >= 0 ? Math.min(rowCount(), limit) : rowCount();
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
    if (countOnly) {
      return new InputPartition[] {new CountPartition()};
    }
    long maxBytes = SQLConf.get().filesMaxPartitionBytes();
    long fixedRows = snapshot.options().rowsPerPartition();
    Roaring64Bitmap view = rows();
    long wanted = limit < 0 ? Long.MAX_VALUE : limit;
    List<InputPartition> out = new ArrayList<>();
    for (Manifest.DataFile f : snapshot.manifest().files()) {
      if (wanted == 0) {
        break;
      }
      long n = f.rowCount();
      if (n == 0) {
        continue;
      }
      long chunk =
          fixedRows > 0
              ? fixedRows
              : Math.max(1, (long) Math.ceil(n * (double) maxBytes / Math.max(1, f.byteLength())));
      for (long start = 0; start < n && wanted > 0; start += chunk) {
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
          if (live > wanted) {
            // A limit ends inside this partition: its first rows only.
            Roaring64Bitmap first = new Roaring64Bitmap();
            org.roaringbitmap.longlong.LongIterator it = part.getLongIterator();
            for (long i = 0; i < wanted; i++) {
              first.addLong(it.next());
            }
            part = first;
            live = wanted;
          }
          wanted -= live;
          rows = live == end - start ? null : RowSets.encode(part);
        } else {
          end = Math.min(end, start + wanted);
          wanted -= end - start;
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
  public RiffleReaderFactory createReaderFactory() {
    String location = snapshot.options().location();
    List<String> fields = new ArrayList<>(List.of(readSchema.fieldNames()));
    if (!Arrays.asList(snapshot.sparkSchema().fieldNames()).contains(RowIds.COLUMN)) {
      fields.remove(RowIds.COLUMN);
    }
    return new RiffleReaderFactory(
        TaskStorage.of(location, Storages.driverConf(location)),
        snapshot.schema().arrow().toJson(),
        fields,
        readSchema,
        snapshot.options().batchRows(),
        filters.isEmpty()
            ? null
            : filters.size() == 1
                ? filters.get(0)
                : new PushedFilter("AND", null, List.of(), List.copyOf(filters)),
        countOnly ? rowCount() : -1);
  }

  /** The one partition of a count answered from the manifest. */
  record CountPartition() implements InputPartition {}
}
