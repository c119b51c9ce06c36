package dev.riffle.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** /proc/self/io: bytes and read calls of this process, page cache hits and disk reads apart. */
final class ProcIo {
  final long rchar;
  final long syscr;
  final long readBytes;

  private ProcIo(long rchar, long syscr, long readBytes) {
    this.rchar = rchar;
    this.syscr = syscr;
    this.readBytes = readBytes;
  }

  static ProcIo now() {
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

  ProcIo minus(ProcIo before) {
    return new ProcIo(rchar - before.rchar, syscr - before.syscr, readBytes - before.readBytes);
  }

  ProcIo plus(ProcIo other) {
    return new ProcIo(rchar + other.rchar, syscr + other.syscr, readBytes + other.readBytes);
  }

  /** Drops the page cache (root only); false if that is not allowed here. */
  static boolean dropCaches() {
    try {
      new ProcessBuilder("sync").inheritIO().start().waitFor();
      Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3\n");
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
