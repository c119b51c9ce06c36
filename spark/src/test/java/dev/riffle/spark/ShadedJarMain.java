package dev.riffle.spark;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * What {@link ShadedJarIT} runs in a JVM whose class path is Spark's plus the shaded jar only:
 * writes a dataset with format("riffle"), appends to it, reads it back, prints the checks.
 */
public final class ShadedJarMain {
  private ShadedJarMain() {}

  public static void main(String[] args) {
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    try {
      org.apache.spark.sql.Dataset<Row> df =
          spark
              .range(1000)
              .repartition(2)
              .withColumn("emb", functions.array(functions.col("id").cast("float")))
              .withColumn("tags", functions.map(functions.lit("k"), functions.col("id")));
      df.write().format("riffle").save(args[0]);
      df.write().format("riffle").mode("append").save(args[0]);
      org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(args[0]);
      List<Row> sums = back.agg(functions.count("*"), functions.sum("id")).collectAsList();
      System.out.println(
          "rows="
              + sums.get(0).getLong(0)
              + " sum="
              + sums.get(0).getLong(1)
              + " v1="
              + spark.read().format("riffle").option("version", 1).load(args[0]).count()
              + " class="
              + dev.riffle.format.dataset.RowSets.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation());
    } finally {
      spark.stop();
    }
  }
}
