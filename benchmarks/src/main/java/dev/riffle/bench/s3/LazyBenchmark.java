package dev.riffle.bench.s3;

import dev.riffle.datagen.PayloadDataset;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.lazy.LazyStats;
import dev.riffle.hadoop.lazy.LazyStorage;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.stage.SnapshotStager;
import dev.riffle.stage.StageOptions;
import dev.riffle.stage.StageReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Lazy take rows/s (cold and warm chunk cache) against staged take rows/s on the same dataset and
 * the same random rows, and the time to the first batch of 64 rows (lazy: open + take; staged:
 * stage + open + take); then the same for the loader's first batch and its rate after it. Needs the
 * local S3 server ({@link LocalRgw}); prints a Markdown table for {@code
 * benchmarks/results/current/staging.md} and writes it to {@code --out}. Every option defaults to
 * its {@code RIFFLE_BENCH_*} environment variable, as the commands in staging.md set them.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.riffle.bench.s3.LazyBenchmark [--mib 64] [--batches 50] [--out target/lazy-bench.md]
 * </pre>
 */
@Command(
    name = "LazyBenchmark",
    mixinStandardHelpOptions = true,
    description = {
      "Lazy takes and loader batches on s3a: (cold and warm chunk cache) against staged ones, on"
          + " the local S3 server: time to the first batch and rows/s."
    })
public final class LazyBenchmark implements Callable<Integer> {
  static final int BATCH = 64;

  @Option(
      names = "--mib",
      defaultValue = "${env:RIFFLE_BENCH_MIB:-64}",
      description = "MiB of data (RIFFLE_BENCH_MIB; default: ${DEFAULT-VALUE}).")
  int mib;

  @Option(
      names = "--batches",
      defaultValue = "${env:RIFFLE_BENCH_BATCHES:-50}",
      description = "Batches of 64 rows (RIFFLE_BENCH_BATCHES; default: ${DEFAULT-VALUE}).")
  int batches;

  @Option(
      names = "--out",
      defaultValue = "${env:RIFFLE_BENCH_OUT:-target/lazy-bench.md}",
      description = "The Markdown table (RIFFLE_BENCH_OUT; default: ${DEFAULT-VALUE}).")
  Path out;

  public static void main(String[] args) {
    System.exit(new CommandLine(new LazyBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    LocalRgw rgw = LocalRgw.find();
    Configuration conf = rgw.conf(64);
    String uri = "s3a://" + rgw.bucket + "/lazy-bench/" + UUID.randomUUID();
    Path dir = Files.createTempDirectory("riffle-lazy-bench");
    StringBuilder md = new StringBuilder();
    try {
      Manifest m;
      try (HadoopStorage s3 = new HadoopStorage(uri, conf)) {
        m = PayloadDataset.write(s3, (long) mib << 20, 16L << 20, 1);
      }
      long[][] rows = new long[batches][];
      for (int b = 0; b < batches; b++) {
        rows[b] = randomRows(m.totalRows(), BATCH, 100 + b);
      }
      md.append(
          String.format(
              Locale.ROOT,
              "%d MiB, %d files, %d rows of %d B; %d batches of %d random rows (same rows for"
                  + " all)%n%n",
              mib,
              m.files().size(),
              m.totalRows(),
              PayloadDataset.ROW_BYTES,
              batches,
              BATCH));
      md.append("| mode | first batch ms | take rows/s | remote GETs | remote MB |\n");
      md.append("|---|---|---|---|---|\n");

      // Staged: the first batch waits for the whole snapshot.
      long t0 = System.nanoTime();
      StageReport staged;
      try (HadoopStorage s3 = new HadoopStorage(uri, conf)) {
        staged = new SnapshotStager(dir.resolve("stage"), StageOptions.defaults()).stage(s3, 1);
      }
      // Staging writes with O_DIRECT: the first pass reads the disk, the second the page cache.
      row(md, "staged, first pass", new LocalStorage(staged.view()), rows, t0, null);
      row(
          md,
          "staged, second pass",
          new LocalStorage(staged.view()),
          rows,
          System.nanoTime(),
          null);

      for (String mode : new String[] {"lazy, cold cache", "lazy, warm cache"}) {
        try (LazyStorage lazy =
            new LazyStorage(new HadoopStorage(uri, conf), dir.resolve("chunks"))) {
          row(md, mode, lazy, rows, System.nanoTime(), lazy.stats());
        }
      }

      // The loader (block shuffle, b = 16, f = 16, G = 64): time to its first batch and its rate.
      md.append(
          String.format(
              Locale.ROOT,
              "%nLoader: block shuffle (b = 16, f = 16), batches of %d, %d batches, 2 I/O"
                  + " threads%n%n"
                  + "| mode | first batch ms | rows/s after it | remote GETs | remote MB |%n"
                  + "|---|---|---|---|---|%n",
              BATCH,
              batches));
      long t2 = System.nanoTime();
      try (HadoopStorage s3 = new HadoopStorage(uri, conf)) {
        staged = new SnapshotStager(dir.resolve("stage2"), StageOptions.defaults()).stage(s3, 1);
      }
      loaderRow(
          md,
          "staged (stage + open + first batch)",
          new LocalStorage(staged.view()),
          batches,
          t2,
          null);
      loaderRow(
          md,
          "staged, already in the cache",
          new LocalStorage(staged.view()),
          batches,
          System.nanoTime(),
          null);
      for (String mode : new String[] {"lazy, cold cache", "lazy, warm cache"}) {
        try (LazyStorage lazy =
            new LazyStorage(new HadoopStorage(uri, conf), dir.resolve("loader-chunks"))) {
          loaderRow(md, mode, lazy, batches, System.nanoTime(), lazy.stats());
        }
      }
    } finally {
      StagingBenchmark.deleteTree(dir);
    }
    System.out.println(md);
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(out, md.toString());
    return 0;
  }

  /** {@code n} rows of {@code [0, total)}, uniform with replacement, the same for a seed. */
  static long[] randomRows(long total, int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] rows = new long[n];
    for (int i = 0; i < n; i++) {
      rows[i] = r.nextLong(total);
    }
    return rows;
  }

  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  private static void loaderRow(
      StringBuilder md, String mode, Storage s, int batches, long t0, LazyStats stats)
      throws IOException {
    LoaderOptions o = LoaderOptions.of(new BlockShuffle(16, 16, 0.25, false), BATCH, 7);
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(s, a);
        Loader loader = Loader.open(d.all(), o, a)) {
      double firstMs;
      try (VectorSchemaRoot r = loader.next()) {
        firstMs = (System.nanoTime() - t0) / 1e6;
      }
      long t1 = System.nanoTime();
      long rows = 0;
      for (int b = 1; b < batches; b++) {
        try (VectorSchemaRoot r = loader.next()) {
          if (r == null) {
            break;
          }
          rows += r.getRowCount();
        }
      }
      double seconds = (System.nanoTime() - t1) / 1e9;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f | %s | %s |%n",
              mode,
              firstMs,
              rows / seconds,
              stats == null ? "-" : Long.toString(stats.remoteRequests()),
              stats == null ? "-" : String.format(Locale.ROOT, "%.1f", stats.remoteBytes() / 1e6)));
    }
  }

  @SuppressWarnings({"try"})
  private static void row(
      StringBuilder md, String mode, Storage s, long[][] rows, long t0, LazyStats stats)
      throws IOException {
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(s, a)) {
      double firstMs;
      try (VectorSchemaRoot r = d.take(rows[0], null)) {
        firstMs = (System.nanoTime() - t0) / 1e6;
      }
      long t1 = System.nanoTime();
      for (int b = 1; b < rows.length; b++) {
        try (VectorSchemaRoot r = d.take(rows[b], null)) {
          // Only the time counts.
        }
      }
      double seconds = (System.nanoTime() - t1) / 1e9;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f | %s | %s |%n",
              mode,
              firstMs,
              (rows.length - 1) * (double) BATCH / seconds,
              stats == null ? "-" : Long.toString(stats.remoteRequests()),
              stats == null ? "-" : String.format(Locale.ROOT, "%.1f", stats.remoteBytes() / 1e6)));
    }
  }
}
