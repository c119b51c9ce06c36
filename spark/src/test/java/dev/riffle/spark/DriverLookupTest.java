package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.LocalTableScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lookup of a few {@code _row_id}s is read on the driver (Spark plans a local table scan, no
 * job), and returns what the distributed scan returns, for every column type the connector reads.
 */
class DriverLookupTest {
  @TempDir static Path dir;
  static SparkSession spark;
  static Path sparkTypes;

  /** 10,000 rows in two files, of every Spark type the connector writes, with nulls. */
  @BeforeAll
  static void write() {
    spark = LocalSpark.session();
    sparkTypes = dir.resolve("spark-types");
    spark
        .range(0, 10_000, 1, 2)
        .selectExpr(
            "id",
            "cast(id % 7 as int) as i",
            "case when id % 5 = 0 then null else id * 1.5d end as d",
            "cast(id / 3.0 as float) as f",
            "cast(id * 1.01 as decimal(38, 10)) as dec",
            "concat('cell-', id) as s",
            "cast(concat('b', id) as binary) as bin",
            "id % 2 = 0 as flag",
            "date_add(date'2026-01-01', cast(id % 400 as int)) as day",
            "timestamp_micros(id * 1000003) as ts",
            "cast(timestamp_micros(id * 7) as timestamp_ntz) as ntz",
            "case when id % 3 = 0 then null else sequence(0, cast(id % 4 as int)) end as arr",
            "named_struct('a', id, 'b', concat('x', id)) as st",
            "map('k', cast(id as int), 'j', null) as m",
            "array(cast(id as float), cast(-id as float)) as emb")
        .withColumn(
            "v",
            org.apache.spark.ml.functions.array_to_vector(
                org.apache.spark.sql.functions.col("emb")))
        .write()
        .format("riffle")
        .save(sparkTypes.toString());
  }

  static org.apache.spark.sql.Dataset<Row> load(Path p, boolean driver) {
    return spark.read().format("riffle").option("driverRows", driver ? 4096 : 0).load(p.toString());
  }

  @Test
  void lookupsOfEveryTypeMatchTheDistributedScan() throws Exception {
    Path categorical = dir.resolve("arrow-types-categorical");
    Path plain = dir.resolve("arrow-types");
    ArrowTypesTest.write(categorical, true);
    ArrowTypesTest.write(plain, false);
    for (String w :
        List.of(
            "_row_id in (0, 4999, 5000, 9999, 123456)",
            "_row_id = 7",
            "_row_id between 4990 and 5010",
            "_row_id < 3 or _row_id > 9997",
            "_row_id in (1, 2, 3, 4) and i > 2")) {
      assertSame(sparkTypes, w);
    }
    for (Path p : List.of(categorical, plain)) {
      for (String w : List.of("_row_id in (0, 1)", "_row_id = 2", "_row_id >= 1")) {
        assertSame(p, w);
      }
    }
  }

  /** The same rows (as JSON) by the driver's lookup as by a job's scan. */
  private static void assertSame(Path p, String where) {
    org.apache.spark.sql.Dataset<Row> local = load(p, true).where(where).selectExpr("*", "_row_id");
    org.apache.spark.sql.Dataset<Row> job = load(p, false).where(where).selectExpr("*", "_row_id");
    assertThat(kinds(local.queryExecution().executedPlan()))
        .as("%s of %s", where, p.getFileName())
        .containsOnly("local");
    assertThat(kinds(job.queryExecution().executedPlan())).containsOnly("batch");
    List<String> expected = job.toJSON().collectAsList();
    assertThat(expected).as(where).isNotEmpty();
    assertThat(local.toJSON().collectAsList())
        .as("%s of %s", where, p.getFileName())
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void largeLookupsRunAsJobsAndCountsStayWithTheManifest() {
    assertThat(kinds(plan(load(sparkTypes, true).where("_row_id < 4096")))).containsOnly("local");
    assertThat(kinds(plan(load(sparkTypes, true).where("_row_id < 4097")))).containsOnly("batch");
    assertThat(
            kinds(
                plan(
                    spark
                        .read()
                        .format("riffle")
                        .option("driverRows", 10)
                        .load(sparkTypes.toString())
                        .where("_row_id < 11"))))
        .containsOnly("batch");
    // A limit counts: 5 of 5,000 rows are few.
    assertThat(kinds(plan(load(sparkTypes, true).where("_row_id < 5000").limit(5))))
        .containsOnly("local");
    // No _row_id predicate: a scan, however small the result.
    assertThat(kinds(plan(load(sparkTypes, true).where("id = 3")))).containsOnly("batch");
    // A lookup's limit and projection hold on the driver too.
    org.apache.spark.sql.Dataset<Row> some =
        load(sparkTypes, true).where("_row_id between 100 and 199").select("s").limit(5);
    assertThat(kinds(plan(some))).containsOnly("local");
    assertThat(some.collectAsList()).hasSize(5);
    assertThat(load(sparkTypes, true).where("_row_id between 100 and 199").count()).isEqualTo(100);
  }

  /** A data file gone: the lookup fails on the driver, naming the file, as a task would. */
  @Test
  void aMissingFileFailsTheLookupNamingIt() throws Exception {
    Path small = dir.resolve("small");
    spark.range(0, 10, 1, 1).write().format("riffle").save(small.toString());
    Path file;
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(small.resolve("data"))) {
      file = files.findFirst().orElseThrow();
    }
    java.nio.file.Files.delete(file);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> load(small, true).where("_row_id = 3").collectAsList())
        .hasMessageContaining(file.getFileName().toString());
  }

  private static SparkPlan plan(org.apache.spark.sql.Dataset<Row> df) {
    return df.queryExecution().executedPlan();
  }

  /** The kinds of the plan's leaves that read riffle: "local" (the driver's) or "batch" (a job). */
  static List<String> kinds(SparkPlan plan) {
    List<String> out = new ArrayList<>();
    collect(plan, out);
    return out;
  }

  private static void collect(SparkPlan plan, List<String> out) {
    if (plan instanceof BatchScanExec) {
      out.add("batch");
    } else if (plan instanceof LocalTableScanExec) {
      out.add("local");
    } else if (plan instanceof QueryStageExec) {
      collect(((QueryStageExec) plan).plan(), out);
    } else if (plan instanceof AdaptiveSparkPlanExec) {
      collect(((AdaptiveSparkPlanExec) plan).finalPhysicalPlan(), out);
    }
    for (SparkPlan c : scala.jdk.javaapi.CollectionConverters.asJava(plan.children())) {
      collect(c, out);
    }
  }
}
