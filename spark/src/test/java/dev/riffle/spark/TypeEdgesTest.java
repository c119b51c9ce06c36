package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values at the edges of each mapped type survive DataFrame → Riffle → DataFrame unchanged:
 * decimals of every storage Spark uses (int, long and wide) at their limits, microseconds of
 * timestamps before 1970 and near year 9999, the extremes of dates, tiny and small ints, NaN,
 * infinities and -0.0, empty strings and binaries, and nulls at every level of arrays, structs and
 * maps.
 */
class TypeEdgesTest {
  @TempDir Path dir;

  @Test
  void edgeValuesRoundTrip() {
    SparkSession spark = LocalSpark.session();
    String cols =
        String.join(
            ", ",
            "CAST(d9 AS DECIMAL(9,2)) AS d9",
            "CAST(d18 AS DECIMAL(18,18)) AS d18",
            "CAST(d38 AS DECIMAL(38,0)) AS d38",
            "CAST(d38s AS DECIMAL(38,37)) AS d38s",
            "CAST(ts AS TIMESTAMP) AS ts",
            "CAST(ntz AS TIMESTAMP_NTZ) AS ntz",
            "CAST(day AS DATE) AS day",
            "CAST(b AS TINYINT) AS b",
            "CAST(sh AS SMALLINT) AS sh",
            "CAST(f AS FLOAT) AS f",
            "CAST(d AS DOUBLE) AS d",
            "s",
            "CAST(s AS BINARY) AS bin",
            "flag",
            "arr",
            "nest",
            "st",
            "m",
            "ms");
    String values =
        String.join(
            ",\n",
            row(
                0,
                "9999999.99",
                "0.999999999999999999",
                "99999999999999999999999999999999999999",
                "9.9999999999999999999999999999999999999",
                "'1900-01-01 00:00:00.000001'",
                "'9999-12-31 23:59:59.999999'",
                "'0001-01-01'",
                "-128",
                "-32768",
                "float('NaN')",
                "double('-Infinity')",
                "''",
                "true",
                "array(NULL, 1, NULL)",
                "array(array(1), NULL, array(), array(NULL))",
                "named_struct('a', NULL, 'b', NULL)",
                "map('a', NULL, '', 1)",
                "map(1, array(named_struct('x', CAST(NULL AS STRING))), 2, NULL)"),
            row(
                1,
                "-9999999.99",
                "-0.000000000000000001",
                "-99999999999999999999999999999999999999",
                "-0.0000000000000000000000000000000000001",
                "'1969-12-31 23:59:59.999999'",
                "'1970-01-01 00:00:00.000001'",
                "'9999-12-31'",
                "127",
                "32767",
                "float('-0.0')",
                "double('Infinity')",
                "'ünï ☃'",
                "false",
                "array()",
                "array()",
                "named_struct('a', 1, 'b', 'x')",
                "map()",
                "map(3, array(NULL))"),
            row(2, nulls(18)));
    org.apache.spark.sql.Dataset<Row> df =
        spark.sql(
            "SELECT id, "
                + cols
                + " FROM VALUES "
                + values
                + " AS t(id, d9, d18, d38, d38s, ts, ntz, day, b, sh, f, d, s, flag, arr, nest, st,"
                + " m, ms)");
    String uri = dir.resolve("ds").toString();
    df.repartition(2).write().format("riffle").save(uri);
    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(uri);
    assertThat(back.schema()).isEqualTo(df.schema());
    List<Row> expected = df.orderBy("id").collectAsList();
    assertThat(expected).hasSize(3);
    assertThat(back.orderBy("id").collectAsList()).isEqualTo(expected);
    // And through row-range partitions (takes instead of scans).
    assertThat(
            spark
                .read()
                .format("riffle")
                .option("rowsPerPartition", 1)
                .load(uri)
                .orderBy("id")
                .collectAsList())
        .isEqualTo(expected);
  }

  static String row(int id, String... v) {
    return "(" + id + ", " + String.join(", ", v) + ")";
  }

  static String[] nulls(int n) {
    String[] out = new String[n];
    java.util.Arrays.fill(out, "NULL");
    return out;
  }
}
