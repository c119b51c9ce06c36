package dev.riffle.bench;

import dev.riffle.bench.harness.PageCache;
import dev.riffle.bench.harness.Spread;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.ScanCursor;
import java.nio.file.Path;
import java.util.ArrayList;
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
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * Full scans of one Riffle file under several read policies, interleaved round by round in one JVM,
 * so that a busy shared machine affects every policy alike: per policy the MB/s of each round (the
 * first round warms the JIT and is not counted), the median, and the reads the scan made
 * (ReadStats). With two policies it also prints the per-round ratio second/first. Cold rounds drop
 * the page cache before each scan (root only).
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.riffle.bench.ScanSweep cold|warm ROUNDS FILE POLICY...
 * </pre>
 *
 * <p>POLICY is {@code default} (the cursor's own policy) or {@code READS:BYTES}, passed to {@link
 * ScanCursor#readAhead(int, long)} ({@code 4:1} is one page per read, four ahead: the policy before
 * reads were coalesced). The file name starts with the {@link Types} type, which sets the batch
 * rows as in {@link Compare}.
 */
@Command(
    name = "ScanSweep",
    mixinStandardHelpOptions = true,
    description = {
      "Full scans of one Riffle file under several read policies, interleaved round by round;"
          + " prints MB/s per round and the median per policy, and with two policies the ratio"
          + " per round. The first round warms the JIT and is not counted."
    })
public final class ScanSweep implements Callable<Integer> {
  @Parameters(
      index = "0",
      paramLabel = "cold|warm",
      description = "cold drops the page cache before each scan (root); warm reads the file first.")
  String cache;

  @Parameters(index = "1", paramLabel = "ROUNDS", description = "Rounds of every policy.")
  int rounds;

  @Parameters(
      index = "2",
      paramLabel = "FILE",
      description = "A Riffle file whose name starts with its type (as Compare names them).")
  Path file;

  @Parameters(
      index = "3..*",
      arity = "1..*",
      paramLabel = "POLICY",
      description = "default, or READS:BYTES for ScanCursor.readAhead (4:1: one page a read).")
  List<String> policies;

  public static void main(String[] args) {
    System.exit(new CommandLine(new ScanSweep()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (!cache.equals("cold") && !cache.equals("warm")) {
      throw new ParameterException(
          new CommandLine(this), "the first argument is cold or warm, not " + cache);
    }
    String type = file.getFileName().toString().split("-")[0];
    int batch = Types.batchRows(type);
    if (cache.equals("cold") && !PageCache.SYSTEM.drop()) {
      throw new IllegalStateException("cannot drop the page cache (not root?)");
    }
    Map<String, List<Double>> mbs = new LinkedHashMap<>();
    Map<String, String> reads = new LinkedHashMap<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      for (int r = 0; r < rounds; r++) {
        for (String policy : policies) {
          try (FileReader reader = FileReader.open(file, allocator)) {
            reader.loadColumns(null);
            if (cache.equals("cold")) {
              PageCache.SYSTEM.drop();
            } else {
              PageCache.SYSTEM.warm(file);
            }
            reader.stats().reset();
            long t0 = System.nanoTime();
            long rows = scan(reader, batch, policy);
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (rows != reader.rowCount()) {
              throw new IllegalStateException("scanned " + rows + " of " + reader.rowCount());
            }
            if (r > 0 || rounds == 1) {
              mbs.computeIfAbsent(policy, k -> new ArrayList<>())
                  .add(reader.byteLength() / seconds / 1e6);
            }
            ReadStats s = reader.stats();
            reads.put(
                policy,
                String.format(
                    Locale.ROOT,
                    "%d reads, %,d B/read",
                    s.reads(),
                    s.bytesRead() / Math.max(1, s.reads())));
          }
        }
      }
    }
    List<String> measured = new ArrayList<>(mbs.keySet());
    for (String p : measured) {
      System.out.printf(
          Locale.ROOT,
          "%s %s %-16s %-28s median %6.0f MB/s  rounds %s%n",
          type,
          cache,
          p,
          reads.get(p),
          Spread.median(mbs.get(p)),
          Spread.rounds(mbs.get(p)));
    }
    if (measured.size() == 2) {
      List<Double> ratio = Spread.ratios(mbs.get(measured.get(0)), mbs.get(measured.get(1)));
      System.out.printf(
          Locale.ROOT,
          "%s %s %s / %s per round: median %.2f  rounds %s%n",
          type,
          cache,
          measured.get(1),
          measured.get(0),
          Spread.median(ratio),
          Spread.rounds(ratio));
    }
    return 0;
  }

  private static long scan(FileReader reader, int batch, String policy) throws Exception {
    ScanCursor cursor = reader.scan(null, batch);
    if (!policy.equals("default")) {
      String[] p = policy.split(":");
      cursor.readAhead(Integer.parseInt(p[0]), Long.parseLong(p[1]));
    }
    long rows = 0;
    try (ScanCursor c = cursor) {
      for (VectorSchemaRoot b = c.next(); b != null; b = c.next()) {
        rows += b.getRowCount();
        b.close();
      }
    }
    return rows;
  }
}
