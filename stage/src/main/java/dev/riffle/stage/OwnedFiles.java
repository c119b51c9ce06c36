package dev.riffle.stage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Files named {@code <pid>.<random><suffix>} that mean something only while process {@code pid}
 * lives: {@link CacheLease leases} and {@link CachePlan plans}. The kernel tells whether a pid is
 * alive, so a crash or a kill needs no timeout: the next reader deletes what the dead left.
 * Processes sharing a cache must therefore share a pid namespace (one host, not separate
 * containers); a reused pid only keeps a file meaningful longer than needed.
 */
final class OwnedFiles {
  private OwnedFiles() {}

  /** A fresh name in {@code dir} owned by this process (the file is not created). */
  static Path newName(Path dir, String suffix) {
    return dir.resolve(
        ProcessHandle.current().pid()
            + "."
            + Long.toHexString(ThreadLocalRandom.current().nextLong())
            + suffix);
  }

  /** The pid in a file's name, or -1 if the name does not start with one. */
  static long owner(Path file) {
    String name = file.getFileName().toString();
    int dot = name.indexOf('.');
    try {
      return dot > 0 ? Long.parseLong(name.substring(0, dot)) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Whether the process named in the file's name is running. */
  static boolean ownerAlive(Path file) {
    long pid = owner(file);
    return pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /**
   * The files in {@code dir} matching {@code glob} whose owner is alive; those of dead (or unnamed)
   * owners are deleted.
   */
  static List<Path> live(Path dir, String glob) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob)) {
      for (Path p : ds) {
        if (ownerAlive(p)) {
          out.add(p);
        } else {
          Files.deleteIfExists(p);
        }
      }
    }
    return out;
  }
}
