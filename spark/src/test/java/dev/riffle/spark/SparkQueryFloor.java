package dev.riffle.spark;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark's own floor under any query, beside a Riffle lookup: the time of {@code select 1}, of a
 * filter over {@code range(10)}, and of a 3-row {@code _row_id} lookup of a Riffle dataset, in one
 * {@code local[2]} session (issue #20's 3-id lookup target). Not a test: run by hand, see
 * benchmarks/results/current/spark-lists-2026-12-03.md. Usage: {@code SparkQueryFloor <dataset>}.
 */
public final class SparkQueryFloor {
  private SparkQueryFloor() {}

  public static void main(String[] a) {
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    String d = a[0];
    for (int i = 0; i < 12; i++) {
      long t0 = System.nanoTime();
      spark.sql("select 1").collect();
      long t1 = System.nanoTime();
      spark.range(0, 10).where("id = 3").collect();
      long t2 = System.nanoTime();
      Row[] r =
          (Row[])
              spark
                  .read()
                  .format("riffle")
                  .load(d)
                  .where("_row_id in (5, 1000001, 1999999)")
                  .collect();
      long t3 = System.nanoTime();
      // The first four rounds warm the JIT and Spark's caches.
      if (i >= 4) {
        System.out.printf(
            java.util.Locale.ROOT,
            "select 1: %.1f ms; range filter: %.1f ms; riffle _row_id lookup: %.1f ms (%d rows)%n",
            (t1 - t0) / 1e6,
            (t2 - t1) / 1e6,
            (t3 - t2) / 1e6,
            r.length);
      }
    }
    spark.stop();
  }
}
