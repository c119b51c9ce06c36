package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetVersions;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Riffle datasets in Spark SQL through {@link RiffleCatalog}: path queries, {@code VERSION AS OF}
 * and {@code TIMESTAMP AS OF} with the reader options' results row for row, splits, and what the
 * catalog refuses (ALTER, plain CREATE), each naming the dataset.
 */
class SqlCatalogTest {
  static SparkSession spark;

  @TempDir static Path dir;
  static Path ds;

  /** Version 1 (10 rows), 2 (15 rows), 3 (the same rows, with a split "train" of 6). */
  @BeforeAll
  static void write() throws Exception {
    spark = LocalSpark.session();
    spark.conf().set("spark.sql.catalog.riffle", RiffleCatalog.class.getName());
    ds = dir.resolve("ds");
    spark
        .range(10)
        .selectExpr("id", "concat('c', id) as cell")
        .write()
        .format("riffle")
        .save(ds.toString());
    // Manifests record their time to the millisecond; versions a few ms apart differ.
    Thread.sleep(20);
    spark
        .range(10, 15)
        .selectExpr("id", "concat('c', id) as cell")
        .write()
        .format("riffle")
        .mode("append")
        .save(ds.toString());
    Thread.sleep(20);
    Roaring64Bitmap train = new Roaring64Bitmap();
    train.addRange(2, 8);
    try (Storage storage = new LocalStorage(ds)) {
      DatasetVersions.setSplit(storage, "train", train);
    }
  }

  static String createdAt(long version) throws Exception {
    try (Storage s = new LocalStorage(ds)) {
      return Dataset.readManifest(s, version).createdAt();
    }
  }

  static List<Row> sql(String query) {
    return spark.sql(query).collectAsList();
  }

  /** The rows of a read, sorted by id, as text. */
  static String rows(org.apache.spark.sql.Dataset<Row> df) {
    return df.orderBy("id").collectAsList().toString();
  }

  static org.apache.spark.sql.DataFrameReader read() {
    return spark.read().format("riffle");
  }

  static String uri(Path p) {
    return new LocalStorage(p).uri();
  }

  @Test
  void pathQueriesReadTheDatasetAndItsSplits() {
    assertThat(rows(spark.sql("SELECT * FROM riffle.`" + ds + "`")))
        .isEqualTo(rows(read().load(ds.toString())))
        .contains("[14,c14]");
    // The same location as a file: URI, and a split as a table option.
    assertThat(rows(spark.sql("SELECT * FROM riffle.`" + uri(ds) + "` WITH ('split' = 'train')")))
        .isEqualTo(rows(read().option("split", "train").load(ds.toString())))
        .isEqualTo("[[2,c2], [3,c3], [4,c4], [5,c5], [6,c6], [7,c7]]");
    assertThat(sql("SELECT count(*) FROM riffle.`" + ds + "` WHERE _row_id < 3").get(0).getLong(0))
        .isEqualTo(3);
    assertThatThrownBy(() -> sql("SELECT * FROM riffle.`" + ds + "` WITH ('split' = 'test')"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining(uri(ds))
        .hasMessageContaining("test");
    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> sql("SELECT * FROM riffle.`" + missing + "`"))
        .isInstanceOf(AnalysisException.class)
        .hasMessage(uri(missing) + ": no Riffle dataset there");
    Path parquet = dir.resolve("parquet");
    spark.range(3).write().parquet(parquet.toString());
    assertThatThrownBy(() -> sql("SELECT * FROM riffle.`" + parquet + "`"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining(uri(parquet) + " is not a Riffle dataset: the location holds files");
    assertThatThrownBy(() -> sql("SELECT * FROM riffle.data.atlas"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("names a Riffle dataset by its location, backquoted as one part");
  }

  /** {@code CALL riffle.system.random_split}: the CLI's split, the same rows for the same seed. */
  @Test
  void randomSplitProcedureIsTheClisSplit() throws Exception {
    Path a = dir.resolve("split-a");
    Path b = dir.resolve("split-b");
    for (Path p : List.of(a, b)) {
      spark
          .range(200)
          .selectExpr("id", "concat('c', id) as cell")
          .write()
          .format("riffle")
          .save(p.toString());
    }
    sql(
        "CALL riffle.system.random_split(location => '"
            + a
            + "', name => 'train', fraction => 0.75, seed => 7, rest => 'test')");
    try (Storage s = new LocalStorage(b)) {
      DatasetVersions.randomSplit(s, "train", 0.75, 7, "test");
    }
    String train = rows(read().option("split", "train").load(a.toString()));
    String test = rows(read().option("split", "test").load(a.toString()));
    assertThat(train).isEqualTo(rows(read().option("split", "train").load(b.toString())));
    assertThat(test).isEqualTo(rows(read().option("split", "test").load(b.toString())));
    long n = read().option("split", "train").load(a.toString()).count();
    assertThat(n + read().option("split", "test").load(a.toString()).count()).isEqualTo(200);
    assertThat(n).isBetween(120L, 180L);
    // Positional arguments and the default seed; a bad fraction names the dataset.
    sql("CALL riffle.system.random_split('" + a + "', 'small', 0.1)");
    assertThat(read().option("split", "small").load(a.toString()).count()).isBetween(5L, 40L);
    assertThatThrownBy(() -> sql("CALL riffle.system.random_split('" + a + "', 'bad', 1.5)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining(uri(a))
        .hasMessageContaining("fraction");
    assertThatThrownBy(() -> sql("CALL riffle.system.nothing('" + a + "')"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("riffle.system.random_split");
  }

  @Test
  void versionAsOfEqualsTheReaderOption() {
    for (long v = 1; v <= 3; v++) {
      assertThat(rows(spark.sql("SELECT * FROM riffle.`" + ds + "` VERSION AS OF " + v)))
          .isEqualTo(rows(read().option("versionAsOf", v).load(ds.toString())));
    }
    assertThat(sql("SELECT count(*) FROM riffle.`" + ds + "` VERSION AS OF 1").get(0).getLong(0))
        .isEqualTo(10);
    // Spark's own option spelling of time travel reaches the catalog too.
    assertThat(
            sql("SELECT count(*) FROM riffle.`" + ds + "` WITH ('versionAsOf' = '1')")
                .get(0)
                .getLong(0))
        .isEqualTo(10);
    assertThatThrownBy(() -> sql("SELECT * FROM riffle.`" + ds + "` VERSION AS OF 7"))
        .isInstanceOf(AnalysisException.class)
        .hasMessage(uri(ds) + ": version 7 does not exist; versions are [1, 2, 3]");
  }

  @Test
  void timestampAsOfEqualsTheReaderOption() throws Exception {
    Instant v1 = Instant.parse(createdAt(1));
    Instant v2 = Instant.parse(createdAt(2));
    for (Instant at : List.of(v1, v2.minusMillis(1), v2, Instant.parse(createdAt(3)))) {
      // A local time in the session's time zone (UTC here), as SQL users write it.
      String local = at.toString().replace('T', ' ').replace("Z", "");
      assertThat(
              rows(spark.sql("SELECT * FROM riffle.`" + ds + "` TIMESTAMP AS OF '" + local + "'")))
          .isEqualTo(rows(read().option("timestampAsOf", at.toString()).load(ds.toString())));
    }
    assertThat(
            sql("SELECT count(*) FROM riffle.`"
                    + ds
                    + "` TIMESTAMP AS OF '"
                    + v2.minusMillis(1).toString().replace('T', ' ').replace("Z", "")
                    + "'")
                .get(0)
                .getLong(0))
        .isEqualTo(10);
    assertThatThrownBy(
            () -> sql("SELECT * FROM riffle.`" + ds + "` TIMESTAMP AS OF '2020-01-01 00:00:00'"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining(
            uri(ds) + ": no version was published at or before timestampAsOf 2020-01-01T00:00:00Z")
        .hasMessageContaining("the first, version 1, was published at " + createdAt(1));
  }

  @Test
  void describeShowsProviderAndLocationAndAlterIsRefused() {
    String describe =
        spark.sql("DESCRIBE TABLE EXTENDED riffle.`" + ds + "`").collectAsList().toString();
    assertThat(describe)
        .contains("[Provider,riffle,", "[Location," + uri(ds) + ",", "riffle.version=3");
    assertThat(spark.sql("SHOW CREATE TABLE riffle.`" + ds + "`").first().getString(0))
        .contains("USING riffle", "LOCATION '" + uri(ds) + "'");
    assertThatThrownBy(() -> sql("ALTER TABLE riffle.`" + ds + "` ADD COLUMNS (x INT)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageStartingWith(uri(ds) + ": ALTER TABLE (ADD COLUMNS) is not supported");
    assertThatThrownBy(() -> sql("DROP TABLE riffle.`" + ds + "`"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("does not delete datasets");
    // Nothing changed.
    assertThat(rows(spark.sql("SELECT * FROM riffle.`" + ds + "`")))
        .isEqualTo(rows(read().load(ds.toString())));
  }

  /**
   * {@code INSERT OVERWRITE}, {@code writeTo(...).overwrite(lit(true))} and {@code
   * mode("overwrite")}: each a new version with only the new rows; the older ones stay readable.
   */
  @Test
  void overwritesWriteANewVersionWithOnlyTheNewRows() throws Exception {
    Path o = dir.resolve("o");
    String t = "riffle.`" + o + "`";
    sql("CREATE TABLE " + t + " AS SELECT id, concat('c', id) AS cell FROM range(3)");
    sql("INSERT OVERWRITE " + t + " VALUES (9, 'c9')");
    assertThat(rows(spark.sql("SELECT * FROM " + t))).isEqualTo("[[9,c9]]");
    assertThat(rows(spark.sql("SELECT * FROM " + t + " VERSION AS OF 1")))
        .isEqualTo("[[0,c0], [1,c1], [2,c2]]");
    sql("INSERT OVERWRITE " + t + " BY NAME SELECT 'c7' AS cell, 7L AS id");
    assertThat(rows(spark.sql("SELECT * FROM " + t))).isEqualTo("[[7,c7]]");
    spark
        .sql("SELECT 5L AS id, 'c5' AS cell")
        .writeTo(t)
        .overwrite(org.apache.spark.sql.functions.lit(true));
    assertThat(rows(spark.sql("SELECT * FROM " + t))).isEqualTo("[[5,c5]]");
    // Overwriting the rows a condition selects is refused, naming the dataset; nothing written.
    assertThatThrownBy(
            () ->
                spark
                    .sql("SELECT 6L AS id, 'c6' AS cell")
                    .writeTo(t)
                    .overwrite(org.apache.spark.sql.functions.col("id").gt(3)))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("riffle " + uri(o) + ": overwriting only the rows where");
    // The path API's mode("overwrite"): a new version too, and a new schema if the rows have one.
    spark.sql("SELECT 'x' AS other").write().format("riffle").mode("overwrite").save(o.toString());
    assertThat(read().load(o.toString()).collectAsList().toString()).isEqualTo("[[x]]");
    try (Storage s = new LocalStorage(o)) {
      assertThat(Dataset.versions(s)).containsExactly(1L, 2L, 3L, 4L, 5L);
    }
    assertThat(rows(spark.sql("SELECT * FROM " + t + " VERSION AS OF 4"))).isEqualTo("[[5,c5]]");
    assertThat(rows(spark.sql("SELECT * FROM " + t + " VERSION AS OF 2"))).isEqualTo("[[9,c9]]");
  }

  @Test
  void insertAppendsAVersionAndCtasCreatesTheDataset() throws Exception {
    Path w = dir.resolve("w");
    String t = "riffle.`" + w + "`";
    sql("CREATE TABLE " + t + " AS SELECT id, concat('c', id) AS cell FROM range(3)");
    assertThat(rows(read().load(w.toString()))).isEqualTo("[[0,c0], [1,c1], [2,c2]]");
    assertThatThrownBy(() -> sql("CREATE TABLE " + t + " AS SELECT 1 AS id"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("TABLE_OR_VIEW_ALREADY_EXISTS");
    // SQL's INSERT matches by position, BY NAME and writeTo(...).append() by name.
    sql("INSERT INTO " + t + " VALUES (3, 'c3')");
    sql("INSERT INTO " + t + " BY NAME SELECT 'c4' AS cell, 4L AS id");
    spark.sql("SELECT 'c5' AS cell, 5L AS id").writeTo(t).append();
    assertThat(rows(spark.sql("SELECT * FROM " + t)))
        .isEqualTo("[[0,c0], [1,c1], [2,c2], [3,c3], [4,c4], [5,c5]]");
    try (Storage s = new LocalStorage(w)) {
      assertThat(Dataset.versions(s)).containsExactly(1L, 2L, 3L, 4L);
    }
    assertThat(rows(spark.sql("SELECT * FROM " + t + " VERSION AS OF 2")))
        .isEqualTo("[[0,c0], [1,c1], [2,c2], [3,c3]]");
    assertThatThrownBy(() -> sql("INSERT INTO " + t + " BY NAME SELECT 6L AS id, 'x' AS other"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("Cannot find data for the output column `cell`");
    // saveAsTable creates a dataset, then appends to it.
    Path s2 = dir.resolve("s2");
    assertThatThrownBy(() -> spark.range(2).write().saveAsTable("riffle.`" + s2 + "`"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("holds Riffle datasets only, not USING parquet");
    spark.range(2).write().format("riffle").saveAsTable("riffle.`" + s2 + "`");
    spark.range(2, 4).write().format("riffle").mode("append").saveAsTable("riffle.`" + s2 + "`");
    assertThat(rows(read().load(s2.toString()))).isEqualTo("[[0], [1], [2], [3]]");
    // Write options as table options; an unknown one is refused naming it.
    Path z = dir.resolve("z");
    sql("CREATE TABLE riffle.`" + z + "` OPTIONS (zstdLevel = 0) AS SELECT 1L AS id");
    assertThat(read().load(z.toString()).count()).isEqualTo(1);
    assertThatThrownBy(
            () ->
                sql(
                    "CREATE TABLE riffle.`"
                        + dir.resolve("z2")
                        + "` OPTIONS (zstdLevle = 0) AS SELECT 1L AS id"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("unknown riffle option 'zstdlevle'; did you mean 'zstdLevel'?");
    assertThat(dir.resolve("z2")).doesNotExist();
    // A dataset begins with rows.
    assertThatThrownBy(() -> sql("CREATE TABLE riffle.`" + dir.resolve("e") + "` (id BIGINT)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("a Riffle dataset begins with its first rows");
    assertThat(dir.resolve("e")).doesNotExist();
  }

  /**
   * A table of Spark's own catalog ({@code CREATE TABLE ... USING riffle LOCATION}) takes ALTER
   * TABLE ADD COLUMNS without asking the source; its reads then say what happened and what to do.
   */
  @Test
  void sessionCatalogTableAlteredInTheCatalogOnlySaysSo() {
    Path p = dir.resolve("sess");
    spark.range(3).write().format("riffle").save(p.toString());
    spark.sql("CREATE TABLE sess_cells USING riffle LOCATION '" + p + "'");
    try {
      sql("ALTER TABLE sess_cells ADD COLUMNS (x INT)");
      assertThatThrownBy(() -> sql("SELECT * FROM sess_cells"))
          .isInstanceOf(AnalysisException.class)
          .hasMessageStartingWith(
              "the catalog's schema of the riffle table at "
                  + uri(p)
                  + " is not the dataset's: the dataset's columns are [id], not [id, x]; a Riffle"
                  + " dataset's columns do not change with ALTER TABLE");
    } finally {
      spark.sql("DROP TABLE sess_cells");
    }
  }

  @Test
  void unconfiguredCatalog() {
    SparkSession bare = spark.newSession();
    bare.conf().unset("spark.sql.catalog.riffle");
    assertThatThrownBy(() -> bare.sql("SELECT * FROM riffle.`" + ds + "`").collectAsList())
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY");
  }
}
