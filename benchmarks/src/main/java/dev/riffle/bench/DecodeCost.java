package dev.riffle.bench;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The CPU cost of warm takes and scans of one Riffle file, in one thread: rows/s, CPU nanoseconds
 * per row (thread CPU time, user and system, so page faults and page clearing count) and Arrow
 * buffers allocated and released per batch (a released buffer during a batch is a buffer grown by
 * reallocation). CPU time per row is what a loaded, shared machine distorts least, so it is the
 * figure to compare builds with (run them alternately on the same file).
 *
 * <pre>
 * java -Xmx4g --add-opens=java.base/java.nio=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.riffle.bench.DecodeCost FILE [SECONDS=5] [TAKE=256] [SCAN_BATCH_ROWS=0] [FIELDS=FIRST|all|a,b,...]
 * </pre>
 *
 * <p>{@code fields} names the fields read (default the first; {@code all} for every field; a column
 * group's fields are decoded from one record, so reading all of them shows its full cost).
 */
@Command(
    name = "DecodeCost",
    mixinStandardHelpOptions = true,
    description = {
      "Warm takes and scans of one Riffle file in one thread: rows/s, CPU ns per row and Arrow"
          + " buffers allocated and released per batch, after one second of warm-up."
    })
public final class DecodeCost implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FILE", description = "A Riffle file.")
  Path file;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "SECONDS",
      defaultValue = "5",
      description = "Seconds of takes, then of scans (default: ${DEFAULT-VALUE}).")
  double seconds;

  @Parameters(
      index = "2",
      arity = "0..1",
      paramLabel = "TAKE",
      defaultValue = "256",
      description = "Rows per take (default: ${DEFAULT-VALUE}).")
  int take;

  @Parameters(
      index = "3",
      arity = "0..1",
      paramLabel = "SCAN_BATCH_ROWS",
      defaultValue = "0",
      description = "Rows per scan batch; 0: about 4 MiB a batch (default: ${DEFAULT-VALUE}).")
  int batch;

  @Parameters(
      index = "4",
      arity = "0..1",
      paramLabel = "FIELDS",
      defaultValue = "",
      description = "all, or a,b,...: the fields read (default: the first).")
  String fields;

  public static void main(String[] args) {
    System.exit(new CommandLine(new DecodeCost()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    int batch = this.batch;
    String fieldsArg = fields;
    AtomicLong allocations = new AtomicLong();
    AtomicLong releases = new AtomicLong();
    AllocationListener listener =
        new AllocationListener() {
          @Override
          public void onAllocation(long size) {
            allocations.incrementAndGet();
          }

          @Override
          public void onRelease(long size) {
            releases.incrementAndGet();
          }
        };
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    try (BufferAllocator allocator = new RootAllocator(listener, Long.MAX_VALUE);
        FileReader reader = FileReader.open(file, allocator)) {
      reader.loadColumns(null);
      long rows = reader.rowCount();
      List<String> field;
      if (fieldsArg.equals("all")) {
        field = null;
      } else if (!fieldsArg.isEmpty()) {
        field = List.of(fieldsArg.split(","));
      } else {
        field = List.of(reader.arrowSchema().getFields().get(0).getName());
      }
      if (batch == 0) {
        batch =
            (int)
                Math.max(1, Math.min(65_536, (4L << 20) / Math.max(1, reader.byteLength() / rows)));
      }
      // Warm the page cache and the JIT.
      run(reader, field, rows, take, batch, 1.0, allocations, releases, mx, false);
      run(reader, field, rows, take, batch, seconds, allocations, releases, mx, true);
    }
    return 0;
  }

  private static void run(
      FileReader reader,
      List<String> field,
      long rows,
      int take,
      int batch,
      double seconds,
      AtomicLong allocations,
      AtomicLong releases,
      ThreadMXBean mx,
      boolean print)
      throws Exception {
    SplittableRandom rng = new SplittableRandom(7);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long n = 0;
    long batches = 0;
    allocations.set(0);
    releases.set(0);
    long cpu0 = mx.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    while (System.nanoTime() < end) {
      long[] idx = rng.longs(take, 0, rows).toArray();
      try (VectorSchemaRoot r = reader.take(idx, field)) {
        n += r.getRowCount();
      }
      batches++;
    }
    long cpu = mx.getCurrentThreadCpuTime() - cpu0;
    double wall = (System.nanoTime() - t0) / 1e9;
    if (print) {
      System.out.printf(
          Locale.ROOT,
          "take  %d rows/s  %.0f cpu ns/row  %.2f allocations/batch  %.2f releases/batch%n",
          (long) (n / wall),
          cpu / (double) n,
          allocations.get() / (double) batches,
          releases.get() / (double) batches);
    }
    end = System.nanoTime() + (long) (seconds * 1e9);
    n = 0;
    batches = 0;
    allocations.set(0);
    releases.set(0);
    cpu0 = mx.getCurrentThreadCpuTime();
    t0 = System.nanoTime();
    while (System.nanoTime() < end) {
      try (ScanCursor c = reader.scan(field, batch)) {
        while (System.nanoTime() < end) {
          VectorSchemaRoot b = c.next();
          if (b == null) {
            break;
          }
          n += b.getRowCount();
          batches++;
          b.close();
        }
      }
    }
    cpu = mx.getCurrentThreadCpuTime() - cpu0;
    wall = (System.nanoTime() - t0) / 1e9;
    if (print) {
      System.out.printf(
          Locale.ROOT,
          "scan  %d rows/s  %.0f cpu ns/row  %.2f allocations/batch  %.2f releases/batch"
              + "  (batch %d rows)%n",
          (long) (n / wall),
          cpu / (double) n,
          allocations.get() / (double) batches,
          releases.get() / (double) batches,
          batch);
    }
  }
}
