package dev.riffle.bench.harness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/** The kernel's page cache: dropped for cold measurements, filled for warm ones. */
public interface PageCache {
  /**
   * {@code sync; echo 3 > /proc/sys/vm/drop_caches}; false where that is not allowed (not root).
   */
  boolean drop();

  /** Reads a file, or every file under a directory, once, so that a warm run finds it cached. */
  void warm(Path path) throws IOException;

  /** This machine's page cache. */
  PageCache SYSTEM =
      new PageCache() {
        @Override
        public boolean drop() {
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

        @Override
        public void warm(Path path) throws IOException {
          ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
          for (Path f : files(path)) {
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
              long at = 0;
              while (true) {
                b.clear();
                int k = ch.read(b, at);
                if (k < 0) {
                  break;
                }
                at += k;
              }
            }
          }
        }
      };

  /** The file itself, or the regular files under a directory in name order. */
  static List<Path> files(Path path) throws IOException {
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    try (Stream<Path> s = Files.walk(path)) {
      return s.filter(Files::isRegularFile).sorted().toList();
    }
  }
}
