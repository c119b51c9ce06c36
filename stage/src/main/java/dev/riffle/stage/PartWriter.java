package dev.riffle.stage;

import com.sun.nio.file.ExtendedOpenOption;
import dev.riffle.format.io.FileSource;
import dev.riffle.format.io.IoEngine;
import dev.riffle.format.io.SuppressForbidden;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Positional writes of parts into one temporary file, with O_DIRECT where the file system allows
 * it: the aligned bulk of each part goes from an aligned buffer straight to the disk, so the kernel
 * neither copies it into the page cache nor writes it back later (on a CPU-bound node that copy
 * costs more than hashing the part). The unaligned tail of the last part, and every write where
 * O_DIRECT is refused (tmpfs) or off, go through the ordinary channel. Both channels are on the
 * same file, so the final {@code force} covers both.
 */
final class PartWriter implements Closeable {
  private final FileChannel buffered;
  private final FileChannel directChannel;

  /** The O_DIRECT channel while it works; null once a write was refused (or from the start). */
  private volatile FileChannel direct;

  private final int align;
  private final Aligned buffers;

  private PartWriter(FileChannel buffered, FileChannel direct, int align, Aligned buffers) {
    this.buffered = buffered;
    this.directChannel = direct;
    this.direct = direct;
    this.align = align;
    this.buffers = buffers;
  }

  /**
   * @param buffered the temporary file's ordinary channel (not closed by this writer)
   * @param buffers aligned buffers shared by the stage, or null for no O_DIRECT
   */
  @SuppressForbidden(
      reason = "O_DIRECT has no portable option; where it is refused, writes buffered")
  static PartWriter open(Path temp, FileChannel buffered, Aligned buffers) {
    if (buffers == null) {
      return new PartWriter(buffered, null, 1, null);
    }
    try {
      FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
      return new PartWriter(buffered, ch, buffers.align, buffers);
    } catch (IOException | UnsupportedOperationException e) {
      // tmpfs and some overlay file systems refuse O_DIRECT: the page cache it is.
      return new PartWriter(buffered, null, 1, null);
    }
  }

  /** Whether parts go around the page cache. */
  boolean isDirect() {
    return direct != null;
  }

  /** Writes {@code data} (position to limit, left unchanged) at {@code offset}. */
  void write(ByteBuffer data, long offset) throws IOException {
    int n = data.remaining();
    FileChannel d = direct;
    int head = d != null && offset % align == 0 ? n & -align : 0;
    if (head > 0) {
      ByteBuffer a = buffers.take();
      try {
        a.clear();
        a.put(data.duplicate().limit(data.position() + head)).flip();
        long at = offset;
        while (a.hasRemaining()) {
          at += d.write(a, at);
        }
      } catch (IOException e) {
        // Some file systems open with O_DIRECT and refuse the writes: write this part, and the
        // rest, through the page cache (a full disk fails there too, with its own message).
        direct = null;
        head = 0;
      } finally {
        buffers.giveBack(a);
      }
    }
    ByteBuffer tail = data.duplicate().position(data.position() + head);
    long at = offset + head;
    while (tail.hasRemaining()) {
      at += buffered.write(tail, at);
    }
  }

  @Override
  public void close() throws IOException {
    if (directChannel != null) {
      directChannel.close();
    }
  }

  /** Aligned direct buffers of one part each, reused across the parts and files of a stage. */
  static final class Aligned {
    private final int bytes;
    private final int align;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();

    /** For parts of {@code partBytes} written into files under {@code dir}. */
    Aligned(int partBytes, Path dir) {
      int a = FileSource.DIRECT_ALIGNMENT;
      try {
        long block = Files.getFileStore(dir).getBlockSize();
        if (block > a && Long.bitCount(block) == 1 && block <= (1 << 20)) {
          a = (int) block;
        }
      } catch (IOException | UnsupportedOperationException e) {
        // Keep 4096; a file system that needs more refuses the first write, which then fails.
      }
      this.align = a;
      this.bytes = partBytes;
    }

    ByteBuffer take() {
      ByteBuffer b = free.poll();
      return b != null ? b : IoEngine.allocateAligned(bytes, align);
    }

    void giveBack(ByteBuffer b) {
      free.add(b);
    }
  }
}
