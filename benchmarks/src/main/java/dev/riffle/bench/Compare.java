package dev.riffle.bench;

import dev.riffle.bench.harness.Fio;
import dev.riffle.bench.harness.PageCache;
import dev.riffle.bench.harness.ProcIo;
import dev.riffle.bench.harness.Reports;
import dev.riffle.bench.harness.TakeHarness;
import dev.riffle.bench.harness.Taker;
import dev.riffle.format.io.RecyclingAllocator;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.write.WriterOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The end-to-end comparison: generates the lance8 types and the ML shapes {@code sparse} and {@code
 * vectors} ({@link Types}), writes each as Riffle, Parquet-MR (default, tuned for random access,
 * default+zstd for size) and Arrow IPC from the same batches, then measures in one run random takes
 * (256 random rows, concurrency 1 and 16 by default; cold: the page cache dropped before every
 * round of one take per thread, when root; and warm) and full scans (of every column, and of the
 * label column alone where a type has several), beside fio's 4 KiB random-read and 1 MiB
 * sequential-read limits. Writes Markdown, JSON and a PNG chart.
 *
 * <pre>
 * java -Xmx12g --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.riffle.bench.Compare [--dir /tmp/riffle-bench] [--out /tmp/riffle-results]
 *     [--types u64,str16,...,sparse,vectors] [--narrow-rows 10000000] [--wide-mib 256] [--rows TYPE=N,...]
 *     [--concurrency 1,16] [--take 256] [--seconds 2] [--cache cold,warm] [--no-fio] [--seed 1]
 *     [--name compare-DATE] [--split-floats] [--list-sectors]
 * </pre>
 *
 * {@code --split-floats} and {@code --list-sectors} write the Riffle files with split float records
 * and LISTS sectors (writer options {@code splitFloats}, {@code listSectors}); otherwise they use
 * the writer's defaults.
 */
@Command(
    name = "Compare",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Writes each type as Riffle, Parquet-MR (default, tuned, +zstd) and Arrow IPC from the same"
          + " batches, then measures random takes and full scans of each format in one run,"
          + " beside fio's limits; writes NAME.md, NAME.json and NAME.png to --out.",
      "Cold runs drop the page cache (root only); without root they are skipped."
    })
public final class Compare implements Callable<Integer> {
  static final List<String> TAKE_FORMATS =
      List.of("riffle", "riffle-direct", "riffle-engine", "parquet", "parquet-tuned", "arrow-ipc");
  static final List<String> WRITE_FORMATS =
      List.of("riffle", "parquet", "parquet-tuned", "parquet-zstd", "arrow-ipc");

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "Data files, kept and reused when type, rows and format match (default: ${DEFAULT-VALUE}).")
  Path dir = Path.of("/tmp/riffle-bench");

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where the report goes (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("/tmp/riffle-results");

  @Option(
      names = "--types",
      split = ",",
      paramLabel = "TYPE",
      description = "Types to write and measure (default: all ten, ${DEFAULT-VALUE}).")
  List<String> types = Types.ALL;

  @Option(
      names = "--formats",
      split = ",",
      paramLabel = "FORMAT",
      description = "Formats to take from and scan (default: ${DEFAULT-VALUE}).")
  List<String> formats = TAKE_FORMATS;

  @Option(
      names = "--narrow-rows",
      paramLabel = "N",
      description = "Rows of the narrow types (default: ${DEFAULT-VALUE}).")
  long narrowRows = 10_000_000L;

  @Option(
      names = "--wide-mib",
      paramLabel = "MIB",
      description =
          "MiB of data per file of the wide types, which sets their rows (default: ${DEFAULT-VALUE}).")
  long wideMib = 256;

  @Option(
      names = "--rows",
      split = ",",
      paramLabel = "TYPE=N",
      description = "Rows of a type, over --narrow-rows and --wide-mib.")
  Map<String, Long> rowsOverride = new LinkedHashMap<>();

  @Option(
      names = "--concurrency",
      split = ",",
      paramLabel = "C",
      description = "Calling threads of the takes (default: 1,16).")
  int[] concurrency = {1, 16};

  @Option(
      names = "--take",
      paramLabel = "ROWS",
      description = "Rows per take (default: ${DEFAULT-VALUE}).")
  int take = 256;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      description = "Seconds of takes per measurement (default: ${DEFAULT-VALUE}).")
  double seconds = 2;

  @Option(
      names = "--cache",
      split = ",",
      paramLabel = "STATE",
      description = "cold and/or warm (default: ${DEFAULT-VALUE}).")
  List<String> caches = List.of("cold", "warm");

  boolean fio = true;

  @Option(names = "--no-fio", description = "Do not run fio.")
  void noFio(boolean no) {
    fio = !no;
  }

  @Option(
      names = "--split-floats",
      description = "Write Riffle with split float records (writer option splitFloats).")
  boolean splitFloats;

  @Option(
      names = "--list-sectors",
      description = "Write Riffle with LISTS sectors (writer option listSectors).")
  boolean listSectors;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Seed of the data and of the row indices (default: ${DEFAULT-VALUE}).")
  long seed = 1;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description = "Report file name (default: compare-DATE-TIME).")
  String name;

  String command;

  final List<Map<String, Object>> results = new ArrayList<>();
  final Map<String, Object> fioResults = new LinkedHashMap<>();
  final Map<String, Map<String, Long>> sizes = new LinkedHashMap<>();
  final Map<String, Long> rowCounts = new LinkedHashMap<>();
  boolean canDrop;

  public static void main(String[] args) {
    Compare c = new Compare();
    c.command = "Compare " + String.join(" ", args);
    System.exit(new CommandLine(c).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    for (String t : types) {
      Types.schema(t);
    }
    run();
    return 0;
  }

  WriterOptions riffleOptions() {
    // A flag turns an option on; without it the writer's default holds (listSectors is on by
    // default since 1.2, and passing `false` here wrote list_u64 without LISTS sectors).
    WriterOptions o = WriterOptions.defaults();
    o = splitFloats ? o.withSplitFloats(true) : o;
    return listSectors ? o.withListSectors(true) : o;
  }

  long rows(String type) {
    Long r = rowsOverride.get(type);
    if (r != null) {
      return r;
    }
    if (Types.narrow(type)) {
      return narrowRows;
    }
    return Math.max(64, (wideMib << 20) / Types.rowBytes(type));
  }

  void run() throws Exception {
    ZonedDateTime started = ZonedDateTime.now();
    if (name == null) {
      name =
          "compare-" + started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm", Locale.ROOT));
    }
    canDrop = caches.contains("cold") && PageCache.SYSTEM.drop();
    if (caches.contains("cold") && !canDrop) {
      log("cannot drop the page cache (not root?): 'cold' runs are skipped");
    }
    // Freed large blocks are kept for the next take (as `riffle load` does): a 25 MB take would
    // otherwise fault in fresh pages every time, for every format read through Arrow.
    try (BufferAllocator allocator = RecyclingAllocator.create(2L << 30)) {
      for (String type : types) {
        long n = rows(type);
        rowCounts.put(type, n);
        long t0 = System.nanoTime();
        PeerFiles.write(dir, type, n, seed, WRITE_FORMATS, riffleOptions(), allocator);
        log(
            String.format(
                Locale.ROOT,
                "%s: %,d rows written in %.1f s",
                type,
                n,
                (System.nanoTime() - t0) / 1e9));
        Map<String, Long> sz = new LinkedHashMap<>();
        for (String f : WRITE_FORMATS) {
          sz.put(f, Files.size(PeerFiles.file(dir, type, n, f)));
        }
        sizes.put(type, sz);
      }
      if (fio) {
        runFio();
      }
      for (String type : types) {
        measureType(type, allocator);
        writeReport(started);
      }
    }
    writeReport(started);
  }

  Peer open(String format, String type, int inFlight, BufferAllocator allocator)
      throws IOException {
    long n = rowCounts.get(type);
    switch (format) {
      case "riffle":
        // The reader's default engine (FileReader.DEFAULT_READS_IN_FLIGHT reads in flight per
        // take).
        return new RifflePeer(type, PeerFiles.file(dir, type, n, "riffle"), allocator, 0, false);
      case "riffle-direct":
        return new RifflePeer(type, PeerFiles.file(dir, type, n, "riffle"), allocator, 0, true);
      case "riffle-engine":
        return new RifflePeer(
            type, PeerFiles.file(dir, type, n, "riffle"), allocator, inFlight, false);
      case "arrow-ipc":
        return new ArrowIpcPeer(type, PeerFiles.file(dir, type, n, "arrow-ipc"), allocator);
      default:
        return new ParquetPeer(type, PeerFiles.file(dir, type, n, format), format);
    }
  }

  void measureType(String type, BufferAllocator allocator) throws Exception {
    long n = rowCounts.get(type);
    for (String cache : caches) {
      if (cache.equals("cold") && !canDrop) {
        continue;
      }
      for (int c : concurrency) {
        for (String format : formats) {
          boolean engine = format.equals("riffle-engine");
          if (engine && c == 1) {
            continue;
          }
          try (Peer peer = open(format, type, c, allocator)) {
            Map<String, Object> r = measureTakes(peer, type, n, engine ? 1 : c, cache);
            r.put("concurrency", c);
            results.add(r);
            log(summary(r));
          }
        }
      }
      for (String format : List.of("riffle", "parquet", "parquet-tuned", "arrow-ipc")) {
        if (!formats.contains(format)) {
          continue;
        }
        try (Peer peer = open(format, type, 1, allocator)) {
          Map<String, Object> r = measureScan(peer, type, n, cache, null);
          results.add(r);
          log(summary(r));
          String label = Types.labelColumn(type);
          if (label != null) {
            r = measureScan(peer, type, n, cache, label);
            results.add(r);
            log(summary(r));
          }
        }
      }
    }
  }

  TakeHarness harness() {
    return new TakeHarness(take, seconds, seed);
  }

  /** Random takes under the harness's cold or warm protocol, one taker (handle) a thread. */
  Map<String, Object> measureTakes(Peer peer, String type, long rows, int threads, String cache)
      throws Exception {
    ReadStats stats = peer.stats();
    long[][] before = new long[1][];
    TakeHarness.TakeRun run =
        harness()
            .takes(
                () -> {
                  Peer.Taker tk = peer.taker();
                  return new Taker() {
                    @Override
                    public void take(long[] idx) throws Exception {
                      tk.take(idx, false);
                    }

                    @Override
                    public void close() throws IOException {
                      tk.close();
                    }
                  };
                },
                threads,
                rows,
                cache,
                peer.file(),
                () -> before[0] = stats == null ? null : counters(stats),
                peer.format() + " " + type);
    Map<String, Object> r = base("take", type, peer, cache);
    run.putInto(r);
    perRow(r, run.rows(), stats, before[0], run.io());
    return r;
  }

  /** A full scan of every column ({@code column} null, op "scan") or of one (op "scan_column"). */
  Map<String, Object> measureScan(Peer peer, String type, long rows, String cache, String column)
      throws Exception {
    ReadStats stats = peer.stats();
    long[][] before = new long[1][];
    // Untimed scan first: on a 22K-row file the measured scan would otherwise be mostly the JIT
    // compiling the decoders.
    TakeHarness.ScanRun run =
        harness()
            .scan(
                () -> peer.scan(column),
                rows,
                cache,
                peer.file(),
                true,
                () -> before[0] = stats == null ? null : counters(stats),
                peer.format());
    Map<String, Object> r = base(column == null ? "scan" : "scan_column", type, peer, cache);
    if (column != null) {
      r.put("column", column);
    }
    run.putInto(r, Files.size(peer.file()));
    perRow(r, run.rows(), stats, before[0], run.io());
    return r;
  }

  private Map<String, Object> base(String op, String type, Peer peer, String cache)
      throws IOException {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("op", op);
    r.put("type", type);
    r.put("format", peer.format().startsWith("riffle-engine") ? "riffle-engine" : peer.format());
    r.put("cache", cache);
    r.put("file_bytes", Files.size(peer.file()));
    r.put("file_rows", rowCounts.get(type));
    return r;
  }

  private static long[] counters(ReadStats s) {
    return new long[] {s.reads(), s.bytesRead(), s.sectors()};
  }

  /** Riffle's own counters where the peer has them, then /proc/self/io, per row. */
  private static void perRow(
      Map<String, Object> r, long rows, ReadStats stats, long[] before, ProcIo io) {
    double n = Math.max(1, rows);
    if (stats != null) {
      long[] now = counters(stats);
      r.put("reads_per_row", (now[0] - before[0]) / n);
      r.put("bytes_per_row", (now[1] - before[1]) / n);
      r.put("sectors_per_row", (now[2] - before[2]) / n);
    }
    io.putPerRow(r, rows);
  }

  static String summary(Map<String, Object> r) {
    return String.format(
        Locale.ROOT,
        "%-11s %-9s %-14s %-4s c=%-3s %,12.0f rows/s  disk %,10.0f B/row  syscr %.2f/row%s",
        r.get("op"),
        r.get("type"),
        r.get("format"),
        r.get("cache"),
        r.get("concurrency"),
        (Double) r.get("rows_per_s"),
        (Double) r.get("disk_bytes_per_row"),
        (Double) r.get("syscr_per_row"),
        r.containsKey("reads_per_row")
            ? String.format(
                Locale.ROOT,
                "  reads %.2f/row sectors %.2f/row",
                r.get("reads_per_row"),
                r.get("sectors_per_row"))
            : "");
  }

  // ------------------------------------------------------------------------------------- fio

  /** fio on the largest Riffle file, or on a 1 GiB file of random bytes if every file is small. */
  void runFio() throws Exception {
    Path target = null;
    long best = 0;
    for (String type : types) {
      Path p = PeerFiles.file(dir, type, rowCounts.get(type), "riffle");
      if (Files.size(p) > best) {
        best = Files.size(p);
        target = p;
      }
    }
    if (target == null || best < (64L << 20)) {
      target = dir.resolve("fio-1g.bin");
      if (!Files.exists(target) || Files.size(target) < (1L << 30)) {
        new ProcessBuilder("fallocate", "-l", "1G", target.toString())
            .inheritIO()
            .start()
            .waitFor();
        new ProcessBuilder(
                "dd", "if=/dev/urandom", "of=" + target, "bs=1M", "count=1024", "status=none")
            .inheritIO()
            .start()
            .waitFor();
      }
    }
    Fio.measure(target, concurrency, fioResults);
  }

  // ---------------------------------------------------------------------------------- report

  void writeReport(ZonedDateTime started) throws IOException {
    Files.createDirectories(out);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("date", started.toString());
    doc.put("machine", Reports.machine());
    doc.put("command", commandLine());
    doc.put("rows", rowCounts);
    doc.put("take_rows", take);
    doc.put("seconds_per_measurement", seconds);
    doc.put("file_bytes", sizes);
    doc.put("fio", fioResults);
    doc.put("results", results);
    Reports.writeJson(out.resolve(name + ".json"), doc);
    Files.writeString(out.resolve(name + ".md"), Report.markdown(this, started));
    try {
      Chart.write(this, out.resolve(name + ".png"));
    } catch (LinkageError | java.awt.AWTError e) {
      // A server without font libraries cannot draw text; the Markdown and JSON are the results.
      System.err.println("chart not written: " + e);
    }
  }

  String commandLine() {
    return "java -Xmx12g --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.riffle.bench."
        + command;
  }

  static void log(String s) {
    Reports.log(s);
  }
}
