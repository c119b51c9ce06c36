package dev.riffle.spark;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The job {@link ShadedJarIT} submits with spark-submit, whose class path is Spark's plus the
 * shaded jar (--jars) only: for each dataset location given (a local path; an s3a: URI when the
 * local S3 server is up, with its settings as {@code --conf spark.hadoop.fs.s3a.*}), writes a
 * dataset with format("riffle"), appends to it, reads it back, prints the checks.
 */
public final class ShadedJarMain {
  private ShadedJarMain() {}

  public static void main(String[] args) {
    SparkSession spark = SparkSession.builder().getOrCreate();
    try {
      for (String location : args) {
        check(spark, location);
      }
    } finally {
      spark.stop();
    }
  }

  private static void check(SparkSession spark, String location) {
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .range(1000)
            .repartition(2)
            .withColumn("emb", functions.array(functions.col("id").cast("float")))
            .withColumn("tags", functions.map(functions.lit("k"), functions.col("id")));
    df.write().format("riffle").save(location);
    df.write().format("riffle").mode("append").save(location);
    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(location);
    List<Row> sums = back.agg(functions.count("*"), functions.sum("id")).collectAsList();
    System.out.println(
        location
            + ": rows="
            + sums.get(0).getLong(0)
            + " sum="
            + sums.get(0).getLong(1)
            + " v1="
            + spark.read().format("riffle").option("version", 1).load(location).count()
            + " class="
            + dev.riffle.dataset.RowSets.class.getProtectionDomain().getCodeSource().getLocation());
  }
}
