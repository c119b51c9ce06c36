// Why this file stays whole (over 500 lines): it is one command whose options, run loop and report
// belong together: the report (text and JSON) reads every option and every measurement of the run,
// and the diversity contract's checks and warnings must say what the options asked for.
package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.format.io.Numbers;
import dev.riffle.loader.diversity.DiversityContract;
import dev.riffle.loader.diversity.DiversityModel;
import dev.riffle.loader.pipeline.BudgetTooSmallException;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderMetrics;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.pipeline.RowBytes;
import dev.riffle.loader.pipeline.SamplerColumns;
import dev.riffle.loader.plan.BalancedBlocks;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.RollingPool;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Sequential;
import dev.riffle.loader.plan.Tail;
import dev.riffle.loader.plan.TrueRandom;
import dev.riffle.loader.plan.WeightedBlocks;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle load URI[@v] --sampler block --block 16 --fetch 256 --batch 64 ...}: runs the
 * loader over a dataset as a training loop would (every batch is read, gathered and closed) and
 * reports throughput, reads, stall time, realised diversity against the model, and coverage. A
 * staged view ({@link StagedRun}) is pinned for the run.
 *
 * <p>Why this file stays whole: its 24 options and their help text are a quarter of it, and the
 * rest is one run (resolve the diversity contract against the memory budget, open, loop, measure)
 * and the report of that run, which reads the same options and measurements; the sampler, contract
 * and loader themselves live in the loader module.
 */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    description = {
      "Run the minibatch loader over a dataset and report samples/s, bytes/s, reads, stall time,"
          + " realised pair collision π̂₂ (vs the model), m_eff/m, distinct blocks per batch,"
          + " label entropy and TV distance (with --label), and exactly-once coverage.",
      "--batch is the global batch G; rank r of W gets G/W rows of each batch.",
      "A view staged by 'riffle stage' is pinned for the run: no stage evicts its files.",
      "Lazy reads (RIFFLE_LAZY_CACHE) add what the run fetched from the store: GETs, bytes,"
          + " fetch rounds, cache hits and misses (with --json: \"lazy\": gets, bytesFetched,"
          + " fetchRounds, cacheHits, cacheMisses, as take --stats)."
    })
public final class LoadCommand implements Callable<Integer> {
  /**
   * Called after each batch with the number of batches so far, for tests: they look at the cache
   * mid-run. Does nothing in normal use.
   */
  static volatile LongConsumer afterBatch = n -> {};

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "URI[@VERSION]", description = "A dataset.")
  String location;

  @Option(
      names = "--sampler",
      defaultValue = "block",
      paramLabel = "NAME",
      description =
          "sequential, random, block, deal, pool, weighted (--weight) or balanced (--label)"
              + " (default: ${DEFAULT-VALUE}).")
  String sampler;

  @Option(
      names = "--weight",
      paramLabel = "COLUMN",
      description =
          "Numeric column of row weights (weighted sampler: blocks drawn by total weight,"
              + " rows within by weight, with replacement).")
  String weight;

  @Option(
      names = "--block",
      defaultValue = "16",
      paramLabel = "B",
      description = "Block rows b (default: ${DEFAULT-VALUE}).")
  int block;

  @Option(
      names = "--fetch",
      defaultValue = "256",
      paramLabel = "F",
      description = "Fetch factor f, batches shuffled together (default: ${DEFAULT-VALUE}).")
  int fetch;

  @Option(
      names = "--pool",
      paramLabel = "R",
      description = "Pool rows R (pool sampler; default G·f).")
  Long pool;

  @Option(
      names = "--jitter",
      defaultValue = "0.25",
      paramLabel = "J",
      description =
          "Block length jitter: each block's length is uniform over b ± ⌊b·jitter⌋ (default: ${DEFAULT-VALUE}).")
  double jitter;

  @Option(
      names = "--batch",
      defaultValue = "64",
      paramLabel = "G",
      description = "Global batch rows G (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--label",
      paramLabel = "COLUMN",
      description = "Categorical column for label diversity.")
  String label;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "NAME",
      description = "Columns to read (default: all).")
  List<String> columns;

  @Option(
      names = "--split",
      paramLabel = "NAME",
      description = "A split to load (default: all live rows).")
  String split;

  @Option(
      names = "--where",
      paramLabel = "FILTER",
      description = {
        "Load only the rows that match, as scan --where, e.g. \"plate != 'plate07'\" or"
            + " \"n_genes >= 500 and cell_type in ('T cell', 'B cell')\". The filter runs once,"
            + " before the epochs are planned (reading only its columns, and only the pages their"
            + " statistics cannot exclude); samplers and the diversity figures then see the"
            + " matching rows only."
      })
  String where;

  @Option(
      names = "--epochs",
      defaultValue = "1",
      paramLabel = "N",
      description = "Epochs (default: ${DEFAULT-VALUE}).")
  long epochs;

  @Option(
      names = "--seed",
      defaultValue = "0",
      paramLabel = "S",
      description = "Seed of the plan (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--rank",
      defaultValue = "0",
      paramLabel = "R",
      description = "This rank r (default: ${DEFAULT-VALUE}).")
  int rank;

  @Option(
      names = "--world",
      defaultValue = "1",
      paramLabel = "W",
      description = "World size W, a divisor of G (default: ${DEFAULT-VALUE}).")
  int world;

  @Option(names = "--drop-last", description = "Drop the last partial batch instead of padding.")
  boolean dropLast;

  // They mostly wait on the disk: on a cold cache 8 beat 2 for block shuffle on 2 cores, with no
  // cost warm (benchmarks/results/archive: loader-compare-2026-11-30-400k against -400k-threads8).
  @Option(
      names = "--threads",
      defaultValue = "" + LoaderOptions.DEFAULT_THREADS,
      paramLabel = "N",
      description = "I/O threads (default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--in-flight",
      defaultValue = "" + LoaderOptions.DEFAULT_FETCHES_IN_FLIGHT,
      paramLabel = "N",
      description = "Fetches read ahead (default: ${DEFAULT-VALUE}).")
  int inFlight;

  @Option(
      names = "--memory-mb",
      defaultValue = "" + LoaderOptions.DEFAULT_PREFETCH_MIB,
      paramLabel = "MIB",
      description =
          "Budget for fetched rows, read ahead and being handed out, MiB; it must hold one fetch"
              + " (default: ${DEFAULT-VALUE}).")
  long memoryMb;

  @Option(
      names = "--min-meff",
      paramLabel = "TARGET",
      description = "Diversity contract m_eff/m ≥ γ: derive --fetch (block) or --pool from it.")
  Double minMeff;

  @Option(
      names = "--max-pi2",
      paramLabel = "TARGET",
      description = "Diversity contract π₂ ≤ ε (instead of --min-meff).")
  Double maxPi2;

  @Option(
      names = "--min-distinct-blocks",
      paramLabel = "TARGET",
      description = "Diversity contract E[distinct blocks per batch] ≥ d (instead of --min-meff).")
  Double minDistinctBlocks;

  @Option(names = "--json", description = "Print the report as one JSON object.")
  boolean json;

  @Option(
      names = "--direct",
      description =
          "Read local files with O_DIRECT, bypassing the page cache: for datasets larger than RAM"
              + " read cold (falls back to the page cache where the file system refuses it).")
  boolean direct;

  @Override
  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  public Integer call() throws IOException {
    requireAtLeastOne("--epochs", epochs);
    requireAtLeastOne("--threads", threads);
    requireAtLeastOne("--in-flight", inFlight);
    requireAtLeastOne("--memory-mb", memoryMb);
    // Ranges checked here, so that the error names the option and writes the number as typed
    // numbers are written everywhere (1e+20, not Java's 1.0E20).
    requireIn("--jitter", jitter, 0, false, 1, true, "[0, 1)");
    requireIn("--max-pi2", maxPi2, 0, true, 1, false, "(0, 1]");
    requireIn("--min-meff", minMeff, 0, true, 1, false, "(0, 1]");
    requireIn(
        "--min-distinct-blocks", minDistinctBlocks, 1, false, Double.MAX_VALUE, false, "1 or more");
    if (memoryMb > Long.MAX_VALUE >> 20) {
      throw new ParameterException(
          spec.commandLine(), "--memory-mb " + memoryMb + " is more bytes than a long counts");
    }
    Locations.Location loc = Locations.parse(location);
    // Pinned before the dataset is opened, and unpinned after it is closed.
    try (StagedRun staged = StagedRun.pinIfStaged(loc);
        OpenedDataset opened = OpenedDataset.open(loc, "load", direct, memoryMb << 20)) {
      Dataset d = opened.dataset();
      opened.checkColumns(columns);
      List<String> named = new ArrayList<>();
      if (weight != null) {
        named.add(weight);
      }
      if (label != null) {
        named.add(label);
      }
      opened.checkColumns(named);
      DatasetView view = split == null ? d.all() : d.split(split);
      if (where != null) {
        long before = view.rowCount();
        view =
            view.where(WhereExpression.parse(where, d.schema(), opened.storage().uri().toString()));
        if (view.rowCount() == 0) {
          throw new IllegalArgumentException(
              "--where matches none of the "
                  + String.format(Locale.ROOT, "%,d", before)
                  + " rows of "
                  + (split == null ? "the dataset" : "split '" + split + "'")
                  + ": "
                  + where);
        }
      }
      long memory = memoryMb << 20;
      long rowBytes = RowBytes.estimate(view, columns, 64);
      DiversityContract contract = contract();
      int maxBlock = (int) Math.floor(block * (1 + jitter));
      if (contract != null && sampler.equals("pool")) {
        DiversityContract.Resolution r =
            contract.poolRows(maxBlock, batch, world, rowBytes, Long.MAX_VALUE, inFlight);
        checkBudget(r, maxBlock, rowBytes, "a pool of " + Sizes.count(r.windowRows(), "row"));
        pool = r.windowRows();
      } else if (contract != null) {
        // Resolved without the budget first, so that an over-budget target is reported in the
        // flags' terms: the --memory-mb that would hold it.
        DiversityContract.Resolution r =
            contract.fetchFactor(maxBlock, batch, world, rowBytes, Long.MAX_VALUE, inFlight);
        checkBudget(
            r,
            maxBlock,
            rowBytes,
            "fetch factor f = "
                + Sizes.count(r.fetchBatches())
                + " (a window of "
                + Sizes.count(r.windowRows(), "row")
                + ")");
        fetch = (int) r.fetchBatches();
      }
      Sampler s = sampler(fetch, view);
      LoaderOptions o =
          new LoaderOptions(
              s,
              batch,
              seed,
              epochs,
              rank,
              world,
              dropLast ? Tail.DROP : Tail.PAD,
              columns,
              label,
              threads,
              inFlight,
              memory);
      PrintWriter err = spec.commandLine().getErr();
      long perEpoch = dropLast ? view.rowCount() / batch : (view.rowCount() + batch - 1) / batch;
      long total = epochs * perEpoch;
      Progress progress = Progress.count(err, "load", total, "batch");
      List<LoaderMetrics> done = new ArrayList<>();
      figures = IoFigures.start(opened.storage(), staged != null);
      long start = System.nanoTime();
      EpochCpu cpu = new EpochCpu(epochs);
      // Batches are the caller's: their own allocator, so a leak shows at close.
      long peakHeld;
      try (BufferAllocator allocator = new RootAllocator();
          Loader loader = openLoader(view, o, allocator)) {
        long n = 0;
        while (true) {
          VectorSchemaRoot b = loader.next();
          if (b == null) {
            break;
          }
          b.close();
          progress.update(++n);
          if (perEpoch > 0 && n % perEpoch == 0) {
            cpu.mark();
          }
          afterBatch.accept(n);
        }
        done.addAll(loader.epochMetrics());
        peakHeld = loader.peakHeldBytes();
        droppedPerEpoch = loader.plan().droppedRows();
      }
      long wall = System.nanoTime() - start;
      cpu.finish();
      epochCpu = cpu;
      runCpuNanos = cpu.totalNanos();
      runJitNanos = cpu.jitNanos();
      progress.done();
      report(s, o, done, rowBytes, wall, view.rowCount(), perEpoch, peakHeld);
    }
    return 0;
  }

  /** What lazy reads fetched over the load loop (or that a staged view fetched nothing). */
  private IoFigures figures;

  /** The process's CPU over the load loop, marked at each epoch's end. */
  private EpochCpu epochCpu;

  /** CPU time of the whole process (every thread) over the load loop, or -1 if unknown. */
  private long runCpuNanos = -1;

  /**
   * CPU time of the JIT compiler threads over the load loop (nanoseconds, -1 if unknown): part of
   * the process CPU above, a fixed cost of a fresh JVM that a long run amortises, reported apart so
   * that a short benchmark's CPU per sample can be read for what the loader itself costs.
   */
  private long runJitNanos = -1;

  /** Rows of the view each epoch left out (--drop-last), over all ranks. */
  private long droppedPerEpoch;

  /** Opens the loader, or says the smallest --memory-mb that holds one fetch. */
  private Loader openLoader(DatasetView view, LoaderOptions o, BufferAllocator allocator)
      throws IOException {
    try {
      return Loader.open(view, o, allocator);
    } catch (BudgetTooSmallException e) {
      long rows = view.rowCount();
      if (rows > 0 && batch > rows) {
        // One batch would be the view's rows and a mass of padding repeats: the budget that would
        // hold it is no advice to give (--batch 2147483647 asked for tebibytes).
        throw new ParameterException(
            spec.commandLine(),
            String.format(
                Locale.ROOT,
                "--batch %d is more than the %s to load: a batch would be mostly padding"
                    + " (repeats of them); give --batch %d or less",
                batch,
                Sizes.count(rows, "row"),
                rows),
            e);
      }
      long minimumMb = mibAtLeast(e.minimumBytes());
      throw new ParameterException(
          spec.commandLine(),
          String.format(
              Locale.ROOT,
              "--memory-mb %d cannot hold one fetch (%s): the smallest budget that works is"
                  + " --memory-mb %d (%s), or lower --fetch or --batch",
              memoryMb,
              e.fetchDescription(),
              minimumMb,
              Sizes.bytes(e.minimumBytes())),
          e);
    }
  }

  private Sampler sampler(int f, DatasetView view) throws IOException {
    if (weight != null && !sampler.equals("weighted")) {
      throw new IllegalArgumentException("--weight needs --sampler weighted");
    }
    return switch (sampler) {
      case "weighted" -> {
        if (weight == null) {
          throw new IllegalArgumentException("--sampler weighted needs --weight COLUMN");
        }
        yield new WeightedBlocks(block, f, jitter, weight, SamplerColumns.weights(view, weight));
      }
      case "balanced" -> {
        if (label == null) {
          throw new IllegalArgumentException("--sampler balanced needs --label COLUMN");
        }
        yield new BalancedBlocks(block, f, label, SamplerColumns.labels(view, label));
      }
      case "sequential" -> new Sequential(f, block);
      case "random" -> new TrueRandom(f, block);
      case "block" -> new BlockShuffle(block, f, jitter, false);
      case "deal" -> new BlockShuffle(block, f, jitter, true);
      case "pool" -> new RollingPool(block, pool != null ? pool : (long) batch * f, f, jitter);
      default ->
          throw new IllegalArgumentException(
              "unknown sampler '"
                  + sampler
                  + "'; use sequential, random, block, deal, pool, weighted or balanced");
    };
  }

  /** The MiB that hold {@code bytes}, rounded up without overflow (a --memory-mb to suggest). */
  private static long mibAtLeast(long bytes) {
    return (bytes >> 20) + ((bytes & ((1 << 20) - 1)) == 0 ? 0 : 1);
  }

  /** The one diversity target given, if any: two would leave the planner nothing to choose. */
  /** Refuses a diversity target whose window the memory budget cannot hold, naming the flags. */
  private void checkBudget(
      DiversityContract.Resolution r, int maxBlock, long rowBytes, String needs) {
    if (r.memoryBytes() <= memoryMb << 20) {
      return;
    }
    long neededMb = mibAtLeast(r.memoryBytes());
    String blocks =
        maxBlock == block
            ? "blocks of " + block + " rows"
            : "blocks of up to "
                + maxBlock
                + " rows (--block "
                + block
                + " with --jitter "
                + Numbers.text(jitter)
                + ")";
    throw new ParameterException(
        spec.commandLine(),
        String.format(
            Locale.ROOT,
            "%s needs %s with %s and --batch %d: %s per rank at about %s a row, over --memory-mb"
                + " %d; give --memory-mb %d or more, lower --block, or relax the target",
            maxPi2 != null
                ? "--max-pi2 " + Numbers.text(maxPi2)
                : minMeff != null
                    ? "--min-meff " + Numbers.text(minMeff)
                    : "--min-distinct-blocks " + Numbers.text(minDistinctBlocks),
            needs,
            blocks,
            batch,
            Sizes.bytes(r.memoryBytes()),
            Sizes.bytes(rowBytes),
            memoryMb,
            neededMb));
  }

  private DiversityContract contract() {
    List<DiversityContract> given = new ArrayList<>();
    if (maxPi2 != null) {
      given.add(DiversityContract.pi2AtMost(maxPi2));
    }
    if (minMeff != null) {
      given.add(DiversityContract.meffOverMAtLeast(minMeff));
    }
    if (minDistinctBlocks != null) {
      given.add(DiversityContract.distinctBlocksAtLeast(minDistinctBlocks));
    }
    if (given.size() > 1) {
      throw new ParameterException(
          spec.commandLine(),
          "give one diversity target (--max-pi2, --min-meff or --min-distinct-blocks), not "
              + given.size());
    }
    return given.isEmpty() ? null : given.get(0);
  }

  private void report(
      Sampler s,
      LoaderOptions o,
      List<LoaderMetrics> epochs,
      long rowBytes,
      long wallNanos,
      long epochRows,
      long epochBatches,
      long peakHeld) {
    long rows = 0;
    long bytes = 0;
    long reads = 0;
    long stall = 0;
    long runNanos = 0;
    double pi2 = 0;
    double distinct = 0;
    double entropy = 0;
    double tv = 0;
    boolean exact = true;
    long distinctRows = 0;
    long padding = 0;
    for (LoaderMetrics m : epochs) {
      distinctRows += m.coveredRows();
      padding += m.paddingRows();
      rows += m.rows();
      bytes += m.bytesRead();
      reads += m.reads();
      stall += m.stallNanos();
      runNanos += m.wallNanos();
      pi2 += m.diversity().pi2() / epochs.size();
      distinct += m.diversity().distinctBlocksMean() / epochs.size();
      entropy += m.diversity().labelEntropyMean() / epochs.size();
      tv += m.diversity().tvMean() / epochs.size();
      exact &= m.coverageExact();
    }
    int m = o.rankBatchRows();
    double seconds = runNanos / 1e9;
    double model = modelPi2(s, o.globalBatchRows(), epochRows, epochBatches);
    ObjectNode r = Json.MAPPER.createObjectNode();
    r.put("sampler", s.describe());
    r.put("globalBatch", o.globalBatchRows());
    r.put("rank", o.rank());
    r.put("world", o.world());
    r.put("epochs", epochs.size());
    r.put("rows", rows);
    r.put("viewRows", epochRows);
    r.put("paddingRows", padding);
    r.put("droppedRows", droppedPerEpoch * epochs.size());
    r.put("seconds", seconds);
    r.put("samplesPerSecond", seconds == 0 ? 0 : rows / seconds);
    r.put("bytesPerSecond", seconds == 0 ? 0 : bytes / seconds);
    r.put("bytesRead", bytes);
    r.put("reads", reads);
    r.put("stallSeconds", stall / 1e9);
    if (runCpuNanos >= 0) {
      r.put("cpuSeconds", runCpuNanos / 1e9);
      r.put("cpuMicrosPerSample", rows == 0 ? 0 : runCpuNanos / 1e3 / rows);
    }
    if (runJitNanos >= 0) {
      r.put("jitCpuSeconds", runJitNanos / 1e9);
      r.put("jitCpuMicrosPerSample", rows == 0 ? 0 : runJitNanos / 1e3 / rows);
    }
    epochCpu.putInto(r, EpochCpu.rowsOf(epochs));
    r.put("bytesPerRowEstimate", rowBytes);
    r.put("memoryBudgetBytes", o.prefetchBytes());
    r.put("peakHeldBytes", peakHeld);
    r.put("pi2", pi2);
    // No closed form for this sampler: null, "no value", as for coverageExact below (README, JSON
    // output); "NaN" would read as a computed value.
    if (Double.isNaN(model)) {
      r.putNull("pi2Model");
    } else {
      r.put("pi2Model", model);
    }
    r.put("meffOverM", 1.0 / (1.0 + (m - 1) * pi2));
    if (Double.isNaN(model)) {
      r.putNull("meffOverMModel");
    } else {
      r.put("meffOverMModel", DiversityModel.meffOverM(m, model));
    }
    r.put("distinctBlocksMean", distinct);
    if (label != null) {
      // No labelled row (none at all, or all null), no distribution: null, as for the model.
      putFigure(r, "labelEntropyMean", entropy);
      putFigure(r, "tvMean", tv);
    }
    List<String> warnings = contractWarnings(pi2, model, m);
    ArrayNode warned = r.putArray("warnings");
    warnings.forEach(warned::add);
    boolean once = exactlyOnce(s);
    if (once) {
      r.put("coverageExact", exact);
    } else {
      // Drawn with replacement: exactly-once does not apply; say how much of the view was seen.
      r.putNull("coverageExact");
      r.put("distinctRowsFraction", rows == 0 ? 0 : (double) distinctRows / rows);
    }
    if (s instanceof WeightedBlocks w) {
      r.put("weight", w.column());
      r.put("totalWeight", w.totalWeight());
    }
    if (s instanceof BalancedBlocks b) {
      r.put("classes", b.classes());
    }
    figures.putInto(r);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.line(r));
    } else {
      out.printf(
          Locale.ROOT,
          "%s: %s in %.2f s: %s samples/s, %s/s, %s, stall %.2f s%s%n",
          s.describe(),
          Sizes.count(rows, "row"),
          seconds,
          Sizes.count(seconds == 0 ? 0 : Math.round(rows / seconds)),
          Sizes.bytes(seconds == 0 ? 0 : Math.round(bytes / seconds)),
          Sizes.count(reads, "read"),
          stall / 1e9,
          runCpuNanos < 0 || rows == 0
              ? ""
              : String.format(
                  Locale.ROOT,
                  ", CPU %.1f us/sample%s",
                  runCpuNanos / 1e3 / rows,
                  runJitNanos < 0
                      ? ""
                      : String.format(
                          Locale.ROOT, " (of which JIT compiler %.1f)", runJitNanos / 1e3 / rows)));
      String perEpochCpu = epochCpu.line(EpochCpu.rowsOf(epochs));
      if (perEpochCpu != null) {
        out.println(perEpochCpu);
      }
      out.printf(
          Locale.ROOT,
          "diversity: pi2 %.5f%s, m_eff/m %.3f, distinct blocks %.1f per batch%s%n",
          pi2,
          Double.isNaN(model) ? "" : String.format(Locale.ROOT, " (model %.5f)", model),
          1.0 / (1.0 + (m - 1) * pi2),
          distinct,
          label == null
              ? ""
              : Double.isNaN(entropy)
                  ? ", no label entropy or TV (no labelled rows)"
                  : String.format(Locale.ROOT, ", label entropy %.3f bits, TV %.3f", entropy, tv));
      out.printf(
          Locale.ROOT,
          "memory: fetched rows held at most %s at once (budget %s)%n",
          Sizes.bytes(peakHeld),
          Sizes.bytes(o.prefetchBytes()));
      out.printf(
          Locale.ROOT,
          "coverage: %s%n",
          !once
              ? String.format(
                  Locale.ROOT,
                  "with replacement, %.1f%% distinct rows",
                  rows == 0 ? 0 : 100.0 * distinctRows / rows)
              : coverage(exact, distinctRows, epochRows * epochs.size(), padding, epochs.size()));
      String fetched = figures.line();
      if (fetched != null) {
        out.println(fetched);
      }
      for (String warning : warnings) {
        out.println("warning: " + warning);
      }
    }
    out.flush();
  }

  /** A figure, or null where it does not apply (NaN). */
  private static void putFigure(ObjectNode r, String key, double value) {
    if (Double.isNaN(value)) {
      r.putNull(key);
    } else {
      r.put(key, value);
    }
  }

  /** A number option, if given, within [low, high] (ends open where said), else a usage error. */
  private void requireIn(
      String option,
      Double value,
      double low,
      boolean lowOpen,
      double high,
      boolean highOpen,
      String range) {
    if (value == null) {
      return;
    }
    double v = value;
    boolean ok = (lowOpen ? v > low : v >= low) && (highOpen ? v < high : v <= high);
    if (!ok) {
      throw new ParameterException(
          spec.commandLine(),
          option
              + " must be "
              + (range.startsWith("1") ? "" : "in ")
              + range
              + ", not "
              + Numbers.text(v));
    }
  }

  /** A count option, refused below 1 as a usage error that names it. */
  private void requireAtLeastOne(String option, long value) {
    if (value < 1) {
      throw new ParameterException(
          spec.commandLine(), option + " must be at least 1, not " + value);
    }
  }

  /**
   * The coverage line: rows seen against the view's, and the padding and dropped rows apart, so
   * that "exactly once" is never read as "every row, and nothing else".
   */
  private String coverage(boolean exact, long seen, long viewRows, long padding, int epochCount) {
    StringBuilder b = new StringBuilder(exact ? "exactly once" : "NOT exactly once");
    b.append(", " + Sizes.count(seen) + " of " + Sizes.count(viewRows, "row"));
    if (world > 1) {
      b.append(" (this rank's share)");
    }
    if (padding > 0) {
      b.append(
          ", plus " + Sizes.count(padding, "padding row") + " (repeats that fill the last batch)");
    }
    long dropped = droppedPerEpoch * epochCount;
    if (dropped > 0) {
      b.append(", " + Sizes.count(dropped, "row") + " dropped (--drop-last)");
    }
    return b.toString();
  }

  /**
   * The diversity targets given that the model says this run could not meet (a small view, or a
   * last fetch window that holds fewer rows): said, not silently missed.
   */
  private List<String> contractWarnings(double realisedPi2, double modelPi2, int m) {
    List<String> out = new ArrayList<>();
    if (Double.isNaN(modelPi2)) {
      return out;
    }
    double meffModel = DiversityModel.meffOverM(m, modelPi2);
    double meffRealised = 1.0 / (1.0 + (m - 1) * realisedPi2);
    if (minMeff != null && meffModel < minMeff) {
      out.add(
          String.format(
              Locale.ROOT,
              "--min-meff %.3f cannot hold for this view: the model gives m_eff/m %.3f (realised"
                  + " %.3f); a smaller --block or --batch, or more rows, would reach it",
              minMeff,
              meffModel,
              meffRealised));
    }
    if (maxPi2 != null && modelPi2 > maxPi2) {
      out.add(
          String.format(
              Locale.ROOT,
              "--max-pi2 %.5f cannot hold for this view: the model gives pi2 %.5f (realised"
                  + " %.5f); a smaller --block or --batch, or more rows, would reach it",
              maxPi2,
              modelPi2,
              realisedPi2));
    }
    return out;
  }

  private static boolean exactlyOnce(Sampler s) {
    return !(s instanceof WeightedBlocks) && !(s instanceof BalancedBlocks);
  }

  /**
   * π₂ the model predicts for a batch of this rank, NaN where there is no closed form (true random
   * and sequential; a balanced sampler with a class too small for a window).
   */
  private double modelPi2(Sampler s, int globalBatch, long epochRows, long epochBatches) {
    if (s instanceof WeightedBlocks w) {
      double sum = 0;
      for (long e = 0; e < epochs; e++) {
        double collision = w.blockCollision(seed, e);
        sum += DiversityModel.pi2Weighted(w.blockRows(), globalBatch, w.fetchBatches(), collision);
      }
      return sum / epochs;
    }
    if (s instanceof BalancedBlocks b) {
      return b.windowBlocksDistinct(globalBatch)
          ? DiversityModel.pi2(b.blockRows(), globalBatch, b.fetchBatches())
          : Double.NaN;
    }
    if (s instanceof BlockShuffle b) {
      int spread = (int) Math.floor(b.blockRows() * b.jitter());
      return b.deal() && b.blockRows() + spread <= b.fetchBatches()
          ? 0
          : DiversityModel.pi2Epoch(
              b.blockRows(), spread, globalBatch, b.fetchBatches(), epochRows, epochBatches);
    }
    if (s instanceof RollingPool p) {
      int spread = (int) Math.floor(p.blockRows() * p.jitter());
      return DiversityModel.pi2Pool(p.blockRows(), spread, p.poolRows());
    }
    return Double.NaN;
  }
}
