package dev.riffle.spark;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The CPU time (the whole JVM's, so the executor threads' too) of SparkCompare's two scans over the
 * same data, Riffle and Parquet alternating: on a shared machine wall-clock ratios are noise, CPU
 * seconds much less so. Not a test (run by hand, see
 * benchmarks/results/current/spark-2026-12-02.md).
 *
 * <p>Usage: {@code SparkScanCpu <scratch dir> [rows] [repeats] [both|riffle|parquet]}; a single
 * source is for profiling one reader alone.
 */
public final class SparkScanCpu {
  private SparkScanCpu() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long rows = args.length > 1 ? Long.parseLong(args[1]) : 300_000;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    String only = args.length > 3 ? args[3] : "both";
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("riffle-spark-scan-cpu")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    String riffle = dir.resolve("cells.riffle").toString();
    String parquet = dir.resolve("cells.parquet").toString();
    if (!Files.exists(dir.resolve("cells.riffle"))) {
      org.apache.spark.sql.Dataset<Row> df = SparkCompare.cells(spark, rows);
      df.write().format("riffle").save(riffle);
      df.write().parquet(parquet);
    }
    String full = "xxhash64(*) % 1000 as h";
    compare(
        "full scan: sum(xxhash64(all 6 columns) % 1000)",
        repeats,
        only,
        () ->
            spark
                .read()
                .format("riffle")
                .load(riffle)
                .selectExpr(full)
                .agg(functions.sum("h"))
                .first()
                .toString(),
        () ->
            spark
                .read()
                .parquet(parquet)
                .selectExpr(full)
                .agg(functions.sum("h"))
                .first()
                .toString());
    compare(
        "narrow aggregate: agg(sum(score), count(*))",
        repeats,
        only,
        () ->
            spark
                .read()
                .format("riffle")
                .load(riffle)
                .agg(functions.sum("score"), functions.count("*"))
                .first()
                .toString(),
        () ->
            spark
                .read()
                .parquet(parquet)
                .agg(functions.sum("score"), functions.count("*"))
                .first()
                .toString());
    spark.stop();
  }

  private static double cpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }

  /** One warm-up each, then {@code repeats} runs alternating; the answers must agree. */
  private static void compare(
      String name, int repeats, String only, Supplier<String> riffle, Supplier<String> parquet) {
    boolean r = !only.equals("parquet");
    boolean p = !only.equals("riffle");
    String ra = r ? riffle.get() : null;
    String pa = p ? parquet.get() : null;
    if (r && p && !ra.equals(pa)) {
      throw new AssertionError("answers differ for " + name + ": " + ra + " vs " + pa);
    }
    double[] tr = new double[repeats];
    double[] tp = new double[repeats];
    for (int i = 0; i < repeats; i++) {
      double c0 = cpuSeconds();
      if (r) {
        riffle.get();
      }
      double c1 = cpuSeconds();
      if (p) {
        parquet.get();
      }
      double c2 = cpuSeconds();
      tr[i] = c1 - c0;
      tp[i] = c2 - c1;
    }
    System.out.printf(
        "%s: CPU s riffle %s, parquet %s, ratio of medians %.2f (answer %s)%n",
        name, summary(tr), summary(tp), median(tr) / median(tp), ra != null ? ra : pa);
  }

  private static double median(double[] t) {
    double[] s = t.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static String summary(double[] t) {
    double[] s = t.clone();
    Arrays.sort(s);
    return String.format("%.3f (%.3f–%.3f)", median(t), s[0], s[s.length - 1]);
  }
}
