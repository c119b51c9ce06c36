package dev.riffle.spark;

import static dev.riffle.spark.SparkConnectorTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.write.DatasetGc;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.LocalS3;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Spark writes and reads of {@code s3a://} datasets against the local Ceph RGW ({@code
 * scripts/start-local-s3.sh}; skipped without it unless {@code RIFFLE_S3_REQUIRED=1}), under a
 * fresh prefix per test, with the S3A settings on the shared session's Hadoop configuration as a
 * cluster sets them ({@code spark.hadoop.fs.s3a.*}).
 */
class SparkS3IT {
  /**
   * gc of everything no version names, at once: the test waited for every task, so a lease left
   * behind belongs to a killed task thread of this JVM.
   */
  static final DatasetGc.Options ALL = new DatasetGc.Options(false, java.time.Duration.ZERO, true);

  static SparkSession spark;
  String root;

  /**
   * The S3A settings for the local server that differ from Hadoop's defaults (endpoint,
   * credentials, path-style access, signer), as Hadoop keys.
   */
  static Map<String, String> s3aSettings() throws IOException {
    String endpoint = LocalS3.endpoint().toString();
    Map<String, String> s = LocalS3.settings();
    Configuration conf =
        HadoopStorage.s3aConfiguration(
            endpoint,
            s.getOrDefault("RIFFLE_S3_REGION", "us-east-1"),
            s.get("RIFFLE_S3_ACCESS_KEY"),
            s.get("RIFFLE_S3_SECRET_KEY"));
    Configuration defaults = new Configuration();
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : conf) {
      String k = e.getKey();
      if (k.startsWith("fs.s3a.") && !conf.get(k).equals(defaults.get(k))) {
        out.put(k, conf.get(k));
      }
    }
    return out;
  }

  @BeforeEach
  void connect() throws IOException {
    Map<String, String> settings = s3aSettings();
    spark = LocalSpark.session();
    settings.forEach(spark.sparkContext().hadoopConfiguration()::set);
    root = "s3a://" + LocalS3.bucket() + "/spark-test-" + UUID.randomUUID();
  }

  @AfterEach
  void deletePrefix() throws IOException {
    if (root != null) {
      try (HadoopStorage s = storage()) {
        s.fileSystem().delete(s.root(), true);
      }
    }
  }

  HadoopStorage storage() throws IOException {
    return new HadoopStorage(root, spark.sessionState().newHadoopConf());
  }

  List<Long> versions() throws IOException {
    try (HadoopStorage ds = new HadoopStorage(root + "/ds", spark.sessionState().newHadoopConf())) {
      return Dataset.versions(ds);
    }
  }

  static org.apache.spark.sql.Dataset<Row> frame(int n, long seed, int partitions) {
    return spark
        .createDataFrame(SparkConnectorTest.rows(n, seed), SparkConnectorTest.SCHEMA)
        .repartition(partitions);
  }

  @Test
  void writesReadsAndAppendsOnS3a() throws Exception {
    String uri = root + "/ds";
    frame(SparkConnectorTest.ROWS, SparkConnectorTest.SEED, 3)
        .write()
        .format("riffle")
        .option("targetFileRows", 100)
        .save(uri);

    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(uri);
    assertThat(back.schema().simpleString()).isEqualTo(SparkConnectorTest.SCHEMA.simpleString());
    assertThat(json(back))
        .isEqualTo(json(frame(SparkConnectorTest.ROWS, SparkConnectorTest.SEED, 3)));
    try (HadoopStorage ds = new HadoopStorage(uri, spark.sessionState().newHadoopConf())) {
      Manifest m = Dataset.readManifest(ds, 1);
      assertThat(m.totalRows()).isEqualTo(SparkConnectorTest.ROWS);
      // Three tasks of about 167 rows, cut at 100 rows: 2 files per task.
      assertThat(m.files()).hasSize(6);
      for (Manifest.DataFile f : m.files()) {
        assertThat(ds.length(f.path())).isEqualTo(f.byteLength());
      }
    }

    frame(50, 3, 2).write().format("riffle").mode("append").save(uri);
    assertThat(versions()).containsExactly(1L, 2L);
    assertThat(spark.read().format("riffle").load(uri).count())
        .isEqualTo(SparkConnectorTest.ROWS + 50);
    assertThat(spark.read().format("riffle").option("version", 1).load(uri).count())
        .isEqualTo(SparkConnectorTest.ROWS);
    assertThatThrownBy(() -> frame(5, 4, 1).write().format("riffle").save(uri))
        .hasStackTraceContaining("a Riffle dataset already exists at " + uri);
  }

  /** The SQL catalog with an {@code s3a:} location: CTAS, INSERT, path query, time travel. */
  @Test
  void sqlCatalogOnS3a() throws Exception {
    spark.conf().set("spark.sql.catalog.riffle", RiffleCatalog.class.getName());
    String t = "riffle.`" + root + "/ds`";
    spark.sql("CREATE TABLE " + t + " AS SELECT id, concat('c', id) AS cell FROM range(3)");
    spark.sql("INSERT INTO " + t + " VALUES (3, 'c3')");
    assertThat(versions()).containsExactly(1L, 2L);
    assertThat(spark.sql("SELECT * FROM " + t).orderBy("id").collectAsList().toString())
        .isEqualTo("[[0,c0], [1,c1], [2,c2], [3,c3]]");
    assertThat(spark.sql("SELECT count(*) FROM " + t + " VERSION AS OF 1").first().getLong(0))
        .isEqualTo(3);
    assertThatThrownBy(() -> spark.sql("SELECT * FROM " + t + " VERSION AS OF 3"))
        .hasMessage(root + "/ds: version 3 does not exist; versions are [1, 2]");
  }

  @Test
  void aFailedJobPublishesNothingOnS3a() throws Exception {
    String uri = root + "/ds";
    spark
        .udf()
        .register(
            "failAtS3",
            (Long id) -> {
              if (id == 450) {
                throw new IllegalStateException("task failure at row 450");
              }
              return id;
            },
            DataTypes.LongType);
    org.apache.spark.sql.Dataset<Row> df =
        frame(SparkConnectorTest.ROWS, SparkConnectorTest.SEED, 4)
            .withColumn("id", functions.callUDF("failAtS3", functions.col("id")));
    assertThatThrownBy(() -> df.write().format("riffle").option("targetFileRows", 20).save(uri))
        .hasStackTraceContaining("task failure at row 450");
    assertThat(versions()).isEmpty();
    // Killed tasks abort (deleting their objects) as they stop; wait until none runs. Objects of a
    // task that was already committing when the job failed stay as orphans, which gc removes.
    assertThat(LocalSpark.awaitIdle(spark)).as("Spark idle after the failed job").isTrue();
    try (HadoopStorage ds = new HadoopStorage(uri, spark.sessionState().newHadoopConf())) {
      List<String> left = new ArrayList<>();
      ds.list(DatasetLayout.DATA_DIR).forEach(n -> left.add(DatasetLayout.DATA_DIR + "/" + n));
      assertThat(left).allMatch(f -> f.startsWith(DatasetLayout.DATA_DIR + "/spark-"));
      // gc removes what was listed, and perhaps a straggler's file written since: only job files.
      assertThat(DatasetGc.collect(ds, ALL).deleted())
          .containsAll(left)
          .allMatch(f -> f.startsWith(DatasetLayout.DATA_DIR + "/spark-"));
      assertThat(ds.list(DatasetLayout.DATA_DIR)).isEmpty();
    }
  }
}
