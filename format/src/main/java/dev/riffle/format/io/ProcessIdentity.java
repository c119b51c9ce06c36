package dev.riffle.format.io;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * Who a process is, well enough for another process to tell later whether it still runs: leases and
 * temporary files record it so that cleanup can remove what a killed writer left at once, instead
 * of waiting for a timeout.
 *
 * <p>A pid means something only on the machine, boot and pid namespace that gave it: two containers
 * may share a host name but not their pids, and after a reboot every pid is new. So a pid is judged
 * only when {@link #host} and {@link #machine} (boot id and pid namespace) both equal this
 * process's; otherwise the answer is {@link Liveness#UNKNOWN} and callers fall back to age. A pid
 * that was reused is told apart by its start instant.
 *
 * @param host the host name
 * @param machine the Linux boot id and pid namespace, or empty where they cannot be read (then no
 *     pid is ever judged)
 * @param pid the process id
 * @param start when the process started, or null if unknown
 */
public record ProcessIdentity(String host, String machine, long pid, Instant start) {
  /** Start instants of one process, read at different times, differ by rounding only. */
  private static final Duration START_TOLERANCE = Duration.ofSeconds(2);

  private static final ProcessIdentity CURRENT = probe();

  /** Whether a recorded process still runs, as far as this process can tell. */
  public enum Liveness {
    /** It runs (or its pid is taken by a process that started before the evidence). */
    ALIVE,
    /** It is gone: no process has its pid, or the one that has it started later. */
    GONE,
    /** Another machine, boot or container: this process cannot tell. */
    UNKNOWN
  }

  /** This process. */
  public static ProcessIdentity current() {
    return CURRENT;
  }

  /**
   * Whether this process could judge {@link #pid}: same host name, boot and pid namespace, and both
   * known.
   */
  public boolean sameMachine() {
    return !machine.isEmpty() && machine.equals(CURRENT.machine) && host.equals(CURRENT.host);
  }

  /** Whether the process still runs, judged by its pid and start instant. */
  public Liveness liveness() {
    if (!sameMachine()) {
      return Liveness.UNKNOWN;
    }
    Optional<ProcessHandle> h = ProcessHandle.of(pid);
    if (h.isEmpty() || !h.get().isAlive()) {
      return Liveness.GONE;
    }
    Optional<Instant> started = h.get().info().startInstant();
    if (start != null && started.isPresent()) {
      Duration d = Duration.between(start, started.get()).abs();
      return d.compareTo(START_TOLERANCE) <= 0 ? Liveness.ALIVE : Liveness.GONE;
    }
    return Liveness.ALIVE;
  }

  /**
   * Whether the process {@code pid} of this machine could have written a file last modified at
   * {@code modified}: false if no such process runs, or if the one that runs started after it (the
   * pid was reused).
   */
  public static Liveness livenessAt(long pid, Instant modified) {
    Optional<ProcessHandle> h = ProcessHandle.of(pid);
    if (h.isEmpty() || !h.get().isAlive()) {
      return Liveness.GONE;
    }
    Optional<Instant> started = h.get().info().startInstant();
    if (started.isPresent() && started.get().isAfter(modified.plus(START_TOLERANCE))) {
      return Liveness.GONE;
    }
    return Liveness.ALIVE;
  }

  /**
   * Eight hex digits standing for {@link #host} and {@link #machine}, short enough for a file name:
   * equal tags mean (with overwhelming odds) the same machine, boot and pid namespace.
   */
  public String machineTag() {
    CRC32C crc = new CRC32C();
    crc.update((host + "\n" + machine).getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().toHexDigits((int) crc.getValue());
  }

  private static ProcessIdentity probe() {
    ProcessHandle self = ProcessHandle.current();
    String boot = readFirstLine(Path.of("/proc/sys/kernel/random/boot_id"));
    String pidNamespace;
    try {
      pidNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      pidNamespace = "";
    }
    String machine = boot.isEmpty() || pidNamespace.isEmpty() ? "" : boot + "/" + pidNamespace;
    return new ProcessIdentity(
        hostName(), machine, self.pid(), self.info().startInstant().orElse(null));
  }

  private static String hostName() {
    // The kernel's name first: InetAddress may ask DNS, which can take seconds.
    String name = readFirstLine(Path.of("/proc/sys/kernel/hostname"));
    if (!name.isEmpty()) {
      return name;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String readFirstLine(Path p) {
    try {
      String s = Files.readString(p, StandardCharsets.UTF_8).strip();
      int nl = s.indexOf('\n');
      return nl < 0 ? s : s.substring(0, nl);
    } catch (IOException | SecurityException e) {
      return "";
    }
  }
}
