package dev.riffle.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * /proc/self/io: bytes and read calls of this process (every thread, native ones included), page
 * cache hits and disk reads apart.
 */
public final class ProcIo {
  /** Bytes read by read calls, from the page cache or not. */
  public final long rchar;

  /** Read calls. */
  public final long syscr;

  /** Bytes this process made the block layer read (readahead included). */
  public final long readBytes;

  private ProcIo(long rchar, long syscr, long readBytes) {
    this.rchar = rchar;
    this.syscr = syscr;
    this.readBytes = readBytes;
  }

  public static ProcIo now() {
    long rchar = -1;
    long syscr = -1;
    long readBytes = -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        String[] kv = line.split(":\\s*");
        long v = Long.parseLong(kv[1].trim());
        switch (kv[0]) {
          case "rchar":
            rchar = v;
            break;
          case "syscr":
            syscr = v;
            break;
          case "read_bytes":
            readBytes = v;
            break;
          default:
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux: the figures stay unknown (-1).
    }
    return new ProcIo(rchar, syscr, readBytes);
  }

  public ProcIo minus(ProcIo before) {
    return new ProcIo(rchar - before.rchar, syscr - before.syscr, readBytes - before.readBytes);
  }

  public ProcIo plus(ProcIo other) {
    return new ProcIo(rchar + other.rchar, syscr + other.syscr, readBytes + other.readBytes);
  }

  /** Puts {@code syscr_per_row}, {@code rchar_per_row} and {@code disk_bytes_per_row}. */
  public void putPerRow(Map<String, Object> r, long rows) {
    double n = Math.max(1, rows);
    r.put("syscr_per_row", syscr / n);
    r.put("rchar_per_row", rchar / n);
    r.put("disk_bytes_per_row", readBytes / n);
  }
}
