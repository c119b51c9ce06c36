package dev.riffle.djl;

/** CPU time of the process, for measurements that a busy machine disturbs less than wall time. */
final class Cpu {
  private Cpu() {}

  /** User + system CPU time of this process (all threads) so far, or 0 if unknown. */
  @dev.riffle.format.io.SuppressForbidden(
      reason = "process CPU time: the JDK's only API for it; HotSpot and OpenJ9 both provide it")
  static long processNanos() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return 0;
  }

  /** CPU time of the calling thread so far (user + system), or 0 if unknown. */
  @dev.riffle.format.io.SuppressForbidden(reason = "thread CPU time: the JDK's only API for it")
  static long threadNanos() {
    java.lang.management.ThreadMXBean t = java.lang.management.ManagementFactory.getThreadMXBean();
    return t.isCurrentThreadCpuTimeSupported() ? t.getCurrentThreadCpuTime() : 0;
  }

  /**
   * CPU time so far of the JIT compiler threads (Linux: {@code /proc/self/task}; 0 elsewhere), to
   * take out of the process's: on short benchmark runs C2 was a quarter of all the CPU, landing on
   * whichever run it happened to compile during. Clock-tick resolution (10 ms).
   */
  static long compilerNanos() {
    java.nio.file.Path tasks = java.nio.file.Path.of("/proc/self/task");
    if (!java.nio.file.Files.isDirectory(tasks)) {
      return 0;
    }
    long ticks = 0;
    try (java.util.stream.Stream<java.nio.file.Path> ts = java.nio.file.Files.list(tasks)) {
      for (java.nio.file.Path t : (Iterable<java.nio.file.Path>) ts::iterator) {
        String stat;
        try {
          stat = java.nio.file.Files.readString(t.resolve("stat"));
        } catch (java.io.IOException e) {
          continue; // the thread ended meanwhile
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open || !stat.substring(open + 1, close).contains("CompilerThre")) {
          continue;
        }
        // After the name: state (field 3), ..., utime (14), stime (15).
        String[] f = stat.substring(close + 2).split(" ");
        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
      }
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
    return ticks * 10_000_000L; // USER_HZ is 100 on Linux
  }

  /**
   * Minor page faults of the process so far (Linux: {@code /proc/self/stat}; 0 elsewhere): each is
   * a fresh 4 KiB page the kernel zeroed, which a run that recycles its buffers avoids.
   */
  static long minorFaults() {
    try {
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
      // After the name: state (field 3), ppid, pgrp, session, tty, tpgid, flags, minflt (10).
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[7]);
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
  }
}
