// Why this file stays whole (over 500 lines): it is one benchmark run, the grid of samplers, the
// Parquet shuffle-buffer baseline, the rotated rounds and the report sharing their options and
// results; the baseline itself lives in ParquetShuffleBuffer.
package dev.riffle.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.riffle.bench.harness.PageCache;
import dev.riffle.bench.harness.ProcIo;
import dev.riffle.bench.harness.Reports;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.io.RecyclingAllocator;
import dev.riffle.loader.diversity.BatchDiversity;
import dev.riffle.loader.diversity.DiversityModel;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderMetrics;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.pipeline.ProcessCpu;
import dev.riffle.loader.pipeline.SamplerColumns;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Sequential;
import dev.riffle.loader.plan.Tail;
import dev.riffle.loader.plan.TrueRandom;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The loader benchmark (issue 5): one epoch of minibatches over a sparse dataset for sequential,
 * true random and block shuffle over a grid of (b, f), and the Parquet-MR shuffle-buffer baseline
 * ({@link ParquetShuffleBuffer}), each with samples/s and its diversity figures (π̂₂ against the
 * model, m_eff/m, distinct blocks per batch, label entropy, TV distance to the global label
 * distribution) and exactly-once coverage. Blocks for the diversity of sequential, true random and
 * the baseline are aligned runs of {@code --block} rows; block shuffle uses its own (jittered)
 * blocks. With {@code --cold} the page cache is dropped before every run (root only); with {@code
 * --direct} Riffle files are read with O_DIRECT (the Parquet baseline always reads through the page
 * cache, as parquet-mr does). Runs are repeated {@code --rounds} times, each round in a rotated
 * order, so that ratios come from runs close in time; the slow Parquet baseline runs only in the
 * first {@code --baseline-rounds} (default: all).
 *
 * <pre>
 * java -Xmx6g --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *   dev.riffle.bench.LoadCompare --data DIR --parquet FILE --out DIR [--name loader-compare-DATE]
 *   [--batch 64] [--block 16] [--grid 16:64,16:256,16:512,64:512] [--buffer 16384] [--label plate]
 *   [--rounds 2] [--baseline-rounds R] [--cold] [--direct] [--threads 2] [--memory-mb 1024]
 *   [--jitter 0.25] [--seed 1] [--sequential 256]
 * </pre>
 *
 * Writes NAME.md, NAME.json and NAME.png (samples/s against m_eff/m) under --out. The Parquet copy
 * is written from the dataset first if FILE does not exist and the baseline runs ({@code
 * --baseline-rounds 0} skips both).
 *
 * <p>Why this file is long: it is one benchmark run end to end (its options, the grid of Riffle
 * settings, the Parquet shuffle-buffer baseline, the sequential reference and the report), and each
 * part is only meaningful beside the others; the measuring itself is in the loader and in {@link
 * ParquetShuffleBuffer}.
 */
public final class LoadCompare {
  private LoadCompare() {}

  /** The runner's settings. */
  public record Options(
      Path data,
      Path parquet,
      Path out,
      String name,
      int batch,
      int block,
      List<int[]> grid,
      int buffer,
      String label,
      int rounds,
      int baselineRounds,
      boolean cold,
      boolean direct,
      int threads,
      long memoryBytes,
      double jitter,
      long seed,
      List<Integer> sequentialFetch,
      String command) {}

  /** One run: one epoch of one configuration. */
  public record Result(
      String sampler,
      String kind,
      int round,
      long rows,
      double seconds,
      double samplesPerSecond,
      double stallSeconds,
      long diskReadBytes,
      double pi2,
      double pi2Model,
      double meffOverM,
      double distinctBlocksMean,
      double labelEntropyMean,
      double tvMean,
      boolean coverageExact,
      String loadAverage,
      double cpuSeconds) {

    /**
     * CPU time (user + system, all threads of this JVM) per sample, in µs: unlike samples/s, it
     * barely moves when other processes share the cores.
     */
    public double cpuMicrosPerSample() {
      return rows == 0 ? 0 : cpuSeconds * 1e6 / rows;
    }
  }

  /** The command line: every option of {@link Options}, as the documented commands give them. */
  @Command(
      name = "LoadCompare",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = {
        "One epoch of minibatches over a sparse dataset per sampler (sequential, true random,"
            + " block shuffle over a grid of b:f) and the Parquet-MR shuffle-buffer baseline,"
            + " each with samples/s and its diversity; writes NAME.md, NAME.json and NAME.png to"
            + " --out and prints the Markdown.",
        "--cold drops the page cache before every run (root only)."
      })
  static final class Args implements Callable<Integer> {
    @Option(names = "--data", required = true, paramLabel = "DIR", description = "The dataset.")
    Path data;

    @Option(
        names = "--parquet",
        required = true,
        paramLabel = "FILE",
        description =
            "Its Parquet copy, written from the dataset first if missing and a baseline round"
                + " runs.")
    Path parquet;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Report folder.")
    Path out;

    @Option(
        names = "--name",
        paramLabel = "NAME",
        description = "Report file name (default: loader-compare-DATE).")
    String name;

    @Option(
        names = "--batch",
        paramLabel = "G",
        description = "Batch rows (default: ${DEFAULT-VALUE}).")
    int batch = 64;

    @Option(
        names = "--block",
        paramLabel = "ROWS",
        description =
            "Rows per diversity block of sequential, true random and the baseline"
                + " (default: ${DEFAULT-VALUE}).")
    int block = 16;

    @Option(
        names = "--grid",
        paramLabel = "b:f,...",
        description =
            "Block shuffle settings, block rows : batches per fetch (default: ${DEFAULT-VALUE}).")
    String grid = "16:64,16:256,16:512,64:512";

    @Option(
        names = "--buffer",
        paramLabel = "ROWS",
        description = "Rows of the Parquet shuffle buffer (default: ${DEFAULT-VALUE}).")
    int buffer = 16384;

    @Option(
        names = "--label",
        paramLabel = "COLUMN",
        description = "Label column (default: ${DEFAULT-VALUE}).")
    String label = "plate";

    @Option(
        names = "--rounds",
        paramLabel = "N",
        description = "Rounds of every run (default: ${DEFAULT-VALUE}).")
    int rounds = 2;

    @Option(
        names = "--baseline-rounds",
        paramLabel = "N",
        description = "Rounds with the slow Parquet baseline (default: --rounds).")
    Integer baselineRounds;

    @Option(names = "--cold", description = "Drop the page cache before every run (root).")
    boolean cold;

    @Option(names = "--direct", description = "Read Riffle files with O_DIRECT.")
    boolean direct;

    @Option(
        names = "--threads",
        paramLabel = "N",
        description = "Loader I/O threads (default: ${DEFAULT-VALUE}).")
    int threads = 2;

    @Option(
        names = "--memory-mb",
        paramLabel = "MIB",
        description = "Prefetch budget (default: ${DEFAULT-VALUE}).")
    long memoryMb = 1024;

    @Option(
        names = "--jitter",
        paramLabel = "J",
        description = "Block jitter (default: ${DEFAULT-VALUE}).")
    double jitter = 0.25;

    @Option(
        names = "--seed",
        paramLabel = "N",
        description = "Epoch plan seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(
        names = "--sequential",
        split = ",",
        paramLabel = "F",
        description = "Batches per fetch of the sequential runs (default: 256).")
    List<Integer> sequential = List.of(256);

    String command = "LoadCompare";

    Options options(String command) {
      List<int[]> g = new ArrayList<>();
      for (String bf : grid.split(",")) {
        String[] p = bf.split(":");
        g.add(new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])});
      }
      return new Options(
          data,
          parquet,
          out,
          name != null ? name : "loader-compare-" + LocalDate.now(ZoneOffset.UTC),
          batch,
          block,
          g,
          buffer,
          label,
          rounds,
          baselineRounds != null ? baselineRounds : rounds,
          cold,
          direct,
          threads,
          memoryMb << 20,
          jitter,
          seed,
          List.copyOf(sequential),
          command);
    }

    @Override
    public Integer call() throws IOException {
      Options o = options(command);
      List<Result> results = run(o);
      System.out.println(Files.readString(o.out().resolve(o.name() + ".md")));
      return results.isEmpty() ? 1 : 0;
    }
  }

  public static void main(String[] args) {
    Args a = new Args();
    a.command = "LoadCompare " + String.join(" ", args);
    System.exit(new CommandLine(a).execute(args));
  }

  /** The samplers measured, in order: sequential, true random, then the block grid. */
  static List<Sampler> samplers(Options o) {
    List<Sampler> s = new ArrayList<>();
    for (int f : o.sequentialFetch()) {
      s.add(new Sequential(f, o.block()));
    }
    s.add(new TrueRandom(64, o.block()));
    for (int[] bf : o.grid()) {
      s.add(new BlockShuffle(bf[0], bf[1], o.jitter(), false));
    }
    return s;
  }

  /** Runs every configuration {@code rounds} times and writes the report. */
  public static List<Result> run(Options o) throws IOException {
    Files.createDirectories(o.out());
    List<Sampler> samplers = samplers(o);
    int configs = samplers.size() + 1;
    List<Result> results = new ArrayList<>();
    double[] global;
    try (BufferAllocator allocator = new RootAllocator();
        Dataset d = Dataset.open(new LocalStorage(o.data()), allocator)) {
      global = distribution(SamplerColumns.labels(d.all(), o.label()));
      // With no baseline rounds the Parquet copy is never read: don't spend minutes writing it.
      if (o.baselineRounds() > 0 && !Files.exists(o.parquet())) {
        long t0 = System.nanoTime();
        ParquetShuffleBuffer.write(d.all(), o.parquet(), o.label());
        System.err.printf(
            Locale.ROOT,
            "wrote %s (%,d bytes) in %.1f s%n",
            o.parquet(),
            Files.size(o.parquet()),
            (System.nanoTime() - t0) / 1e9);
      }
    }
    for (int round = 0; round < o.rounds(); round++) {
      for (int i = 0; i < configs; i++) {
        int c = (i + round) % configs;
        if (c == samplers.size() && round >= o.baselineRounds()) {
          continue;
        }
        Result r =
            c < samplers.size() ? loader(o, samplers.get(c), round) : parquet(o, global, round);
        System.err.printf(
            Locale.ROOT,
            "round %d %-40s %,10.0f samples/s  m_eff/m %.3f  TV %.3f  exact %s  load %s%n",
            round,
            r.sampler(),
            r.samplesPerSecond(),
            r.meffOverM(),
            r.tvMean(),
            r.coverageExact(),
            r.loadAverage());
        results.add(r);
      }
    }
    write(o, results);
    return results;
  }

  private static double[] distribution(int[] labels) {
    int max = 0;
    for (int l : labels) {
      max = Math.max(max, l);
    }
    double[] p = new double[max + 1];
    for (int l : labels) {
      if (l >= 0) {
        p[l] += 1.0 / labels.length;
      }
    }
    return p;
  }

  private static boolean prepare(Options o) {
    return o.cold() && PageCache.SYSTEM.drop();
  }

  private static Result loader(Options o, Sampler s, int round) throws IOException {
    boolean cold = prepare(o);
    String load = loadAverage();
    ProcIo before = ProcIo.now();
    long cpu0 = ProcessCpu.processNanos();
    try (BufferAllocator allocator = RecyclingAllocator.create(o.memoryBytes());
        Dataset d = Dataset.open(new LocalStorage(o.data(), o.direct()), allocator)) {
      DatasetView view = d.all();
      LoaderOptions lo =
          new LoaderOptions(
              s,
              o.batch(),
              o.seed(),
              1,
              0,
              1,
              Tail.PAD,
              List.of("indices", "values", o.label()),
              o.label(),
              o.threads(),
              2,
              o.memoryBytes());
      LoaderMetrics m;
      try (Loader loader = Loader.open(view, lo, allocator)) {
        for (VectorSchemaRoot b = loader.next(); b != null; b = loader.next()) {
          b.close();
        }
        m = loader.epochMetrics().get(0);
      }
      ProcIo io = ProcIo.now().minus(before);
      BatchDiversity div = m.diversity();
      double model = Double.NaN;
      String kind = s.describe().substring(0, s.describe().indexOf('('));
      if (s instanceof BlockShuffle bs) {
        kind = "block";
        long n = view.rowCount();
        model =
            DiversityModel.pi2Epoch(
                bs.blockRows(),
                (int) Math.floor(bs.blockRows() * bs.jitter()),
                o.batch(),
                bs.fetchBatches(),
                n,
                (n + o.batch() - 1) / o.batch());
      }
      return new Result(
          s.describe() + (cold ? ", cold" : "") + (o.direct() ? ", O_DIRECT" : ""),
          kind,
          round,
          m.rows(),
          m.wallNanos() / 1e9,
          m.samplesPerSecond(),
          m.stallNanos() / 1e9,
          io.readBytes,
          div.pi2(),
          model,
          div.meffOverM(o.batch()),
          div.distinctBlocksMean(),
          div.labelEntropyMean(),
          div.tvMean(),
          m.coverageExact(),
          load,
          (ProcessCpu.processNanos() - cpu0) / 1e9);
    }
  }

  private static Result parquet(Options o, double[] global, int round) throws IOException {
    boolean cold = prepare(o);
    String load = loadAverage();
    ProcIo before = ProcIo.now();
    long cpu0 = ProcessCpu.processNanos();
    BatchDiversity div = new BatchDiversity(global);
    BitSet seen = new BitSet();
    long[] dupes = {0};
    long[] ids = new long[o.batch()];
    int[] labels = new int[o.batch()];
    int block = o.block();
    long t0 = System.nanoTime();
    long rows =
        ParquetShuffleBuffer.epoch(
            o.parquet(),
            o.buffer(),
            o.batch(),
            o.seed(),
            (batch, size) -> {
              for (int i = 0; i < size; i++) {
                ids[i] = batch[i].id();
                labels[i] = batch[i].plate();
                if (seen.get((int) ids[i])) {
                  dupes[0]++;
                }
                seen.set((int) ids[i]);
              }
              if (size == o.batch()) {
                div.add(ids, size, p -> p / block, labels);
              }
            });
    double seconds = (System.nanoTime() - t0) / 1e9;
    ProcIo io = ProcIo.now().minus(before);
    boolean exact = dupes[0] == 0 && seen.cardinality() == rows && seen.length() == rows;
    return new Result(
        "parquet-mr shuffle buffer(S=" + o.buffer() + ")" + (cold ? ", cold" : ""),
        "parquet",
        round,
        rows,
        seconds,
        rows / seconds,
        0,
        io.readBytes,
        div.pi2(),
        Double.NaN,
        div.meffOverM(o.batch()),
        div.distinctBlocksMean(),
        div.labelEntropyMean(),
        div.tvMean(),
        exact,
        load,
        (ProcessCpu.processNanos() - cpu0) / 1e9);
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static void write(Options o, List<Result> results) throws IOException {
    String date = ZonedDateTime.now(ZoneOffset.UTC).toString();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("date", date);
    json.put("machine", Reports.machine());
    json.put("command", o.command());
    json.put("data", o.data().toString());
    json.put("batch", o.batch());
    json.put("cold", o.cold());
    json.put("direct", o.direct());
    json.put("threads", o.threads());
    json.put("memoryBytes", o.memoryBytes());
    json.put("results", results);
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(o.out().resolve(o.name() + ".json").toFile(), json);

    StringBuilder md = new StringBuilder();
    md.append("# Loader comparison: ").append(o.name()).append("\n\n");
    md.append("* Date: ").append(date).append("\n");
    md.append("* Machine: ").append(Reports.machine()).append("\n");
    md.append("* Command: `").append(o.command()).append("`\n");
    md.append("* Data: `").append(o.data()).append("`, Parquet copy `").append(o.parquet());
    md.append("`\n* Batch ")
        .append(o.batch())
        .append(", ")
        .append(o.threads())
        .append(" I/O threads, ")
        .append(o.memoryBytes() >> 20)
        .append(" MiB prefetch budget, jitter ")
        .append(o.jitter())
        .append(", page cache ")
        .append(o.cold() ? "dropped before every run" : "warm")
        .append(o.direct() ? ", Riffle read with O_DIRECT" : "")
        .append(", columns indices, values, ")
        .append(o.label())
        .append("\n* Diversity blocks for sequential, random and Parquet: aligned runs of ")
        .append(o.block())
        .append(
            " rows; block shuffle: its own jittered blocks. × seq: against the fastest sequential")
        .append(" run of the same round. CPU µs/sample: user + system time of the whole run")
        .append(" (set-up included) per sample.\n\n");
    md.append(
        "| round | sampler | samples/s | × seq | CPU µs/sample | stall s | disk read GB | π̂₂ |"
            + " π₂ model | m_eff/m | distinct blocks | label entropy (bits) | TV | exactly once |"
            + " load |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      double seq =
          results.stream()
              .filter(x -> x.round() == r.round() && x.kind().equals("sequential"))
              .mapToDouble(Result::samplesPerSecond)
              .max()
              .orElse(Double.NaN);
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %,.0f | %.2f | %.1f | %.2f | %.2f | %.5f | %s | %.3f | %.1f | %.3f |"
                  + " %.3f | %s | %s |%n",
              r.round(),
              r.sampler(),
              r.samplesPerSecond(),
              r.samplesPerSecond() / seq,
              r.cpuMicrosPerSample(),
              r.stallSeconds(),
              r.diskReadBytes() / 1e9,
              r.pi2(),
              Double.isNaN(r.pi2Model()) ? "–" : String.format(Locale.ROOT, "%.5f", r.pi2Model()),
              r.meffOverM(),
              r.distinctBlocksMean(),
              r.labelEntropyMean(),
              r.tvMean(),
              r.coverageExact() ? "yes" : "NO",
              r.loadAverage()));
    }
    Files.writeString(o.out().resolve(o.name() + ".md"), md.toString());

    List<ScatterChart.Point> points = new ArrayList<>();
    for (Result r : results) {
      Color c =
          switch (r.kind()) {
            case "sequential" -> new Color(0x1f77b4);
            case "random" -> new Color(0xd62728);
            case "parquet" -> new Color(0x7f7f7f);
            default -> new Color(0x2ca02c);
          };
      String label =
          r.sampler()
              .replace(", cold", "")
              .replace(", O_DIRECT", "")
              .replace(",jitter=" + o.jitter(), "");
      label = label.replace(",deal=false", "");
      points.add(new ScatterChart.Point(label, r.meffOverM(), r.samplesPerSecond(), c));
    }
    try {
      ScatterChart.write(
          points,
          "Loader: samples/s against diversity ("
              + o.name()
              + (o.cold() ? ", cold cache" : "")
              + ")",
          o.out().resolve(o.name() + ".png"));
    } catch (LinkageError | java.awt.AWTError e) {
      // A server without font libraries cannot draw text; the Markdown and JSON are the results.
      System.err.println("chart not written: " + e);
    }
  }
}
