package dev.riffle.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.riffle.format.ReadStats;
import dev.riffle.format.io.RecyclingAllocator;
import dev.riffle.writer.WriterOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;

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
 *     [--name compare-DATE] [--split-floats] [--pack-lists]
 * </pre>
 *
 * {@code --split-floats} and {@code --pack-lists} write the Riffle files with split float records
 * and LISTS sectors (format 1.2, writer options {@code splitFloats}, {@code packLists}); otherwise
 * they use the writer's defaults.
 */
public final class Compare {
  static final List<String> TAKE_FORMATS =
      List.of("riffle", "riffle-direct", "riffle-engine", "parquet", "parquet-tuned", "arrow-ipc");
  static final List<String> WRITE_FORMATS =
      List.of("riffle", "parquet", "parquet-tuned", "parquet-zstd", "arrow-ipc");

  /** Most page cache drops of one cold take measurement (each followed by one take a thread). */
  static final int COLD_ROUNDS = 16;

  Path dir = Path.of("/tmp/riffle-bench");
  Path out = Path.of("/tmp/riffle-results");
  List<String> types = Types.ALL;
  long narrowRows = 10_000_000L;
  long wideMib = 256;
  Map<String, Long> rowsOverride = new LinkedHashMap<>();
  int[] concurrency = {1, 16};
  int take = 256;
  double seconds = 2;
  List<String> caches = List.of("cold", "warm");
  boolean fio = true;
  boolean splitFloats;
  boolean packLists;
  long seed = 1;
  String name;
  List<String> formats = TAKE_FORMATS;
  String command;

  final List<Map<String, Object>> results = new ArrayList<>();
  final Map<String, Object> fioResults = new LinkedHashMap<>();
  final Map<String, Map<String, Long>> sizes = new LinkedHashMap<>();
  final Map<String, Long> rowCounts = new LinkedHashMap<>();
  boolean canDrop;

  public static void main(String[] args) throws Exception {
    Compare c = new Compare();
    c.parse(args);
    c.run();
  }

  void parse(String[] args) {
    command = "Compare " + String.join(" ", args);
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--dir":
          dir = Path.of(args[++i]);
          break;
        case "--out":
          out = Path.of(args[++i]);
          break;
        case "--types":
          types = List.of(args[++i].split(","));
          break;
        case "--formats":
          formats = List.of(args[++i].split(","));
          break;
        case "--narrow-rows":
          narrowRows = Long.parseLong(args[++i]);
          break;
        case "--wide-mib":
          wideMib = Long.parseLong(args[++i]);
          break;
        case "--rows":
          for (String kv : args[++i].split(",")) {
            String[] p = kv.split("=");
            rowsOverride.put(p[0], Long.parseLong(p[1]));
          }
          break;
        case "--concurrency":
          concurrency = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
          break;
        case "--take":
          take = Integer.parseInt(args[++i]);
          break;
        case "--seconds":
          seconds = Double.parseDouble(args[++i]);
          break;
        case "--cache":
          caches = List.of(args[++i].split(","));
          break;
        case "--no-fio":
          fio = false;
          break;
        case "--split-floats":
          splitFloats = true;
          break;
        case "--pack-lists":
          packLists = true;
          break;
        case "--seed":
          seed = Long.parseLong(args[++i]);
          break;
        case "--name":
          name = args[++i];
          break;
        default:
          throw new IllegalArgumentException("unknown option " + a + " (see the class comment)");
      }
    }
    for (String t : types) {
      Types.schema(t);
    }
  }

  WriterOptions riffleOptions() {
    // A flag turns an option on; without it the writer's default holds (packLists is on by
    // default since 1.2, and passing `false` here wrote list_u64 without LISTS sectors).
    WriterOptions o = WriterOptions.defaults();
    o = splitFloats ? o.withSplitFloats(true) : o;
    return packLists ? o.withPackLists(true) : o;
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
      name = "compare-" + started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"));
    }
    canDrop = caches.contains("cold") && ProcIo.dropCaches();
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
        DataSet.write(dir, type, n, seed, WRITE_FORMATS, riffleOptions(), allocator);
        log(
            String.format(
                "%s: %,d rows written in %.1f s", type, n, (System.nanoTime() - t0) / 1e9));
        Map<String, Long> sz = new LinkedHashMap<>();
        for (String f : WRITE_FORMATS) {
          sz.put(f, Files.size(DataSet.file(dir, type, n, f)));
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
        return new RifflePeer(type, DataSet.file(dir, type, n, "riffle"), allocator, 0, false);
      case "riffle-direct":
        return new RifflePeer(type, DataSet.file(dir, type, n, "riffle"), allocator, 0, true);
      case "riffle-engine":
        return new RifflePeer(
            type, DataSet.file(dir, type, n, "riffle"), allocator, inFlight, false);
      case "arrow-ipc":
        return new ArrowIpcPeer(type, DataSet.file(dir, type, n, "arrow-ipc"), allocator);
      default:
        return new ParquetPeer(type, DataSet.file(dir, type, n, format), format);
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

  /** Reads a file once, so that a warm run finds it in the page cache. */
  static void warm(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
      long at = 0;
      while (true) {
        b.clear();
        int k = ch.read(b, at);
        if (k < 0) {
          break;
        }
        at += k;
      }
    }
  }

  /**
   * Random takes. Warm: every thread takes for {@link #seconds}. Cold: rounds of a page cache drop
   * followed by ONE take per thread, only the takes timed, until {@link #seconds} of takes or
   * {@link #COLD_ROUNDS} rounds. (With one drop and then seconds of takes, a format that reads 256
   * KiB per row warmed a whole 268 MB file within the window, and "cold" measured how fast it
   * filled the page cache: Arrow IPC vec768 41,539 rows/s against Riffle's 6,751.)
   */
  Map<String, Object> measureTakes(Peer peer, String type, long rows, int threads, String cache)
      throws Exception {
    List<Peer.Taker> takers = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        takers.add(peer.taker());
      }
      boolean cold = !cache.equals("warm");
      if (!cold) {
        warm(peer.file());
      }
      // One untimed take per taker: a cold measurement is only 16 takes a thread, and the first
      // of a JVM would otherwise time the JIT (Riffle u64 cold C=1: 8,150 rows/s first in a JVM,
      // 19,206 second).
      for (Peer.Taker tk : takers) {
        tk.take(indices(new SplittableRandom(-1), rows), false);
      }
      SplittableRandom[] rngs = new SplittableRandom[threads];
      for (int t = 0; t < threads; t++) {
        rngs[t] = new SplittableRandom(seed * 1_000_003L + t);
      }
      ReadStats stats = peer.stats();
      long[] before = stats == null ? null : counters(stats);
      AtomicLong done = new AtomicLong();
      AtomicLong takes = new AtomicLong();
      long nanos = 0;
      int rounds = 0;
      ProcIo io = null;
      do {
        if (cold) {
          ProcIo.dropCaches();
        }
        ProcIo io0 = ProcIo.now();
        long limit = cold ? 0 : (long) (seconds * 1e9);
        nanos += round(peer, type, takers, rngs, rows, limit, done, takes);
        ProcIo d = ProcIo.now().minus(io0);
        io = io == null ? d : io.plus(d);
        rounds++;
      } while (cold && nanos < seconds * 1e9 && rounds < COLD_ROUNDS);
      double elapsed = nanos / 1e9;
      Map<String, Object> r = base("take", type, peer, cache);
      long got = done.get();
      r.put("threads", threads);
      r.put("takes", takes.get());
      r.put("rounds", rounds);
      r.put("rows", got);
      r.put("seconds", elapsed);
      r.put("rows_per_s", got / elapsed);
      perRow(r, got, stats, before, io);
      return r;
    } finally {
      for (Peer.Taker tk : takers) {
        tk.close();
      }
    }
  }

  /**
   * Every taker takes on its own thread: for {@code limitNanos}, or once if 0. Returns the nanos
   * from start to the last thread's end.
   */
  private long round(
      Peer peer,
      String type,
      List<Peer.Taker> takers,
      SplittableRandom[] rngs,
      long rows,
      long limitNanos,
      AtomicLong done,
      AtomicLong takes)
      throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    long deadline = start + limitNanos;
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < takers.size(); t++) {
      Peer.Taker tk = takers.get(t);
      SplittableRandom rng = rngs[t];
      Thread th =
          new Thread(
              () -> {
                try {
                  do {
                    long[] idx = indices(rng, rows);
                    tk.take(idx, false);
                    done.addAndGet(idx.length);
                    takes.incrementAndGet();
                  } while (System.nanoTime() < deadline);
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              });
      running.add(th);
      th.start();
    }
    for (Thread th : running) {
      th.join();
    }
    long nanos = System.nanoTime() - start;
    if (failure.get() != null) {
      throw new IOException(peer.format() + " " + type + " take failed", failure.get());
    }
    return nanos;
  }

  long[] indices(SplittableRandom rng, long rows) {
    long[] idx = new long[take];
    for (int i = 0; i < take; i++) {
      idx[i] = rng.nextLong(rows);
    }
    return idx;
  }

  /** A full scan of every column ({@code column} null, op "scan") or of one (op "scan_column"). */
  Map<String, Object> measureScan(Peer peer, String type, long rows, String cache, String column)
      throws Exception {
    // One untimed scan first: on a 22K-row file the measured scan would otherwise be mostly the
    // JIT compiling the decoders (a cold Riffle sparse scan ran at 206 MB/s; ScanSweep, which
    // skips its first round, read the same file cold at 1.1-1.6 GB/s).
    peer.scan(column);
    if (cache.equals("warm")) {
      warm(peer.file());
    } else {
      ProcIo.dropCaches();
    }
    ReadStats stats = peer.stats();
    long[] before = stats == null ? null : counters(stats);
    ProcIo io0 = ProcIo.now();
    long start = System.nanoTime();
    long got = peer.scan(column);
    double elapsed = (System.nanoTime() - start) / 1e9;
    ProcIo io = ProcIo.now().minus(io0);
    if (got != rows) {
      throw new IOException(peer.format() + " scanned " + got + " of " + rows + " rows");
    }
    Map<String, Object> r = base(column == null ? "scan" : "scan_column", type, peer, cache);
    if (column != null) {
      r.put("column", column);
    }
    r.put("concurrency", 1);
    r.put("threads", 1);
    r.put("rows", got);
    r.put("seconds", elapsed);
    r.put("rows_per_s", got / elapsed);
    r.put("mb_per_s", Files.size(peer.file()) / elapsed / 1e6);
    perRow(r, got, stats, before, io);
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

  private static void perRow(
      Map<String, Object> r, long rows, ReadStats stats, long[] before, ProcIo io) {
    double n = Math.max(1, rows);
    if (stats != null) {
      long[] now = counters(stats);
      r.put("reads_per_row", (now[0] - before[0]) / n);
      r.put("bytes_per_row", (now[1] - before[1]) / n);
      r.put("sectors_per_row", (now[2] - before[2]) / n);
    }
    r.put("syscr_per_row", io.syscr / n);
    r.put("rchar_per_row", io.rchar / n);
    r.put("disk_bytes_per_row", io.readBytes / n);
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

  void runFio() throws Exception {
    Path target = null;
    long best = 0;
    for (String type : types) {
      Path p = DataSet.file(dir, type, rowCounts.get(type), "riffle");
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
    fioResults.put("file", target.toString());
    fioResults.put("file_bytes", Files.size(target));
    for (int c : concurrency) {
      JsonNode j =
          fio(
              target,
              "--rw=randread",
              "--bs=4k",
              "--ioengine=psync",
              "--numjobs=" + c,
              "--group_reporting");
      if (j != null) {
        double iops = j.path("jobs").path(0).path("read").path("iops").asDouble();
        fioResults.put("randread_4k_iops_c" + c, iops);
        log(String.format("fio 4 KiB random read, %d threads: %,.0f IOPS", c, iops));
      }
    }
    JsonNode j =
        fio(target, "--rw=read", "--bs=1M", "--ioengine=libaio", "--iodepth=16", "--numjobs=1");
    if (j != null) {
      double bw = j.path("jobs").path(0).path("read").path("bw_bytes").asDouble();
      fioResults.put("seqread_1m_bytes_per_s", bw);
      log(String.format("fio 1 MiB sequential read: %,.0f MB/s", bw / 1e6));
    }
  }

  JsonNode fio(Path file, String... extra) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.addAll(
        List.of(
            "fio",
            "--name=riffle",
            "--filename=" + file,
            "--direct=1",
            "--readonly",
            "--time_based",
            "--runtime=5",
            "--output-format=json"));
    cmd.addAll(List.of(extra));
    fioResults.computeIfAbsent("commands", k -> new ArrayList<String>());
    @SuppressWarnings("unchecked")
    List<String> cmds = (List<String>) fioResults.get("commands");
    cmds.add(String.join(" ", cmd));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
      byte[] outBytes;
      try (InputStream in = p.getInputStream()) {
        outBytes = in.readAllBytes();
      }
      if (p.waitFor() != 0) {
        log("fio failed: " + String.join(" ", cmd));
        return null;
      }
      String s = new String(outBytes, java.nio.charset.StandardCharsets.UTF_8);
      return new ObjectMapper().readTree(s.substring(s.indexOf('{')));
    } catch (IOException e) {
      log("fio not available (" + e.getMessage() + "); install it with apt-get install -y fio");
      return null;
    }
  }

  // ---------------------------------------------------------------------------------- report

  void writeReport(ZonedDateTime started) throws IOException {
    Files.createDirectories(out);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("date", started.toString());
    doc.put("machine", machine());
    doc.put("command", commandLine());
    doc.put("rows", rowCounts);
    doc.put("take_rows", take);
    doc.put("seconds_per_measurement", seconds);
    doc.put("file_bytes", sizes);
    doc.put("fio", fioResults);
    doc.put("results", results);
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve(name + ".json").toFile(), doc);
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

  static String machine() {
    StringBuilder s = new StringBuilder();
    s.append(Runtime.getRuntime().availableProcessors()).append(" cores, ");
    s.append(String.format("%.1f GiB RAM", memTotal() / (1024.0 * 1024 * 1024)));
    s.append(", ")
        .append(System.getProperty("os.name"))
        .append(" ")
        .append(System.getProperty("os.version"));
    s.append(", Java ").append(System.getProperty("java.version"));
    try {
      s.append(", host ").append(InetAddress.getLocalHost().getHostName());
    } catch (IOException e) {
      // no host name
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          s.append(", ").append(line.substring(line.indexOf(':') + 1).trim());
          break;
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return s.toString();
  }

  static long memTotal() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      // unknown
    }
    return 0;
  }

  static void log(String s) {
    System.out.println(s);
    System.out.flush();
  }
}
