package dev.riffle.format.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Small local files that must survive a crash whole or not at all: written to a unique temporary
 * sibling and synced, then linked or moved into place by the caller, then the directory synced.
 */
public final class DurableFiles {
  private DurableFiles() {}

  /**
   * Writes {@code content} to a new, uniquely named hidden sibling of {@code target} and syncs it.
   * The caller moves or links it into place and deletes it afterwards if it is still there.
   */
  public static Path writeTemp(Path target, byte[] content) throws IOException {
    Path temp =
        target.resolveSibling(
            "."
                + target.getFileName()
                + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong())
                + ".tmp");
    try (FileChannel ch =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(content);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    return temp;
  }

  /** Makes new directory entries durable (Linux allows fsync on a directory). */
  public static void syncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open directories; the entry is then as durable as they make it.
    }
  }
}
