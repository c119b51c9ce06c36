package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetGc;
import dev.riffle.dataset.write.DatasetVersions;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * DataFrame → Riffle → DataFrame on local[2]: every mapped type nested and with nulls, several
 * tasks and files, column pruning, partitions per file or row range, save modes, versions, splits
 * and deletions, failures that publish nothing, and errors that name what is wrong.
 */
class SparkConnectorTest {
  /**
   * gc of everything no version names, at once: the test waited for every task, so a lease left
   * behind belongs to a killed task thread of this JVM.
   */
  static final DatasetGc.Options ALL = new DatasetGc.Options(false, java.time.Duration.ZERO, true);

  static final long SEED = 0x5eed_2026L;
  static final int ROWS = 500;
  static SparkSession spark;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    spark = LocalSpark.session();
  }

  static final StructType INNER =
      DataTypes.createStructType(
          List.of(
              DataTypes.createStructField("a", DataTypes.IntegerType, true),
              DataTypes.createStructField("b", DataTypes.StringType, true),
              DataTypes.createStructField(
                  "c", DataTypes.createArrayType(DataTypes.DoubleType, true), true)));

  static final StructType SCHEMA =
      DataTypes.createStructType(
          List.of(
              DataTypes.createStructField("id", DataTypes.LongType, false),
              DataTypes.createStructField("flag", DataTypes.BooleanType, true),
              DataTypes.createStructField("tiny", DataTypes.ByteType, true),
              DataTypes.createStructField("small", DataTypes.ShortType, true),
              DataTypes.createStructField("n", DataTypes.IntegerType, true),
              DataTypes.createStructField("f", DataTypes.FloatType, true),
              DataTypes.createStructField("d", DataTypes.DoubleType, true),
              DataTypes.createStructField("price", DataTypes.createDecimalType(12, 3), true),
              DataTypes.createStructField("s", DataTypes.StringType, true),
              DataTypes.createStructField("bin", DataTypes.BinaryType, true),
              DataTypes.createStructField("day", DataTypes.DateType, true),
              DataTypes.createStructField("ts", DataTypes.TimestampType, true),
              DataTypes.createStructField("local", DataTypes.TimestampNTZType, true),
              DataTypes.createStructField("gap", DataTypes.createDayTimeIntervalType(), true),
              DataTypes.createStructField(
                  "emb", DataTypes.createArrayType(DataTypes.FloatType, false), true),
              DataTypes.createStructField(
                  "ints", DataTypes.createArrayType(DataTypes.IntegerType, true), true),
              DataTypes.createStructField("inner", INNER, true),
              DataTypes.createStructField("structs", DataTypes.createArrayType(INNER, true), true),
              DataTypes.createStructField(
                  "tags",
                  DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType, true),
                  true),
              DataTypes.createStructField(
                  "nested",
                  DataTypes.createMapType(
                      DataTypes.IntegerType,
                      DataTypes.createArrayType(DataTypes.StringType, true),
                      true),
                  true)));

  /** Seeded rows of SCHEMA, about a tenth of each nullable value null. */
  static List<Row> rows(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    List<Row> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          RowFactory.create(
              (long) i,
              nul(r, r.nextBoolean()),
              nul(r, (byte) r.nextInt(-128, 128)),
              nul(r, (short) r.nextInt(-30000, 30000)),
              nul(r, r.nextInt()),
              nul(r, (float) r.nextDouble(-1e6, 1e6)),
              nul(r, r.nextDouble(-1e12, 1e12)),
              nul(r, BigDecimal.valueOf(r.nextLong(-999_999_999_999L, 999_999_999_999L), 3)),
              nul(r, text(r)),
              nul(r, bytes(r)),
              nul(r, Date.valueOf(java.time.LocalDate.ofEpochDay(r.nextInt(-20000, 40000)))),
              nul(r, new Timestamp(r.nextLong(-2_000_000_000_000L, 4_000_000_000_000L))),
              nul(r, LocalDateTime.of(2020, 1, 1, 0, 0).plusSeconds(r.nextInt(0, 1 << 30))),
              nul(r, Duration.ofNanos(r.nextLong(-1L << 50, 1L << 50) * 1000)),
              nul(r, floats(r, 4)),
              nul(r, ints(r)),
              nul(r, inner(r)),
              nul(r, List.of(inner(r), inner(r))),
              nul(r, tags(r)),
              nul(r, Map.of(r.nextInt(100), List.of(text(r)), 1000 + r.nextInt(100), List.of()))));
    }
    return out;
  }

  static <T> T nul(SplittableRandom r, T value) {
    return r.nextInt(10) == 0 ? null : value;
  }

  static String text(SplittableRandom r) {
    StringBuilder b = new StringBuilder();
    int n = r.nextInt(0, 12);
    for (int i = 0; i < n; i++) {
      b.append((char) (r.nextBoolean() ? 'a' + r.nextInt(26) : 0x3b1 + r.nextInt(20)));
    }
    return b.toString();
  }

  static byte[] bytes(SplittableRandom r) {
    byte[] b = new byte[r.nextInt(0, 9)];
    r.nextBytes(b);
    return b;
  }

  static List<Float> floats(SplittableRandom r, int n) {
    List<Float> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add((float) r.nextDouble());
    }
    return out;
  }

  static List<Integer> ints(SplittableRandom r) {
    List<Integer> out = new ArrayList<>();
    int n = r.nextInt(0, 5);
    for (int i = 0; i < n; i++) {
      out.add(r.nextInt(5) == 0 ? null : r.nextInt());
    }
    return out;
  }

  static Row inner(SplittableRandom r) {
    return RowFactory.create(
        nul(r, r.nextInt()), nul(r, text(r)), nul(r, List.of(r.nextDouble(), r.nextDouble())));
  }

  static Map<String, Integer> tags(SplittableRandom r) {
    Map<String, Integer> m = new LinkedHashMap<>();
    int n = r.nextInt(0, 4);
    for (int i = 0; i < n; i++) {
      m.put("k" + i, r.nextInt(4) == 0 ? null : r.nextInt(1000));
    }
    return m;
  }

  static org.apache.spark.sql.Dataset<Row> frame(int n, long seed, int partitions) {
    return spark.createDataFrame(rows(n, seed), SCHEMA).repartition(partitions);
  }

  /** Rows as JSON, ordered by id: comparable whatever the row order and collection types. */
  static List<String> json(org.apache.spark.sql.Dataset<Row> df) {
    return df.orderBy("id").toJSON().collectAsList();
  }

  String where() {
    return "seed " + Long.toHexString(SEED);
  }

  @Test
  void roundTripOfNestedTypesAndNullsInPartitionOrder() throws Exception {
    String uri = dir.resolve("ds").toString();
    // seq increases along each partition and from partition to partition, whatever the shuffle.
    org.apache.spark.sql.Dataset<Row> df =
        frame(ROWS, SEED, 3).withColumn("seq", functions.monotonically_increasing_id());
    df.write().format("riffle").option("targetFileRows", 70).save(uri);

    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(uri);
    assertThat(back.drop("seq").schema().simpleString()).isEqualTo(SCHEMA.simpleString());
    assertThat(json(back.drop("seq"))).as(where()).isEqualTo(json(frame(ROWS, SEED, 3)));

    try (Storage storage = new LocalStorage(dir.resolve("ds"));
        RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(storage, allocator)) {
      Manifest m = ds.manifest();
      assertThat(m.version()).isEqualTo(1);
      assertThat(m.totalRows()).isEqualTo(ROWS);
      // Three tasks of about 167 rows, cut at 70 rows: 3 files per task.
      assertThat(m.files()).hasSize(9);
      assertThat(ds.arrowSchema().findField("id").isNullable()).isFalse();
      // Global rows follow partition order, and task order within a partition.
      try (VectorSchemaRoot seq = ds.take(range(ROWS), List.of("seq"))) {
        for (int i = 1; i < ROWS; i++) {
          assertThat((Long) seq.getVector("seq").getObject(i))
              .as("row %d", i)
              .isGreaterThan((Long) seq.getVector("seq").getObject(i - 1));
        }
      }
    }
  }

  @Test
  void prunesColumnsAndSplitsFilesIntoPartitions() {
    String uri = dir.resolve("ds").toString();
    frame(ROWS, SEED, 2).write().format("riffle").option("targetFileRows", 100).save(uri);

    org.apache.spark.sql.Dataset<Row> some =
        spark.read().format("riffle").load(uri).select("s", "id");
    String plan = some.queryExecution().executedPlan().toString();
    assertThat(plan).contains("columns [id, s]");
    assertThat(json(some)).isEqualTo(json(frame(ROWS, SEED, 2).select("s", "id")));

    // Files of at most 100 rows; 30 rows per partition: ceil(rows / 30) partitions per file.
    org.apache.spark.sql.Dataset<Row> split =
        spark.read().format("riffle").option("rowsPerPartition", 30).load(uri);
    long expected;
    try (Storage storage = new LocalStorage(dir.resolve("ds"))) {
      Manifest m = Dataset.readManifest(storage, 1);
      expected = m.files().stream().mapToLong(f -> (f.rowCount() + 29) / 30).sum();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertThat(split.rdd().getNumPartitions()).isEqualTo((int) expected);
    assertThat(split.count()).isEqualTo(ROWS);
    assertThat(json(split)).isEqualTo(json(frame(ROWS, SEED, 2)));
    // By default one partition per file (these are far below spark.sql.files.maxPartitionBytes).
    assertThat(spark.read().format("riffle").load(uri).rdd().getNumPartitions()).isEqualTo(6);
    assertThat(spark.read().format("riffle").load(uri).filter("n > 0").count())
        .isEqualTo(frame(ROWS, SEED, 2).filter("n > 0").count());
  }

  @Test
  void saveModesMakeNewVersionsAndKeepOldOnes() throws Exception {
    Path ds = dir.resolve("ds");
    String uri = ds.toUri().toString();
    frame(100, 1, 2).write().format("riffle").save(uri);

    assertThatThrownBy(() -> frame(10, 2, 1).write().format("riffle").save(uri))
        .hasStackTraceContaining("a Riffle dataset already exists at " + new LocalStorage(ds).uri())
        .hasStackTraceContaining("latest version 1");
    frame(10, 2, 1).write().format("riffle").mode("ignore").save(uri);
    assertThat(versions(ds)).containsExactly(1L);

    org.apache.spark.sql.Dataset<Row> v1 = spark.read().format("riffle").load(uri);
    frame(50, 3, 2).write().format("riffle").mode("append").save(uri);
    assertThat(versions(ds)).containsExactly(1L, 2L);
    // The job's lease and its tasks' are gone once the version is published.
    try (var leases = Files.list(ds.resolve(DatasetLayout.LEASES_DIR))) {
      assertThat(leases).isEmpty();
    }
    org.apache.spark.sql.Dataset<Row> v2 = spark.read().format("riffle").load(uri);
    assertThat(v2.count()).isEqualTo(150);
    // A DataFrame loaded before the append still reads the version it was loaded from.
    assertThat(v1.count()).isEqualTo(100);
    assertThat(json(v1)).isEqualTo(json(frame(100, 1, 2)));

    frame(7, 4, 1).drop("nested").write().format("riffle").mode("overwrite").save(uri);
    assertThat(versions(ds)).containsExactly(1L, 2L, 3L);
    org.apache.spark.sql.Dataset<Row> now = spark.read().format("riffle").load(uri);
    assertThat(now.columns()).doesNotContain("nested");
    assertThat(json(now)).isEqualTo(json(frame(7, 4, 1).drop("nested")));
    org.apache.spark.sql.Dataset<Row> first =
        spark.read().format("riffle").option("version", 1).load(uri);
    assertThat(json(first)).isEqualTo(json(frame(100, 1, 2)));
    assertThat(spark.read().format("riffle").option("version", "2").load(uri).count())
        .isEqualTo(150);

    // An empty DataFrame is a version without rows, with the schema.
    String empty = dir.resolve("empty").toString();
    frame(0, 6, 2).write().format("riffle").save(empty);
    org.apache.spark.sql.Dataset<Row> none = spark.read().format("riffle").load(empty);
    assertThat(none.count()).isZero();
    assertThat(none.schema().simpleString()).isEqualTo(SCHEMA.simpleString());

    // Appending columns the dataset does not have is refused before any task writes.
    assertThatThrownBy(() -> frame(5, 5, 1).write().format("riffle").mode("append").save(uri))
        .hasStackTraceContaining("'nested'");
    assertThat(versions(ds)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void readsSplitsWithoutDeletedRows() throws Exception {
    Path ds = dir.resolve("ds");
    frame(ROWS, SEED, 2).write().format("riffle").option("targetFileRows", 64).save(ds.toString());
    Roaring64Bitmap head = new Roaring64Bitmap();
    head.addRange(0, 10);
    head.addRange(100, 150);
    List<Long> ids;
    try (Storage storage = new LocalStorage(ds);
        RootAllocator allocator = new RootAllocator()) {
      DatasetVersions.setSplit(storage, "head", head);
      Roaring64Bitmap gone = new Roaring64Bitmap();
      gone.add(5L, 120L, 400L);
      DatasetVersions.deleteRows(storage, gone);
      try (Dataset d = Dataset.open(storage, allocator);
          VectorSchemaRoot got = d.split("head").take(range(58), List.of("id"))) {
        ids = new ArrayList<>();
        for (int i = 0; i < 58; i++) {
          ids.add((Long) got.getVector("id").getObject(i));
        }
      }
    }
    org.apache.spark.sql.Dataset<Row> split =
        spark.read().format("riffle").option("split", "head").load(ds.toString());
    assertThat(split.count()).isEqualTo(58);
    // The optimizer knows the view's size.
    assertThat(split.queryExecution().optimizedPlan().stats().rowCount().get().longValue())
        .isEqualTo(58);
    assertThat(split.select("id").collectAsList().stream().map(r -> r.getLong(0)).sorted().toList())
        .isEqualTo(ids.stream().sorted().toList());
    org.apache.spark.sql.Dataset<Row> all = spark.read().format("riffle").load(ds.toString());
    assertThat(all.count()).isEqualTo(ROWS - 3);
    assertThat(json(all.select("id", "s")).size()).isEqualTo(ROWS - 3);
  }

  static long[] range(int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    return out;
  }

  static List<Long> versions(Path ds) throws Exception {
    try (Storage storage = new LocalStorage(ds)) {
      return Dataset.versions(storage);
    }
  }

  @Test
  void badInputsNameWhatIsWrongAndWriteNothing() throws Exception {
    Path missing = dir.resolve("none");
    assertThatThrownBy(() -> spark.read().format("riffle").load(missing.toString()))
        .hasStackTraceContaining("no Riffle dataset there");

    Path ds = dir.resolve("ds");
    frame(20, 1, 1).write().format("riffle").save(ds.toString());
    assertThatThrownBy(() -> spark.read().format("riffle").option("version", 9).load(ds.toString()))
        .hasStackTraceContaining("version 9 does not exist; versions are [1]");
    assertThatThrownBy(
            () -> spark.read().format("riffle").option("split", "nope").load(ds.toString()))
        .hasStackTraceContaining("no split 'nope'");
    assertThatThrownBy(
            () -> spark.read().format("riffle").option("version", "x").load(ds.toString()))
        .hasStackTraceContaining("riffle option version must be a number, not 'x'");
    assertThatThrownBy(() -> spark.read().format("riffle").load("nosuchfs://bucket/ds"))
        .hasStackTraceContaining("cannot open the dataset location nosuchfs://bucket/ds")
        .hasStackTraceContaining("no Hadoop file system for the scheme nosuchfs");

    Path bad = dir.resolve("bad");
    assertThatThrownBy(
            () ->
                spark
                    .range(3)
                    .withColumn("months", functions.expr("INTERVAL '1-2' YEAR TO MONTH"))
                    .write()
                    .format("riffle")
                    .save(bad.toString()))
        .hasStackTraceContaining("field 'months' has type interval year to month")
        .hasStackTraceContaining("has no Riffle equivalent");
    assertThatThrownBy(
            () ->
                spark
                    .range(3)
                    .withColumn(
                        "s",
                        functions.struct(functions.col("id"), functions.lit(null).as("nothing")))
                    .write()
                    .format("riffle")
                    .save(bad.toString()))
        .hasStackTraceContaining("field 's.nothing' has type void");
    assertThat(Files.exists(bad)).isFalse();
  }

  @Test
  void aFailedJobPublishesNothingAndLeavesNoFiles() throws Exception {
    Path ds = dir.resolve("ds");
    spark
        .udf()
        .register(
            "failAt",
            (Long id) -> {
              if (id == 450) {
                throw new IllegalStateException("task failure at row 450");
              }
              return id;
            },
            DataTypes.LongType);
    org.apache.spark.sql.Dataset<Row> df =
        frame(ROWS, SEED, 4).withColumn("id", functions.callUDF("failAt", functions.col("id")));
    assertThatThrownBy(
            () -> df.write().format("riffle").option("targetFileRows", 20).save(ds.toString()))
        .hasStackTraceContaining("task failure at row 450");
    assertThat(versions(ds)).isEmpty();
    // Tasks still running when the job failed are killed and abort (deleting their files) as they
    // stop; wait until none runs. A task that had already been allowed to commit when the job
    // failed may finish its files after the driver's abort cleaned up: those stay, as orphans that
    // no version names and that gc removes.
    assertThat(LocalSpark.awaitIdle(spark)).as("Spark idle after the failed job").isTrue();
    assertThat(versions(ds)).isEmpty();
    Path data = ds.resolve(DatasetLayout.DATA_DIR);
    if (Files.isDirectory(data)) {
      List<String> left;
      try (var files = Files.list(data)) {
        left = files.map(f -> DatasetLayout.DATA_DIR + "/" + f.getFileName()).sorted().toList();
      }
      assertThat(left).allMatch(f -> f.startsWith(DatasetLayout.DATA_DIR + "/spark-"));
      try (Storage storage = new LocalStorage(ds)) {
        // gc removes what was listed, and perhaps a straggler's file written since: only job files.
        assertThat(DatasetGc.collect(storage, ALL).deleted())
            .containsAll(left)
            .allMatch(f -> f.startsWith(DatasetLayout.DATA_DIR + "/spark-"));
      }
      try (var files = Files.list(data)) {
        assertThat(files).isEmpty();
      }
    }
  }
}
