// Why this file stays whole (over 500 lines): it is one benchmark protocol, run as one main in a
// module of its own (lance-core pins Arrow 15): preparing the Lance datasets, cold and warm takes,
// scans and the report share their options and results; split, each part would serve only it.
package dev.riffle.bench.lance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.lancedb.lance.Dataset;
import com.lancedb.lance.WriteParams;
import com.lancedb.lance.ipc.LanceScanner;
import com.lancedb.lance.ipc.ScanOptions;
import dev.riffle.bench.harness.PageCache;
import dev.riffle.bench.harness.Reports;
import dev.riffle.bench.harness.TakeHarness;
import dev.riffle.bench.harness.Taker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The Lance peer of {@code dev.riffle.bench.Compare}, in its own module because lance-core pins
 * Arrow 15. It reads the Arrow IPC files Compare wrote ({@code TYPE-ROWS-arrow-ipc.arrow} in {@code
 * --dir}: one column named like the type for lance8, several for {@code sparse} and {@code
 * vectors}), writes each once as a Lance dataset (lance-core defaults, mode OVERWRITE; reused when
 * it holds the same number of rows), checks one take against the IPC file, then measures with
 * Compare's protocol: takes of {@code --take} uniformly random rows (with replacement; the very
 * same indices: thread t draws from {@code new SplittableRandom(seed * 1_000_003L + t)}), C calling
 * threads each with its own {@code Dataset} handle, cold (after the handles have loaded their
 * metadata, rounds of {@code sync; echo 3 > /proc/sys/vm/drop_caches} and one take per thread, only
 * the takes timed, until {@code --seconds} or {@link TakeHarness#COLD_ROUNDS} rounds) and warm
 * (dataset read once, then takes for {@code --seconds}), then one full scan of every column (and
 * one of the last, label, column where there are several). Rows per type default to those of the
 * Riffle results JSON given with {@code --riffle-json}, whose Riffle rows/s it sets beside Lance's
 * as ratios.
 *
 * <pre>
 * java -Xmx12g --add-opens=java.base/java.nio=ALL-UNNAMED \
 *     -cp benchmarks/lance/target/riffle-lance-bench.jar:$(cat benchmarks/lance/target/classpath.txt) \
 *     dev.riffle.bench.lance.LanceCompare [--dir /tmp/riffle-bench] [--lance-dir DIR/lance]
 *     [--out /tmp/riffle-results]
 *     [--riffle-json benchmarks/results/current/compare-2026-11-30-final5.json]
 *     [--types u64,...] [--rows TYPE=N,...] [--concurrency 1,16] [--take 256] [--seconds 2]
 *     [--cache cold,warm] [--seed 1] [--name compare-lance-DATE]
 * </pre>
 *
 * <p>Why this file is long: it lives in its own Maven build (lance-core pins Arrow 15), so it cannot
 * use the benchmarks module's peers or writers; it holds the Lance writer, the Lance taker and
 * scanner, and the merge with Riffle's figures in one place. The measuring protocol itself is the
 * shared harness ({@code benchmarks/harness}).
 */
@Command(
    name = "LanceCompare",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Writes Compare's Arrow IPC files as Lance datasets, checks one take of each, then measures"
          + " takes and scans with Compare's protocol and sets Riffle's rows/s from --riffle-json"
          + " beside them; writes NAME.md and NAME.json to --out.",
      "Cold runs drop the page cache (root only); without root they are skipped."
    })
public final class LanceCompare implements Callable<Integer> {
  static final List<String> TYPES =
      List.of(
          "u64",
          "str16",
          "list_u64",
          "list_str",
          "vec768",
          "list_vec",
          "bin20k",
          "list_bin",
          "sparse",
          "vectors");

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "Where Compare wrote its TYPE-ROWS-arrow-ipc.arrow files (default: ${DEFAULT-VALUE}).")
  Path dir = Path.of("/tmp/riffle-bench");

  @Option(
      names = "--lance-dir",
      paramLabel = "DIR",
      description = "Lance datasets, reused when their row count matches (default: DIR/lance).")
  Path lanceDir;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Where the report goes (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("/tmp/riffle-results");

  @Option(
      names = "--riffle-json",
      paramLabel = "FILE",
      description =
          "Compare's JSON of the same window: rows per type and Riffle's rows/s (default:"
              + " ${DEFAULT-VALUE}).")
  Path riffleJson = Path.of("benchmarks/results/current/compare-2026-11-30-final5.json");

  @Option(
      names = "--types",
      split = ",",
      paramLabel = "TYPE",
      description = "Types to measure (default: ${DEFAULT-VALUE}).")
  List<String> types = TYPES;

  @Option(
      names = "--rows",
      split = ",",
      paramLabel = "TYPE=N",
      description = "Rows of a type, over those of --riffle-json.")
  Map<String, Long> rowsOverride = new LinkedHashMap<>();

  @Option(
      names = "--concurrency",
      split = ",",
      paramLabel = "C",
      description = "Calling threads, each with its own Dataset (default: 1,16).")
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

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Seed of the row indices, as Compare's (default: ${DEFAULT-VALUE}).")
  long seed = 1;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description = "Report file name (default: compare-lance-DATE-TIME).")
  String name;

  /** WriteParams.LanceFileVersion name (V2_0, V2_1, ...); null = lance-core's default. */
  @Option(
      names = "--file-version",
      paramLabel = "V",
      description = "Lance file format of new datasets: V2_0, V2_1, ... (default: lance-core's).")
  String fileVersion;

  String command;

  final List<Map<String, Object>> results = new ArrayList<>();
  final Map<String, Long> rowCounts = new LinkedHashMap<>();
  final Map<String, Map<String, Object>> datasets = new LinkedHashMap<>();

  /** Column names per type, from its IPC file: lance8 files have one, named like the type. */
  final Map<String, List<String>> columns = new LinkedHashMap<>();

  final List<String> notes = new ArrayList<>();
  JsonNode riffle;
  boolean canDrop;

  public static void main(String[] args) {
    LanceCompare c = new LanceCompare();
    c.command = "LanceCompare " + String.join(" ", args);
    System.exit(new CommandLine(c).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (fileVersion != null) {
      WriteParams.LanceFileVersion.valueOf(fileVersion);
    }
    if (lanceDir == null) {
      lanceDir = dir.resolve("lance");
    }
    run();
    return 0;
  }

  void run() throws Exception {
    ZonedDateTime started = ZonedDateTime.now();
    if (name == null) {
      name = "compare-lance-" + started.format(DateTimeFormatter.ofPattern("yyyy-MM-dd-HHmm"));
    }
    if (Files.exists(riffleJson)) {
      riffle = new ObjectMapper().readTree(riffleJson.toFile());
    } else {
      log("no Riffle results at " + riffleJson + ": no ratios");
    }
    canDrop = caches.contains("cold") && PageCache.SYSTEM.drop();
    if (caches.contains("cold") && !canDrop) {
      log("cannot drop the page cache (not root?): 'cold' runs are skipped");
    }
    try (BufferAllocator allocator = new RootAllocator()) {
      for (String type : types) {
        long n = rows(type);
        rowCounts.put(type, n);
        Path ipc = dir.resolve(type + "-" + n + "-arrow-ipc.arrow");
        if (!Files.exists(ipc)) {
          throw new IOException(
              ipc
                  + " is missing: write it first with dev.riffle.bench.Compare"
                  + " (benchmarks/README.md)");
        }
        Path ds =
            lanceDir.resolve(
                type + "-" + n + (fileVersion == null ? "" : "-" + fileVersion) + ".lance");
        long t0 = System.nanoTime();
        boolean written = write(ipc, ds, n, fileVersion, allocator);
        double writeS = (System.nanoTime() - t0) / 1e9;
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("path", ds.toString());
        d.put("ipc_file", ipc.toString());
        d.put("ipc_bytes", Files.size(ipc));
        d.put("bytes", dirBytes(ds));
        d.put("data_files", dataFiles(ds).size());
        d.put("file_format_version", footerVersion(dataFiles(ds).get(0)));
        d.put("written_now", written);
        if (written) {
          d.put("write_seconds", writeS);
        }
        datasets.put(type, d);
        log(
            String.format(
                Locale.ROOT,
                "%s: %,d rows, Lance dataset %,d bytes in %d data files (%s)",
                type,
                n,
                (Long) d.get("bytes"),
                (Integer) d.get("data_files"),
                written ? String.format(Locale.ROOT, "written in %.1f s", writeS) : "reused"));
        columns.put(type, columnNames(ipc, allocator));
        d.put("columns", columns.get(type));
        d.put("verified_take", verify(ipc, ds, n, type, allocator));
      }
      for (String type : types) {
        measureType(type, allocator);
        writeReport(started);
      }
    }
    writeReport(started);
  }

  long rows(String type) throws IOException {
    Long r = rowsOverride.get(type);
    if (r != null) {
      return r;
    }
    if (riffle != null && riffle.path("rows").has(type)) {
      return riffle.path("rows").path(type).asLong();
    }
    try (Stream<Path> s = Files.list(dir)) {
      List<Path> found =
          s.filter(p -> p.getFileName().toString().matches(type + "-[0-9]+-arrow-ipc\\.arrow"))
              .toList();
      if (found.size() != 1) {
        throw new IOException("give --rows " + type + "=N: IPC files found: " + found);
      }
      String f = found.get(0).getFileName().toString();
      return Long.parseLong(f.substring(type.length() + 1, f.indexOf("-arrow-ipc")));
    }
  }

  /** Writes the IPC file as a Lance dataset unless one with n rows is there; true if written. */
  static boolean write(Path ipc, Path ds, long n, String version, BufferAllocator allocator)
      throws Exception {
    if (Files.exists(ds)) {
      try (Dataset d = Dataset.open(ds.toString(), allocator)) {
        if (d.countRows() == n) {
          return false;
        }
      } catch (RuntimeException e) {
        // unreadable: rewrite
      }
    }
    Files.createDirectories(ds.getParent());
    try (FileChannel ch = FileChannel.open(ipc, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      WriteParams.Builder params =
          new WriteParams.Builder().withMode(WriteParams.WriteMode.OVERWRITE);
      if (version != null) {
        params.withDataStorageVersion(WriteParams.LanceFileVersion.valueOf(version));
      }
      try (Dataset d = Dataset.create(allocator, stream, ds.toString(), params.build())) {
        if (d.countRows() != n) {
          throw new IOException(ds + " holds " + d.countRows() + " rows, expected " + n);
        }
      }
    }
    return true;
  }

  /** One take of {@link #take} rows (seed -1 indices) compared value by value with the IPC file. */
  Map<String, Object> verify(Path ipc, Path ds, long n, String type, BufferAllocator allocator)
      throws Exception {
    long[] idx = harness().indices(new SplittableRandom(-1), n);
    Object[] expected = new Object[idx.length];
    try (FileChannel ch = FileChannel.open(ipc, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      List<ArrowBlock> blocks = reader.getRecordBlocks();
      int batchRows = Integer.parseInt(reader.getMetaData().get("batch_rows"));
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      for (int i = 0; i < idx.length; i++) {
        int b = (int) (idx[i] / batchRows);
        reader.loadRecordBatch(blocks.get(b));
        expected[i] = row(root, (int) (idx[i] - (long) b * batchRows));
      }
    }
    int got = 0;
    int mismatches = 0;
    String firstMismatch = null;
    try (Dataset d = Dataset.open(ds.toString(), allocator);
        ArrowReader r = d.take(boxed(idx), columns.get(type))) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++, got++) {
          Object o = row(root, i);
          if (got >= expected.length || !Objects.equals(o, expected[got])) {
            mismatches++;
            if (firstMismatch == null) {
              firstMismatch = "position " + got + " row " + (got < idx.length ? idx[got] : -1);
            }
          }
        }
      }
    }
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("rows_requested", idx.length);
    v.put("rows_returned", got);
    v.put("mismatches", mismatches);
    if (firstMismatch != null) {
      v.put("first_mismatch", firstMismatch);
    }
    log(
        String.format(
            Locale.ROOT,
            "%s: verify take: %d of %d rows, %d mismatches",
            type,
            got,
            idx.length,
            mismatches));
    if (got != idx.length || mismatches != 0) {
      notes.add(type + ": Lance's take did not match the IPC file: " + v);
    }
    return v;
  }

  /** The column names of the IPC file Compare wrote for a type, in order. */
  static List<String> columnNames(Path ipc, BufferAllocator allocator) throws IOException {
    try (FileChannel ch = FileChannel.open(ipc, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      List<String> names = new ArrayList<>();
      for (FieldVector v : reader.getVectorSchemaRoot().getFieldVectors()) {
        names.add(v.getName());
      }
      return names;
    }
  }

  /** Row {@code i} of every column, comparable with {@link Objects#equals}. */
  static List<Object> row(VectorSchemaRoot root, int i) {
    List<Object> values = new ArrayList<>();
    for (FieldVector v : root.getFieldVectors()) {
      values.add(normalize(v.getObject(i)));
    }
    return values;
  }

  /** Arrow Java values as comparable objects (byte arrays compare by content). */
  static Object normalize(Object o) {
    if (o == null) {
      return null;
    }
    if (o instanceof byte[]) {
      return ByteBuffer.wrap((byte[]) o);
    }
    if (o instanceof List) {
      List<Object> l = new ArrayList<>();
      for (Object x : (List<?>) o) {
        l.add(normalize(x));
      }
      return l;
    }
    return o.toString();
  }

  static List<Long> boxed(long[] idx) {
    List<Long> l = new ArrayList<>(idx.length);
    for (long x : idx) {
      l.add(x);
    }
    return l;
  }

  // ---------------------------------------------------------------------------------- measure

  void measureType(String type, BufferAllocator allocator) throws Exception {
    long n = rowCounts.get(type);
    Path ds = Path.of((String) datasets.get(type).get("path"));
    for (String cache : caches) {
      if (cache.equals("cold") && !canDrop) {
        continue;
      }
      for (int c : concurrency) {
        Map<String, Object> r = measureTakes(ds, type, n, c, cache, allocator);
        results.add(r);
        log(summary(r));
      }
      Map<String, Object> r = measureScan(ds, type, n, cache, null, allocator);
      results.add(r);
      log(summary(r));
      List<String> cols = columns.get(type);
      if (cols.size() > 1) {
        // The label column, last in Compare's multi-column types.
        r = measureScan(ds, type, n, cache, cols.get(cols.size() - 1), allocator);
        results.add(r);
        log(summary(r));
      }
    }
  }

  /** One take: all rows read back (and counted) so that Lance does the whole work. */
  static long takeRows(Dataset d, List<Long> idx, List<String> columns) throws IOException {
    long n = 0;
    try (ArrowReader r = d.take(idx, columns)) {
      while (r.loadNextBatch()) {
        n += r.getVectorSchemaRoot().getRowCount();
      }
    }
    return n;
  }

  TakeHarness harness() {
    return new TakeHarness(take, seconds, seed);
  }

  /**
   * Random takes under the harness's cold or warm protocol (Compare's), one {@code Dataset} handle
   * a thread. The harness's untimed take per handle also lets Lance read and cache its file
   * metadata, which it does lazily at the first take, where the other peers load it at open.
   */
  Map<String, Object> measureTakes(
      Path ds, String type, long rows, int threads, String cache, BufferAllocator allocator)
      throws Exception {
    List<String> cols = columns.get(type);
    TakeHarness.TakeRun run =
        harness()
            .takes(
                () -> {
                  Dataset d = Dataset.open(ds.toString(), allocator);
                  return new Taker() {
                    @Override
                    public void take(long[] idx) throws Exception {
                      long got = takeRows(d, boxed(idx), cols);
                      if (got != idx.length) {
                        throw new IOException("take returned " + got + " of " + idx.length);
                      }
                    }

                    @Override
                    public void close() {
                      d.close();
                    }
                  };
                },
                threads,
                rows,
                cache,
                ds,
                null,
                "lance " + type);
    Map<String, Object> r = base("take", type, ds, cache);
    r.put("concurrency", threads);
    run.putInto(r);
    run.io().putPerRow(r, run.rows());
    return r;
  }

  /**
   * A full scan of every column ({@code column} null, op "scan") or of one (op "scan_column", as
   * Compare does for its multi-column types).
   */
  Map<String, Object> measureScan(
      Path ds, String type, long rows, String cache, String column, BufferAllocator allocator)
      throws Exception {
    List<String> read = column == null ? columns.get(type) : List.of(column);
    try (Dataset d = Dataset.open(ds.toString(), allocator)) {
      TakeHarness.ScanRun run =
          harness()
              .scan(
                  () -> {
                    long got = 0;
                    try (LanceScanner s =
                            d.newScan(new ScanOptions.Builder().columns(read).build());
                        ArrowReader r = s.scanBatches()) {
                      while (r.loadNextBatch()) {
                        got += r.getVectorSchemaRoot().getRowCount();
                      }
                    }
                    return got;
                  },
                  rows,
                  cache,
                  ds,
                  false,
                  null,
                  "lance");
      Map<String, Object> r = base(column == null ? "scan" : "scan_column", type, ds, cache);
      if (column != null) {
        r.put("column", column);
      }
      run.putInto(r, dirBytes(ds));
      run.io().putPerRow(r, run.rows());
      return r;
    }
  }

  private Map<String, Object> base(String op, String type, Path ds, String cache)
      throws IOException {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("op", op);
    r.put("type", type);
    r.put("format", "lance");
    r.put("cache", cache);
    r.put("file_bytes", dirBytes(ds));
    r.put("file_rows", rowCounts.get(type));
    return r;
  }

  static String summary(Map<String, Object> r) {
    return String.format(
        Locale.ROOT,
        "%-5s %-9s %-6s %-4s c=%-3s %,12.0f rows/s  disk %,10.0f B/row  syscr %.2f/row",
        r.get("op"),
        r.get("type"),
        r.get("format"),
        r.get("cache"),
        r.get("concurrency"),
        (Double) r.get("rows_per_s"),
        (Double) r.get("disk_bytes_per_row"),
        (Double) r.get("syscr_per_row"));
  }

  static List<Path> allFiles(Path ds) throws IOException {
    return PageCache.files(ds);
  }

  static List<Path> dataFiles(Path ds) throws IOException {
    return allFiles(ds).stream().filter(p -> p.toString().endsWith(".lance")).toList();
  }

  /** major.minor from a Lance data file's footer (0.3 = file format 2.0, 2.1 = 2.1). */
  static String footerVersion(Path f) throws IOException {
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      ch.read(b, ch.size() - 8);
      return (b.getShort(0) & 0xffff) + "." + (b.getShort(2) & 0xffff);
    }
  }

  static long dirBytes(Path ds) throws IOException {
    long n = 0;
    for (Path f : allFiles(ds)) {
      n += Files.size(f);
    }
    return n;
  }

  // ---------------------------------------------------------------------------------- report

  void writeReport(ZonedDateTime started) throws IOException {
    Files.createDirectories(out);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("date", started.toString());
    doc.put("machine", Reports.machine());
    doc.put("command", commandLine());
    doc.put("lance_core", "com.lancedb:lance-core:0.39.0 (Arrow Java 15.0.0)");
    doc.put("data_storage_version", fileVersion == null ? "lance-core default" : fileVersion);
    doc.put("riffle_results", riffleJson.toString());
    doc.put("rows", rowCounts);
    doc.put("take_rows", take);
    doc.put("seconds_per_measurement", seconds);
    doc.put("seed", seed);
    doc.put("datasets", datasets);
    doc.put("notes", notes);
    doc.put("results", results);
    doc.put("ratios", ratios());
    Reports.writeJson(out.resolve(name + ".json"), doc);
    Files.writeString(out.resolve(name + ".md"), markdown(started));
  }

  Double riffleRowsPerS(String format, String op, String type, String cache, int c) {
    if (riffle == null) {
      return null;
    }
    for (JsonNode r : riffle.path("results")) {
      if (r.path("format").asText().equals(format)
          && r.path("op").asText().equals(op)
          && r.path("type").asText().equals(type)
          && r.path("cache").asText().equals(cache)
          && r.path("concurrency").asInt() == c) {
        return r.path("rows_per_s").asDouble();
      }
    }
    return null;
  }

  List<Map<String, Object>> ratios() {
    List<Map<String, Object>> l = new ArrayList<>();
    for (Map<String, Object> r : results) {
      String op = (String) r.get("op");
      String type = (String) r.get("type");
      String cache = (String) r.get("cache");
      int c = (Integer) r.get("concurrency");
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("op", op);
      x.put("type", type);
      x.put("cache", cache);
      x.put("concurrency", c);
      double lance = (Double) r.get("rows_per_s");
      x.put("lance_rows_per_s", lance);
      for (String f : List.of("riffle", "riffle-direct", "riffle-engine")) {
        Double rf = riffleRowsPerS(f, op, type, cache, c);
        if (rf != null) {
          x.put(f + "_rows_per_s", rf);
          x.put(f + "_over_lance", rf / lance);
        }
      }
      l.add(x);
    }
    return l;
  }

  String markdown(ZonedDateTime started) throws IOException {
    StringBuilder s = new StringBuilder();
    Reports.header(
        s,
        "Lance (lance-core 0.39.0) random takes and scans (lance8, sparse, vectors), beside Riffle",
        started,
        null,
        commandLine());
    s.append("Riffle figures: `")
        .append(riffleJson)
        .append("` (")
        .append(riffle == null ? "missing" : riffle.path("command").asText())
        .append(", started ")
        .append(riffle == null ? "-" : riffle.path("date").asText())
        .append(").\n\n");
    s.append(
        String.format(
            Locale.ROOT,
            "Protocol (Compare's): takes of %d uniformly random rows (with replacement; the same"
                + " indices as Compare: thread t draws from `new SplittableRandom(seed * 1_000_003L"
                + " + t)`, seed %d), %.1f s of takes; concurrency C = C calling threads, each with"
                + " its own `Dataset` handle calling `Dataset.take(indices, columns)` and reading"
                + " the returned ArrowReader to the end. Cold = after one take per handle (Lance"
                + " reads and caches its file metadata lazily at the first take; the other peers"
                + " load theirs at open), rounds of `sync; echo 3 > /proc/sys/vm/drop_caches` and"
                + " ONE take per handle, only the takes timed, until those seconds or %d rounds;"
                + " warm = every dataset file read once, then one take per handle, then takes for"
                + " those seconds. Scan = `newScan(columns).scanBatches()`, one thread. `syscr/row`"
                + " and `disk B/row` come from /proc/self/io (read syscalls and `read_bytes`; Lance's native"
                + " threads belong to the same process).\n\n",
            take,
            seed,
            seconds,
            TakeHarness.COLD_ROUNDS));
    s.append(
        "Datasets: written once from Compare's Arrow IPC files by Arrow Java 15 `ArrowFileReader` →"
            + " `Data.exportArrayStream` → `Dataset.create(allocator, stream, path, "
            + "WriteParams(mode=OVERWRITE"
            + (fileVersion == null ? "" : ", dataStorageVersion=" + fileVersion)
            + "))`, otherwise lance-core defaults"
            + (fileVersion == null ? " (data storage version, " : " (")
            + "rows per file and per group); the data files' footer version is in the Sizes table."
            + " Each was checked with one take of the seed -1 indices against the IPC file, value"
            + " by value: "
            + (notes.isEmpty() ? "all equal" : "see Notes")
            + ".\n\n");
    s.append("**Caveat:** the Riffle figures come from a different run (")
        .append(riffle == null ? "-" : riffle.path("date").asText())
        .append(
            ") than Lance's, on a shared, noisy 2-vCPU machine (other sessions' builds run "
                + "beside it); each figure is one measurement. Read the ratios as rough. As in the "
                + "Riffle run, buffered \"cold\" is only cold at the start of each measurement: "
                + "readahead refills the page cache during it (see disk B/row).\n\n");
    if (!notes.isEmpty()) {
      s.append("## Notes\n\n");
      for (String n : notes) {
        s.append("- ").append(n).append('\n');
      }
      s.append('\n');
    }
    s.append(
        "## Sizes\n\n"
            + "| type | rows | Lance bytes | data files | footer version | IPC bytes | Riffle bytes"
            + " | Lance / Riffle |\n"
            + "|---|---:|---:|---:|---|---:|---:|---:|\n");
    for (String type : datasets.keySet()) {
      Map<String, Object> d = datasets.get(type);
      long rb =
          riffle == null ? -1 : riffle.path("file_bytes").path(type).path("riffle").asLong(-1);
      long lb = (Long) d.get("bytes");
      s.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %,d | %d | %s | %,d | %s | %s |\n",
              type,
              rowCounts.get(type),
              lb,
              (Integer) d.get("data_files"),
              d.get("file_format_version"),
              (Long) d.get("ipc_bytes"),
              rb < 0 ? "-" : String.format(Locale.ROOT, "%,d", rb),
              rb <= 0 ? "-" : String.format(Locale.ROOT, "%.2f", lb / (double) rb)));
    }
    s.append("\n## Riffle ÷ Lance, rows/s (target: Riffle random take ≥ 1.3× Lance, cold)\n\n");
    s.append(
        "`riffle` = C threads each with its own handle, buffered reads (the same protocol as "
            + "Lance here); `riffle-direct` = the same with O_DIRECT (the only truly cold column); "
            + "`riffle-engine` = one thread keeping C reads in flight.\n\n");
    s.append(
        "| op | type | cache | C | Lance rows/s | Riffle rows/s | riffle ÷ lance |"
            + " riffle-direct ÷ lance | riffle-engine ÷ lance | ≥ 1.3× |\n"
            + "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (Map<String, Object> x : ratios()) {
      Double ratio = (Double) x.get("riffle_over_lance");
      boolean take = x.get("op").equals("take");
      s.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %d | %,.0f | %s | %s | %s | %s | %s |\n",
              x.get("op"),
              x.get("type"),
              x.get("cache"),
              (Integer) x.get("concurrency"),
              (Double) x.get("lance_rows_per_s"),
              fmt0((Double) x.get("riffle_rows_per_s")),
              fmt2(ratio),
              fmt2((Double) x.get("riffle-direct_over_lance")),
              fmt2((Double) x.get("riffle-engine_over_lance")),
              !take || ratio == null ? "" : ratio >= 1.3 ? "yes" : "**no**"));
    }
    s.append(
        "\n"
            + "## Lance measurements\n\n"
            + "| op | type | cache | C | rows/s | takes | seconds | disk B/row | syscr/row |"
            + " rchar/row |\n"
            + "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map<String, Object> r : results) {
      s.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %d | %,.0f | %s | %.2f | %,.0f | %.3f | %,.0f |\n",
              r.get("op"),
              r.get("type"),
              r.get("cache"),
              (Integer) r.get("concurrency"),
              (Double) r.get("rows_per_s"),
              r.containsKey("takes") ? r.get("takes") : "-",
              (Double) r.get("seconds"),
              (Double) r.get("disk_bytes_per_row"),
              (Double) r.get("syscr_per_row"),
              (Double) r.get("rchar_per_row")));
    }
    return s.toString();
  }

  static String fmt0(Double d) {
    return d == null ? "-" : String.format(Locale.ROOT, "%,.0f", d);
  }

  static String fmt2(Double d) {
    return d == null ? "-" : String.format(Locale.ROOT, "%.2f", d);
  }

  String commandLine() {
    return "java -Xmx12g --add-opens=java.base/java.nio=ALL-UNNAMED -cp"
        + " benchmarks/lance/target/riffle-lance-bench.jar:$(cat"
        + " benchmarks/lance/target/classpath.txt) dev.riffle.bench.lance."
        + command;
  }

  static void log(String s) {
    Reports.log(s);
  }
}
