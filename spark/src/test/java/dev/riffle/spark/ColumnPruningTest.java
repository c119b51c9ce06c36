package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.ScanCursor;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Column pruning reaches the file reader: a query that selects a few columns reads their pages and
 * not one byte of the others', as the scan's page-bytes metric (the tasks' {@link ReadStats})
 * shows, whether a partition is a whole file or a row range (a range scan).
 */
class ColumnPruningTest {
  static final int ROWS = 2000;

  /** Bytes of incompressible data per row in the column that queries leave out. */
  static final int BIG = 2048;

  static SparkSession spark;

  @TempDir static Path dir;
  static Path ds;

  @BeforeAll
  static void write() {
    spark = LocalSpark.session();
    ds = dir.resolve("ds");
    spark
        .range(ROWS)
        .repartition(2)
        .withColumn("small", functions.col("id").mod(97).cast("int"))
        // sha2 of the id, repeated and unhexed: 2 KiB per row that zstd cannot shrink much.
        .withColumn(
            "big",
            functions.unhex(
                functions.expr(
                    "concat_ws('', transform(sequence(1, "
                        + BIG / 32
                        + "), k -> sha2(concat(cast(id as string), '-', cast(k as string)),"
                        + " 256)))")))
        .write()
        .format("riffle")
        .save(ds.toString());
  }

  /** The page bytes the scans of an executed query read, summed over its tasks. */
  static long bytesRead(org.apache.spark.sql.Dataset<Row> df) {
    df.collectAsList();
    SparkPlan plan = df.queryExecution().executedPlan();
    List<BatchScanExec> scans = new java.util.ArrayList<>();
    scans(plan, scans);
    assertThat(scans).as("riffle scans in " + plan).hasSize(1);
    return scans.get(0).metrics().apply(ReadMetrics.BYTES_READ).value();
  }

  /** The scans of a plan, also inside the query stages of adaptive execution. */
  static void scans(SparkPlan plan, List<BatchScanExec> out) {
    if (plan instanceof BatchScanExec) {
      out.add((BatchScanExec) plan);
    } else if (plan instanceof QueryStageExec) {
      scans(((QueryStageExec) plan).plan(), out);
    } else if (plan instanceof AdaptiveSparkPlanExec) {
      scans(((AdaptiveSparkPlanExec) plan).finalPhysicalPlan(), out);
    }
    for (SparkPlan c : scala.jdk.javaapi.CollectionConverters.asJava(plan.children())) {
      scans(c, out);
    }
  }

  /** What reading {@code fields} of every file of the dataset costs with the format's reader. */
  static long pageBytes(List<String> fields) throws Exception {
    ReadStats stats = new ReadStats();
    try (Storage storage = new LocalStorage(ds);
        RootAllocator allocator = new RootAllocator()) {
      Manifest m = Dataset.readManifest(storage, Dataset.latestVersion(storage));
      for (Manifest.DataFile f : m.files()) {
        try (FileReader r = FileReader.open(storage.open(f.path()), true, allocator, stats);
            ScanCursor c = r.scan(fields, 4096)) {
          for (VectorSchemaRoot b = c.next(); b != null; b = c.next()) {
            b.close();
          }
        }
      }
    }
    return stats.bytesRead();
  }

  static long fileBytes() throws Exception {
    try (Storage storage = new LocalStorage(ds)) {
      return Dataset.readManifest(storage, 1).files().stream()
          .mapToLong(Manifest.DataFile::byteLength)
          .sum();
    }
  }

  @Test
  void aScanReadsTheSelectedColumnsPagesOnly() throws Exception {
    long all = bytesRead(spark.read().format("riffle").load(ds.toString()));
    long pruned =
        bytesRead(spark.read().format("riffle").load(ds.toString()).select("small", "id"));
    // Exactly the pages the format's reader reads for those columns, in file order.
    assertThat(pruned).isEqualTo(pageBytes(List.of("id", "small")));
    assertThat(all).isEqualTo(pageBytes(List.of("id", "small", "big")));
    // The left-out column is nearly all of the data; none of it is read.
    assertThat(all).isGreaterThan((long) ROWS * BIG);
    assertThat(pruned).isLessThan(fileBytes() / 50);
    assertThat(pruned).isLessThanOrEqualTo(all - (long) ROWS * BIG);
    // count(*) reads no column at all.
    assertThat(bytesRead(spark.read().format("riffle").load(ds.toString()).groupBy().count()))
        .isZero();
  }

  @Test
  void rowRangePartitionsReadTheSelectedColumnsOnly() throws Exception {
    org.apache.spark.sql.Dataset<Row> ranges =
        spark.read().format("riffle").option("rowsPerPartition", 300).load(ds.toString());
    assertThat(ranges.rdd().getNumPartitions()).isGreaterThan(4);
    long pruned = bytesRead(ranges.select("small"));
    long all = bytesRead(ranges);
    assertThat(all).isGreaterThan((long) ROWS * BIG);
    assertThat(pruned).isPositive().isLessThan(fileBytes() / 50);
    assertThat(bytesRead(ranges.filter("small = 3").select("id")))
        .isPositive()
        .isLessThan(fileBytes() / 50);
  }
}
