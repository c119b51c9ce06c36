package dev.riffle.loader.pipeline;

import dev.riffle.format.io.SuppressForbidden;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU counters of this process, for the loader's reports and benchmarks: CPU per sample is what a
 * busy shared machine disturbs less than wall time. Each returns -1 where the platform does not
 * tell, so that a report can say "unknown" instead of a zero that reads as free.
 */
public final class ProcessCpu {
  private ProcessCpu() {}

  /** User + system CPU time of this process (all threads) so far, or -1. */
  @SuppressForbidden(
      reason = "process CPU time: the JDK's only API for it; HotSpot and OpenJ9 both provide it")
  public static long processNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** CPU time of the calling thread so far (user + system), or -1. */
  public static long threadNanos() {
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    return t.isCurrentThreadCpuTimeSupported() ? t.getCurrentThreadCpuTime() : -1;
  }

  /**
   * User + system CPU time so far of the live HotSpot JIT compiler threads (Linux: {@code
   * /proc/self/task}), or -1 elsewhere. A fixed cost of a fresh JVM that a long run amortises: on
   * short runs it is a large share of the process's CPU, landing on whichever part of the run it
   * compiled during. Compiler threads that ended are missed (a lower bound); clock-tick resolution
   * (10 ms).
   */
  public static long compilerNanos() {
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return -1;
    }
    long ticks = 0;
    try (Stream<Path> s = Files.list(tasks)) {
      for (Path t : (Iterable<Path>) s::iterator) {
        String stat;
        try {
          stat = Files.readString(t.resolve("stat"));
        } catch (IOException e) {
          continue; // the thread ended meanwhile
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        // HotSpot names them "C1 CompilerThre", "C2 CompilerThre" (the name is cut at 15 bytes).
        if (open < 0
            || close < open
            || !stat.startsWith("C", open + 1)
            || !stat.substring(open + 1, close).contains("Compil")) {
          continue;
        }
        ticks += ticksOf(stat, close);
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return ticks * 10_000_000L; // USER_HZ is 100 on every Linux the JDK supports
  }

  /**
   * Minor page faults of the process so far (Linux: {@code /proc/self/stat}), or -1: each is a
   * fresh 4 KiB page the kernel zeroed, which a run that recycles its buffers avoids.
   */
  public static long minorFaults() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      // After the name: state (field 3), ppid, pgrp, session, tty, tpgid, flags, minflt (10).
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[7]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** utime + stime (fields 14 and 15) of a /proc stat line whose name ends at {@code close}. */
  private static long ticksOf(String stat, int close) {
    String[] f = stat.substring(close + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
