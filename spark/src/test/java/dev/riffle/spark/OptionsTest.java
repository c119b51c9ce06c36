package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Options are never ignored: an unknown or misplaced one is refused naming it and the nearest valid
 * one, and the version can be named as Delta and Iceberg users name it ({@code versionAsOf}, {@code
 * timestampAsOf}).
 */
class OptionsTest {
  static SparkSession spark;

  @TempDir static Path dir;
  static Path ds;

  /** Versions 1 (10 rows) and 2 (15 rows). */
  @BeforeAll
  static void write() throws Exception {
    spark = LocalSpark.session();
    ds = dir.resolve("ds");
    spark.range(10).write().format("riffle").save(ds.toString());
    // Manifests record their time to the millisecond; two versions a few ms apart differ.
    Thread.sleep(20);
    spark.range(10, 15).write().format("riffle").mode("append").save(ds.toString());
  }

  static org.apache.spark.sql.DataFrameReader read() {
    return spark.read().format("riffle");
  }

  static String createdAt(long version) throws Exception {
    try (Storage s = new LocalStorage(ds)) {
      return Dataset.readManifest(s, version).createdAt();
    }
  }

  @Test
  void unknownOptionsAreRefusedNamingTheNearestValidOne() {
    assertThatThrownBy(() -> read().option("verison", 1).load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("unknown riffle option 'verison'; did you mean 'version'?")
        .hasMessageContaining("read options are [path, version, versionAsOf, timestampAsOf");
    assertThatThrownBy(() -> read().option("rowsPerPartiton", 5).load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("did you mean 'rowsPerPartition'?");
    assertThatThrownBy(() -> read().option("header", "true").load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageStartingWith("unknown riffle option 'header'; read options are");
    // A write option on a read, and a read option on a write, are named as such.
    assertThatThrownBy(() -> read().option("zstdLevel", 3).load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("riffle option zstdLevel applies to writes, not to reads");
    Path w = dir.resolve("w");
    assertThatThrownBy(
            () -> spark.range(3).write().format("riffle").option("split", "x").save(w.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("riffle option split applies to reads, not to writes");
    assertThatThrownBy(
            () -> spark.range(3).write().format("riffle").option("zstdLevle", 3).save(w.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("unknown riffle option 'zstdlevle'; did you mean 'zstdLevel'?");
    assertThat(w).doesNotExist();
    // Keys stay case-insensitive, and messages use the documented spelling.
    assertThat(read().option("BATCHROWS", 7).load(ds.toString()).count()).isEqualTo(15);
    assertThatThrownBy(() -> read().option("batchrows", 0).load(ds.toString()))
        .hasMessage("riffle option batchRows must be at least 1, not 0");
    // A filter on a column the dataset lacks is Spark's own analysis error, naming the column and
    // the dataset's columns.
    assertThatThrownBy(() -> read().load(ds.toString()).where("plate = 3"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("`plate` cannot be resolved")
        .hasMessageContaining("`id`");
    assertThatThrownBy(() -> read().load(ds.toString(), ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("riffle reads one dataset location, not several");
  }

  @Test
  void versionAsOfAndTimestampAsOfNameVersions() throws Exception {
    assertThat(read().load(ds.toString()).count()).isEqualTo(15);
    assertThat(read().option("versionAsOf", 1).load(ds.toString()).count()).isEqualTo(10);
    assertThat(read().option("versionAsOf", 1).option("version", 1).load(ds.toString()).count())
        .isEqualTo(10);
    assertThatThrownBy(
            () -> read().option("versionAsOf", 1).option("version", 2).load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("version (2) and versionAsOf (1) name different versions");
    assertThatThrownBy(() -> read().option("versionAsOf", 7).load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessage(new LocalStorage(ds).uri() + ": version 7 does not exist; versions are [1, 2]");

    Instant v1 = Instant.parse(createdAt(1));
    Instant v2 = Instant.parse(createdAt(2));
    assertThat(v2).isAfter(v1);
    // At v1's own instant, or any time before v2's: version 1. From v2's on: version 2.
    assertThat(read().option("timestampAsOf", v1.toString()).load(ds.toString()).count())
        .isEqualTo(10);
    assertThat(
            read()
                .option("timestampAsOf", v2.minusMillis(1).toString())
                .load(ds.toString())
                .count())
        .isEqualTo(10);
    assertThat(read().option("timestampAsOf", v2.toString()).load(ds.toString()).count())
        .isEqualTo(15);
    // A local time, in the session's time zone (UTC in these tests), as Spark users write it.
    String local = v2.toString().replace('T', ' ').replace("Z", "");
    assertThat(read().option("timestampAsOf", local).load(ds.toString()).count()).isEqualTo(15);
    assertThatThrownBy(() -> read().option("timestampAsOf", "2020-01-01").load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining(
            new LocalStorage(ds).uri()
                + ": no version was published at or before timestampAsOf 2020-01-01")
        .hasMessageContaining("the first, version 1, was published at " + createdAt(1));
    assertThatThrownBy(() -> read().option("timestampAsOf", "yesterday").load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("must be a timestamp such as");
    assertThatThrownBy(
            () ->
                read()
                    .option("timestampAsOf", v2.toString())
                    .option("version", 1)
                    .load(ds.toString()))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("timestampAsOf and version (or versionAsOf) both name a version");
  }

  @Test
  void catalogTablesTakeTheSameOptions() {
    spark.sql("CREATE TABLE opts_cells USING riffle LOCATION '" + ds + "'");
    try {
      assertThat(spark.sql("SELECT count(*) FROM opts_cells").first().getLong(0)).isEqualTo(15);
      // (versionAsOf in WITH is Spark's own time travel, which needs a catalog: #20 item 8.)
      assertThat(
              spark
                  .sql("SELECT count(*) FROM opts_cells WITH ('version' = '1')")
                  .first()
                  .getLong(0))
          .isEqualTo(10);
      assertThatThrownBy(
              () -> spark.sql("SELECT count(*) FROM opts_cells WITH ('verison' = '1')").collect())
          .isInstanceOf(AnalysisException.class)
          .hasMessageContaining("unknown riffle option 'verison'; did you mean 'version'?");
    } finally {
      spark.sql("DROP TABLE opts_cells");
    }
  }
}
