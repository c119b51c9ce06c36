package dev.riffle.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.io.RecyclingAllocator;
import dev.riffle.loader.pipeline.BatchRows;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.pipeline.ProcessCpu;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Sequential;
import dev.riffle.loader.plan.Tail;
import dev.riffle.loader.plan.TrueRandom;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cost of the adapter: samples per second of the bare {@link Loader} (every batch handed out
 * and closed, as {@code riffle load} does) against {@link RiffleDataset} (every batch also copied
 * into NDArrays, then closed), on the same data, sampler and options, in alternating repeats in one
 * JVM so that both see the same machine; optionally the {@link RiffleRandomAccessDataset} path on a
 * few batches. Prints one line per run and the medians; CPU time per sample is printed too, as it
 * is less disturbed than wall time by other work on a shared machine.
 */
@Command(
    name = "adapter-benchmark",
    mixinStandardHelpOptions = true,
    description = "Samples/s of the bare loader vs the DJL adapter on the same data and sampler.")
public final class AdapterBenchmark implements Callable<Integer> {
  @Option(names = "--data", required = true, description = "The dataset directory.")
  Path data;

  @Option(names = "--sampler", defaultValue = "block", description = "sequential, random, block.")
  String sampler;

  @Option(names = "--block", defaultValue = "16")
  int block;

  @Option(names = "--fetch", defaultValue = "256")
  int fetch;

  @Option(names = "--jitter", defaultValue = "0.25")
  double jitter;

  @Option(names = "--batch", defaultValue = "256")
  int batch;

  @Option(names = "--repeats", defaultValue = "5", description = "Runs of each mode.")
  int repeats;

  @Option(
      names = "--warmups",
      defaultValue = "1",
      description =
          "Uncounted runs of each mode first (class loading, JIT, page cache); training runs for"
              + " hours, so the steady state is what a user sees after the first minutes.")
  int warmups;

  @Option(names = "--threads", defaultValue = "8")
  int threads;

  @Option(
      names = "--epochs",
      defaultValue = "1",
      description = "Epochs a run (longer runs: less noise from the JIT and the machine).")
  long epochs;

  @Option(names = "--memory-mb", defaultValue = "1024")
  long memoryMb;

  @Option(names = "--form", defaultValue = "dense", description = "dense or csr.")
  String form;

  @Option(
      names = "--normalize",
      defaultValue = "none",
      description = "none or cp10k-log1p (what the adapter computes on the way).")
  String normalize;

  @Option(
      names = "--records-batches",
      defaultValue = "0",
      description = "Also time the RandomAccessDataset path over this many batches.")
  int recordsBatches;

  @Option(
      names = "--convert-only",
      defaultValue = "0",
      description =
          "Instead: convert the first 16 loader batches this many times over on one thread and"
              + " print that thread's CPU time per sample (conversion and freeing only).")
  int convertOnly;

  private final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);

  public static void main(String[] args) {
    System.exit(new CommandLine(new AdapterBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    OfflineEngine.start();
    try (BufferAllocator reads = RecyclingAllocator.create(memoryMb << 20);
        Dataset d = Dataset.open(new LocalStorage(data), reads);
        BufferAllocator batches = new RootAllocator();
        NDManager manager = NDManager.newBaseManager()) {
      DatasetView view = d.all();
      int genes = CellsDatasets.genes(d);
      LoaderOptions o =
          new LoaderOptions(
              sampler(),
              batch,
              1,
              epochs,
              0,
              1,
              Tail.PAD,
              List.of("indices", "values", "cell_type"),
              null,
              threads,
              2,
              memoryMb << 20);
      out.printf(
          Locale.ROOT,
          "%d rows x %d genes, %s, batch %d, form %s, normalize %s, %d epochs a run, %d warm-ups%n",
          view.rowCount(),
          genes,
          o.sampler().describe(),
          batch,
          form,
          normalize,
          epochs,
          warmups);
      if (convertOnly > 0) {
        convertOnly(view, o, batches, genes);
        return 0;
      }
      List<Double> loaderRates = new ArrayList<>();
      List<Double> adapterRates = new ArrayList<>();
      List<Double> loaderCpu = new ArrayList<>();
      List<Double> adapterCpu = new ArrayList<>();
      List<Double> loaderAppCpu = new ArrayList<>();
      List<Double> adapterAppCpu = new ArrayList<>();
      // Warm-ups of each, not counted: class loading, JIT, page cache.
      for (int w = 0; w < warmups; w++) {
        bare(view, o, batches);
        adapter(view, o, batches, manager, genes);
      }
      for (int r = 0; r < repeats; r++) {
        double[] a = bare(view, o, batches);
        double[] b = adapter(view, o, batches, manager, genes);
        loaderRates.add(a[0]);
        loaderCpu.add(a[1]);
        adapterRates.add(b[0]);
        adapterCpu.add(b[1]);
        loaderAppCpu.add(a[2]);
        adapterAppCpu.add(b[2]);
        out.printf(
            Locale.ROOT,
            "run %d: loader %.0f samples/s (%.2f cpu us/sample, %.2f without JIT, %.2f page"
                + " faults/sample), adapter %.0f samples/s (%.2f cpu us/sample, %.2f without JIT,"
                + " %.2f page faults/sample), ratio %.3f%n",
            r + 1,
            a[0],
            a[1],
            a[2],
            a[3],
            b[0],
            b[1],
            b[2],
            b[3],
            b[0] / a[0]);
      }
      out.printf(
          Locale.ROOT,
          "median: loader %.0f samples/s [%.0f..%.0f], adapter %.0f samples/s [%.0f..%.0f],"
              + " ratio of medians %.3f; cpu us/sample loader %.2f, adapter %.2f; without the JIT"
              + " compiler threads: loader %.2f, adapter %.2f, difference of medians %.2f%n",
          median(loaderRates),
          min(loaderRates),
          max(loaderRates),
          median(adapterRates),
          min(adapterRates),
          max(adapterRates),
          median(adapterRates) / median(loaderRates),
          median(loaderCpu),
          median(adapterCpu),
          median(loaderAppCpu),
          median(adapterAppCpu),
          median(adapterAppCpu) - median(loaderAppCpu));
      if (recordsBatches > 0) {
        records(view, batches, manager, genes);
      }
    }
    return 0;
  }

  /**
   * The conversion alone, on one thread, on real batches held in memory: this thread's CPU time
   * (robust to other load on the machine) per sample, for the features and labels of {@link
   * #adapter}, each batch converted into a manager of its own and freed, as {@link RiffleDataset}
   * does per batch.
   */
  private void convertOnly(DatasetView view, LoaderOptions o, BufferAllocator allocator, int genes)
      throws Exception {
    List<VectorSchemaRoot> held = new ArrayList<>();
    List<long[]> rows = new ArrayList<>();
    try (Loader loader = Loader.open(view, o, allocator)) {
      for (VectorSchemaRoot b; held.size() < 16 && (b = loader.next()) != null; ) {
        held.add(b);
        rows.add(loader.lastRows());
      }
      RiffleDataset.Builder spec =
          features(RiffleDataset.builder(view).options(o), genes)
              .label("cell_type")
              .normalization(normalization())
              .allocator(allocator);
      BatchConverter c = spec.columns().converter(view.dataset());
      try (BatchBuffers buffers = new BatchBuffers(allocator)) {
        for (int round = 0; round < convertOnly; round++) {
          long samples = 0;
          long c0 = ProcessCpu.threadNanos();
          for (int i = 0; i < held.size(); i++) {
            try (NDManager bm = NDManager.newBaseManager()) {
              c.convert(BatchRows.of(held.get(i), rows.get(i)), false, bm, buffers);
            }
            samples += held.get(i).getRowCount();
          }
          out.printf(
              Locale.ROOT,
              "round %d: conversion %.3f thread cpu us/sample%n",
              round + 1,
              (ProcessCpu.threadNanos() - c0) / 1e3 / samples);
        }
      }
    } finally {
      held.forEach(VectorSchemaRoot::close);
    }
  }

  private double[] bare(DatasetView view, LoaderOptions o, BufferAllocator allocator)
      throws Exception {
    long rows = 0;
    long t0 = System.nanoTime();
    long c0 = ProcessCpu.processNanos();
    long j0 = ProcessCpu.compilerNanos();
    long f0 = ProcessCpu.minorFaults();
    try (Loader loader = Loader.open(view, o, allocator)) {
      while (true) {
        VectorSchemaRoot b = loader.next();
        if (b == null) {
          break;
        }
        rows += b.getRowCount();
        b.close();
      }
    }
    return rates(rows, t0, c0, j0, f0);
  }

  /**
   * Samples/s, CPU µs/sample of the process, of the process without the JIT compiler, and minor
   * page faults per sample.
   */
  private static double[] rates(long rows, long t0, long c0, long j0, long f0) {
    double s = (System.nanoTime() - t0) / 1e9;
    long cpu = ProcessCpu.processNanos() - c0;
    long jit = ProcessCpu.compilerNanos() - j0;
    double faults = (double) (ProcessCpu.minorFaults() - f0) / rows;
    return new double[] {rows / s, cpu / 1e3 / rows, (cpu - jit) / 1e3 / rows, faults};
  }

  private double[] adapter(
      DatasetView view, LoaderOptions o, BufferAllocator allocator, NDManager manager, int genes)
      throws Exception {
    long rows = 0;
    long t0 = System.nanoTime();
    long c0 = ProcessCpu.processNanos();
    long j0 = ProcessCpu.compilerNanos();
    long f0 = ProcessCpu.minorFaults();
    RiffleDataset.Builder spec =
        features(RiffleDataset.builder(view).options(o), genes)
            .label("cell_type")
            .normalization(normalization())
            .allocator(allocator);
    try (RiffleDataset ds = spec.build()) {
      for (long e = 0; e < epochs; e++) {
        for (Batch b : ds.getData(manager)) {
          rows += b.getSize();
          b.close();
        }
      }
    }
    return rates(rows, t0, c0, j0, f0);
  }

  private void records(DatasetView view, BufferAllocator allocator, NDManager manager, int genes)
      throws Exception {
    long rows = 0;
    long t0 = System.nanoTime();
    try (RiffleRandomAccessDataset ds =
        RiffleRandomAccessDataset.builder(view)
            .sparse("indices", "values", genes)
            .label("cell_type")
            .normalization(normalization())
            .allocator(allocator)
            .setSampling(batch, true)
            .build()) {
      int n = 0;
      for (Batch b : ds.getData(manager)) {
        rows += b.getSize();
        b.close();
        if (++n >= recordsBatches) {
          break;
        }
      }
    }
    double s = (System.nanoTime() - t0) / 1e9;
    out.printf(
        Locale.ROOT,
        "RandomAccessDataset (DJL's random sampler, one take per row): %.0f samples/s over %d"
            + " rows%n",
        rows / s,
        rows);
  }

  private RiffleDataset.Builder features(RiffleDataset.Builder b, int genes) {
    return switch (form) {
      case "dense" -> b.sparse("indices", "values", genes);
      case "csr" -> b.csr("indices", "values", genes);
      default -> throw new IllegalArgumentException("--form must be dense or csr");
    };
  }

  private Normalization normalization() {
    return switch (normalize) {
      case "none" -> Normalization.none();
      case "cp10k-log1p" -> Normalization.librarySizeLog1p(1e4);
      default -> throw new IllegalArgumentException("--normalize must be none or cp10k-log1p");
    };
  }

  private Sampler sampler() {
    return switch (sampler) {
      case "sequential" -> new Sequential(fetch, block);
      case "random" -> new TrueRandom(fetch, block);
      case "block" -> new BlockShuffle(block, fetch, jitter, false);
      default ->
          throw new IllegalArgumentException("--sampler must be sequential, random or block");
    };
  }

  private static double median(List<Double> xs) {
    double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  private static double min(List<Double> xs) {
    return Arrays.stream(xs.stream().mapToDouble(Double::doubleValue).toArray()).min().orElse(0);
  }

  private static double max(List<Double> xs) {
    return Arrays.stream(xs.stream().mapToDouble(Double::doubleValue).toArray()).max().orElse(0);
  }
}
