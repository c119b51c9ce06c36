package dev.riffle.bench.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.Map;

/** What every report states the same way: the machine, the date, the command, the JSON file. */
public final class Reports {
  private Reports() {}

  /** Cores, RAM, OS, Java, host name and CPU model, as far as this machine tells them. */
  public static String machine() {
    StringBuilder s = new StringBuilder();
    s.append(Runtime.getRuntime().availableProcessors()).append(" cores, ");
    s.append(String.format(Locale.ROOT, "%.1f GiB RAM", memTotal() / (1024.0 * 1024 * 1024)));
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

  /** MemTotal of /proc/meminfo in bytes, 0 if unknown. */
  public static long memTotal() {
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

  /** {@code DEV=KB}: read_ahead_kb of the first block device that is not a loop or RAM disk. */
  public static String readAhead() {
    try {
      for (Path p : Files.newDirectoryStream(Path.of("/sys/block"))) {
        Path ra = p.resolve("queue/read_ahead_kb");
        String dev = p.getFileName().toString();
        if (Files.exists(ra)
            && !dev.startsWith("loop")
            && !dev.startsWith("zram")
            && !dev.startsWith("ram")) {
          return p.getFileName() + "=" + Files.readString(ra).trim();
        }
      }
    } catch (Exception e) {
      // unknown
    }
    return "unknown";
  }

  /**
   * The opening lines of a Markdown report: title, date, machine (with {@code machineNote} after
   * it, if any) and command.
   */
  public static void header(
      StringBuilder s, String title, ZonedDateTime started, String machineNote, String command) {
    s.append("# ").append(title).append("\n\n");
    s.append("Date: ")
        .append(started.toLocalDate())
        .append(" (started ")
        .append(started)
        .append(")\n\n");
    s.append("Machine: ").append(machine());
    if (machineNote != null) {
      s.append(machineNote);
    }
    s.append("\n\n");
    s.append("Command: `").append(command).append("`\n\n");
  }

  /** Writes {@code doc} as indented JSON. */
  public static void writeJson(Path file, Map<String, Object> doc) throws IOException {
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), doc);
  }

  /** One line on stdout, flushed at once (runs take minutes). */
  public static void log(String s) {
    System.out.println(s);
    System.out.flush();
  }
}
