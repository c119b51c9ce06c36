package dev.riffle.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * Riffle against Spark's built-in Parquet source (both written by Spark, default settings), on
 * local[2]: a full scan, a narrow aggregate, a selective filter on a column written in runs, and a
 * lookup of 3 rows with all columns. Not a test (run by hand, see
 * benchmarks/results/current/spark-2026-12-02.md); prints a Markdown table, medians and ranges of
 * the warm runs after one warm-up.
 *
 * <p>Usage: {@code SparkCompare <scratch dir> [rows] [repeats] [embedding width] [embedding kind]}
 * (the review's data: 2,000,000 rows, width 64; default 32). The embedding kind is {@code decimal}
 * (default: each float one of 1,000 values k / 1000, as written from three-decimal text) or {@code
 * noise} (the review's: a per-cell-type centroid plus noise, full-precision float32 that no
 * compressor shrinks). The data is written once per scratch dir.
 */
public final class SparkCompare {
  private SparkCompare() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long rows = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int width = args.length > 3 ? Integer.parseInt(args[3]) : 32;
    boolean noise = args.length > 4 && args[4].equals("noise");
    if (args.length > 4 && !noise && !args[4].equals("decimal")) {
      throw new IllegalArgumentException("embedding kind must be decimal or noise: " + args[4]);
    }
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("riffle-spark-compare")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    String riffle = dir.resolve("cells.riffle").toString();
    String parquet = dir.resolve("cells.parquet").toString();
    if (!Files.exists(dir.resolve("cells.riffle"))) {
      org.apache.spark.sql.Dataset<Row> df = cells(spark, rows, width, noise);
      long t0 = System.nanoTime();
      df.write().format("riffle").save(riffle);
      long t1 = System.nanoTime();
      df.write().parquet(parquet);
      long t2 = System.nanoTime();
      System.out.printf("write: riffle %.2f s, parquet %.2f s%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9);
    }
    long last = rows - 1;
    long mid = rows / 2 + 1;
    List<String[]> table = new ArrayList<>();
    table.add(
        row(
            "full scan: sum(xxhash64(all 6 columns) % 1000)",
            repeats,
            () ->
                spark
                    .read()
                    .format("riffle")
                    .load(riffle)
                    .selectExpr("xxhash64(*) % 1000 as h")
                    .agg(functions.sum("h"))
                    .first()
                    .toString(),
            () ->
                spark
                    .read()
                    .parquet(parquet)
                    .selectExpr("xxhash64(*) % 1000 as h")
                    .agg(functions.sum("h"))
                    .first()
                    .toString()));
    table.add(
        row(
            "narrow aggregate: agg(sum(score), count(*))",
            repeats,
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
                    .toString()));
    table.add(
        row(
            "selective filter: where plate = 3 and n_genes > 500, avg(score)",
            repeats,
            () ->
                spark
                    .read()
                    .format("riffle")
                    .load(riffle)
                    .where("plate = 3 and n_genes > 500")
                    .agg(functions.avg("score"))
                    .first()
                    .toString(),
            () ->
                spark
                    .read()
                    .parquet(parquet)
                    .where("plate = 3 and n_genes > 500")
                    .agg(functions.avg("score"))
                    .first()
                    .toString()));
    // The "filter that selects 1% of pages": ids are written in order, so a range of 1% of
    // them lies in about 1% of every column's pages; compare it with the full scan above.
    String onePercent = "id between " + (rows / 2) + " and " + (rows / 2 + rows / 100 - 1);
    table.add(
        row(
            "1% filter: where " + onePercent + ", sum(xxhash64(all 6 columns) % 1000)",
            repeats,
            () ->
                spark
                    .read()
                    .format("riffle")
                    .load(riffle)
                    .where(onePercent)
                    .selectExpr("xxhash64(*) % 1000 as h")
                    .agg(functions.sum("h"))
                    .first()
                    .toString(),
            () ->
                spark
                    .read()
                    .parquet(parquet)
                    .where(onePercent)
                    .selectExpr("xxhash64(*) % 1000 as h")
                    .agg(functions.sum("h"))
                    .first()
                    .toString()));
    String ids = "(5, " + mid + ", " + last + ")";
    table.add(
        row(
            "3-row lookup, all columns: riffle _row_id in " + ids + ", parquet id in " + ids,
            repeats,
            () ->
                sorted(
                    spark
                        .read()
                        .format("riffle")
                        .load(riffle)
                        .where("_row_id in " + ids)
                        .collectAsList()),
            () -> sorted(spark.read().parquet(parquet).where("id in " + ids).collectAsList())));
    table.add(
        row(
            "3-row lookup as a Spark job (driverRows 0): riffle _row_id in " + ids,
            repeats,
            () ->
                sorted(
                    spark
                        .read()
                        .format("riffle")
                        .option("driverRows", 0)
                        .load(riffle)
                        .where("_row_id in " + ids)
                        .collectAsList()),
            () -> sorted(spark.read().parquet(parquet).where("id in " + ids).collectAsList())));
    table.add(
        row(
            "3-row lookup by a data column: riffle id in " + ids,
            repeats,
            () ->
                sorted(
                    spark
                        .read()
                        .format("riffle")
                        .load(riffle)
                        .where("id in " + ids)
                        .collectAsList()),
            () -> sorted(spark.read().parquet(parquet).where("id in " + ids).collectAsList())));
    System.out.println(
        "| query | riffle median (min–max) | parquet median (min–max) | riffle/parquet |");
    System.out.println("|---|---|---|---|");
    for (String[] r : table) {
      System.out.println("| " + String.join(" | ", r) + " |");
    }
    spark.stop();
  }

  /**
   * The compared data, as the review's: plate in contiguous runs of ids, an embedding of 32 floats.
   */
  static org.apache.spark.sql.Dataset<Row> cells(SparkSession spark, long rows) {
    return cells(spark, rows, 32);
  }

  /** The compared data with an embedding of {@code width} floats, values k / 1000. */
  static org.apache.spark.sql.Dataset<Row> cells(SparkSession spark, long rows, int width) {
    return cells(spark, rows, width, false);
  }

  /**
   * The compared data with an embedding of {@code width} floats: with {@code noise} a centroid per
   * cell type (20 types) plus uniform noise, else values k / 1000.
   */
  static org.apache.spark.sql.Dataset<Row> cells(
      SparkSession spark, long rows, int width, boolean noise) {
    String item =
        noise
            ? "cast(sin(pmod(hash(id, 3), 20) * 7 + k) + (pmod(hash(id, k), 16777213) / 16777213.0"
                + " - 0.5) * 0.4 as float)"
            : "cast(pmod(hash(id, k), 1000) / 1000.0 as float)";
    return spark
        .range(0, rows, 1, 2)
        .selectExpr(
            "id",
            "concat('type', cast(pmod(hash(id, 3), 20) as string)) as cell_type",
            "cast(id * 14 / " + rows + " as int) as plate",
            "cast(pmod(hash(id), 4800) + 200 as int) as n_genes",
            "pmod(hash(id, 2), 1000000) / 1000000.0d as score",
            "transform(sequence(1, " + width + "), k -> " + item + ")" + " as emb");
  }

  static String sorted(List<Row> rows) {
    List<String> s = new ArrayList<>();
    rows.forEach(r -> s.add(r.toString()));
    s.sort(null);
    return s.toString();
  }

  /** Whether every timed run starts with an empty page cache (system property {@code cold}). */
  static final boolean COLD = Boolean.getBoolean("cold");

  /**
   * With {@link #COLD}: writes back dirty pages and drops the page cache (needs root), so that the
   * next run reads its files from the disk.
   */
  static void dropCaches() {
    if (!COLD) {
      return;
    }
    try {
      Process sync = new ProcessBuilder("sync").inheritIO().start();
      sync.waitFor();
      java.nio.file.Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3\n");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("-Dcold=true needs root to drop the page cache", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * One warm-up each, then {@code repeats} runs interleaved (each from an empty page cache with
   * {@code -Dcold=true}); the answers must agree.
   */
  static String[] row(String name, int repeats, Supplier<String> a, Supplier<String> b) {
    String ra = a.get();
    String rb = b.get();
    if (!ra.equals(rb)) {
      System.out.println("note: answers differ for " + name + ": " + ra + " vs " + rb);
    }
    double[] ta = new double[repeats];
    double[] tb = new double[repeats];
    for (int i = 0; i < repeats; i++) {
      dropCaches();
      long t0 = System.nanoTime();
      a.get();
      long t1 = System.nanoTime();
      dropCaches();
      long t1b = System.nanoTime();
      b.get();
      long t2 = System.nanoTime();
      ta[i] = (t1 - t0) / 1e9;
      tb[i] = (t2 - t1b) / 1e9;
    }
    Arrays.sort(ta);
    Arrays.sort(tb);
    double ma = ta[repeats / 2];
    double mb = tb[repeats / 2];
    return new String[] {
      name,
      String.format("%.3f s (%.3f–%.3f)", ma, ta[0], ta[repeats - 1]),
      String.format("%.3f s (%.3f–%.3f)", mb, tb[0], tb[repeats - 1]),
      String.format("%.2f", ma / mb)
    };
  }
}
