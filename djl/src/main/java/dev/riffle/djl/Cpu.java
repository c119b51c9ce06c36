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
}
