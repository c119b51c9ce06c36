package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.loader.pipeline.ProcessCpu;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The process's CPU time and its JIT compiler threads' share, marked at the start of a load and at
 * the end of each epoch: the first epoch of a fresh JVM carries the compiler and the first touches
 * of the loader's memory, which a long run amortises, so the later epochs are what a sample costs
 * once warm. Fetches read ahead for the next epoch count in the epoch during which they ran.
 */
final class EpochCpu {
  private final long[] cpu;
  private final long[] jit;
  private int marked;
  private long endCpu = -1;
  private long endJit = -1;

  /** Marks the start (now) of a run of {@code epochs} epochs. */
  EpochCpu(long epochs) {
    int n = (int) Math.min(epochs, 100_000) + 1;
    cpu = new long[n];
    jit = new long[n];
    mark();
  }

  /** Marks the end of the next epoch (ignored past the last). */
  void mark() {
    if (marked < cpu.length) {
      cpu[marked] = ProcessCpu.processNanos();
      jit[marked] = ProcessCpu.compilerNanos();
      marked++;
    }
  }

  /**
   * Marks the end of the run: the end of its last epoch where every epoch was marked (so that the
   * epochs add up to the run), else now (a run cut short, or past the epochs kept).
   */
  void finish() {
    boolean all = marked == cpu.length;
    endCpu = all ? cpu[marked - 1] : ProcessCpu.processNanos();
    endJit = all ? jit[marked - 1] : ProcessCpu.compilerNanos();
  }

  /** Process CPU from the start to {@link #finish}, nanoseconds, or -1 if unknown. */
  long totalNanos() {
    return cpu[0] < 0 || endCpu < 0 ? -1 : endCpu - cpu[0];
  }

  /**
   * JIT compiler threads' CPU from the start to {@link #finish}, nanoseconds (between 0 and {@link
   * #totalNanos}: see {@link #jitPerSample}), or -1.
   */
  long jitNanos() {
    return jit[0] < 0 || endJit < 0
        ? -1
        : Math.max(0, Math.min(endJit - jit[0], Math.max(0, totalNanos())));
  }

  /**
   * Per epoch, with {@code rows[e]} the samples of epoch e: {@code epochCpu} in the JSON report,
   * one object per marked epoch with its CPU and JIT microseconds per sample.
   */
  void putInto(ObjectNode report, long[] rows) {
    if (cpu[0] < 0) {
      return;
    }
    ArrayNode a = report.putArray("epochCpu");
    for (int e = 0; e + 1 < marked && e < rows.length; e++) {
      ObjectNode o = a.addObject();
      o.put("epoch", e);
      o.put("cpuMicrosPerSample", perSample(cpu, e, rows[e]));
      if (jit[0] >= 0) {
        o.put("jitCpuMicrosPerSample", jitPerSample(e, rows[e]));
      }
    }
  }

  /**
   * The text line for two epochs or more (null otherwise): each epoch's CPU per sample, or for more
   * than eight epochs the first and the median and range of the others.
   */
  String line(long[] rows) {
    int n = Math.min(marked - 1, rows.length);
    if (cpu[0] < 0 || n < 2) {
      return null;
    }
    double[] c = new double[n];
    double[] j = new double[n];
    for (int e = 0; e < n; e++) {
      c[e] = perSample(cpu, e, rows[e]);
      j[e] = jit[0] < 0 ? Double.NaN : jitPerSample(e, rows[e]);
    }
    String jitPart;
    String cpuPart;
    if (n <= 8) {
      cpuPart = join(c);
      jitPart = join(j);
    } else {
      double[] rest = Arrays.copyOfRange(c, 1, n);
      double[] restJit = Arrays.copyOfRange(j, 1, n);
      cpuPart = String.format(Locale.ROOT, "%.1f, then %s", c[0], spread(rest, 2));
      jitPart = String.format(Locale.ROOT, "%.1f, then %s", j[0], spread(restJit, 2));
    }
    return "CPU per epoch: "
        + cpuPart
        + " us/sample"
        + (jit[0] < 0 ? "" : " (of which JIT compiler " + jitPart + ")");
  }

  /**
   * The compiler threads' share of epoch e, between 0 and the epoch's whole CPU. Both counts come
   * in the kernel's 10 ms ticks, read at slightly different moments, so on a short epoch a tick can
   * land on the wrong side of a mark; and the sum over live compiler threads drops when HotSpot
   * retires an idle one, which would read as negative compiler time.
   */
  private double jitPerSample(int e, long rows) {
    return Math.max(0, Math.min(perSample(jit, e, rows), perSample(cpu, e, rows)));
  }

  private static double perSample(long[] marks, int e, long rows) {
    return rows == 0 ? 0 : (marks[e + 1] - marks[e]) / 1e3 / rows;
  }

  private static String join(double[] v) {
    return Arrays.stream(v)
        .mapToObj(x -> String.format(Locale.ROOT, "%.1f", x))
        .collect(Collectors.joining(", "));
  }

  /** "median M (L to H) over epochs F to T" of {@code v}, the epochs from {@code first} on. */
  private static String spread(double[] v, int first) {
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    return String.format(
        Locale.ROOT,
        "median %.1f (%.1f to %.1f) over epochs %d to %d",
        median,
        s[0],
        s[n - 1],
        first,
        first + n - 1);
  }

  /** The samples of each epoch from the loader's per-epoch metrics. */
  static long[] rowsOf(List<dev.riffle.loader.pipeline.LoaderMetrics> epochs) {
    return epochs.stream().mapToLong(dev.riffle.loader.pipeline.LoaderMetrics::rows).toArray();
  }
}
