package dev.riffle.format.io;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A local file read with positional reads ({@code pread}), safe for concurrent use.
 *
 * <p>An interrupt of a reading thread makes the JDK close the channel ({@link
 * ClosedByInterruptException}); this source then reopens the file, so that the interrupted read
 * fails but every other reader, now and later, carries on. Only {@link #close()} closes it for
 * good.
 *
 * <p>{@link #open(Path, boolean)} can bypass the page cache (O_DIRECT). Reads then go to the disk
 * in whole aligned blocks: aligned requests into aligned direct buffers are read in place, any
 * other request through an aligned bounce buffer of the reading thread. If the file system refuses
 * O_DIRECT (tmpfs, some overlay and network file systems) the file is opened normally and {@link
 * #directFallback()} says why.
 */
public final class FileSource implements RandomAccessSource {
  /** The alignment used for O_DIRECT reads when the file store reports a smaller block. */
  public static final int DIRECT_ALIGNMENT = 4096;

  /**
   * The bounce buffer of each reading thread: unaligned direct reads go through it piece by piece.
   */
  static final int BOUNCE_BYTES = 4 << 20;

  private static final ThreadLocal<ByteBuffer> BOUNCE = new ThreadLocal<>();

  private final Path path;
  private final long length;
  private final boolean direct;
  private final int alignment;
  private final String directFallback;
  private final Object reopenLock = new Object();
  private volatile FileChannel channel;
  private volatile boolean closed;

  private FileSource(
      Path path,
      FileChannel channel,
      long length,
      boolean direct,
      int alignment,
      String directFallback) {
    this.path = path;
    this.channel = channel;
    this.length = length;
    this.direct = direct;
    this.alignment = alignment;
    this.directFallback = directFallback;
  }

  /** Opens a file for reading through the page cache. */
  public static FileSource open(Path path) throws IOException {
    return open(path, false);
  }

  /**
   * Opens a file for reading, with O_DIRECT if {@code direct} and the file system allows it
   * (otherwise through the page cache; see {@link #directFallback()}).
   */
  public static FileSource open(Path path, boolean direct) throws IOException {
    requireRegularFile(path);
    String fallback = null;
    if (direct) {
      int align = DIRECT_ALIGNMENT;
      try {
        long block = Files.getFileStore(path).getBlockSize();
        if (block > align && Long.bitCount(block) == 1 && block <= (1 << 20)) {
          align = (int) block;
        }
      } catch (IOException | UnsupportedOperationException e) {
        // Keep the default alignment; opening below says whether O_DIRECT works at all.
      }
      FileChannel ch = null;
      try {
        ch = openChannel(path, true);
        // Some file systems accept the flag at open and refuse the first read.
        ByteBuffer probe = IoEngine.allocateAligned(align, align);
        ch.read(probe, 0);
        return new FileSource(path, ch, ch.size(), true, align, null);
      } catch (IOException | UnsupportedOperationException e) {
        if (ch != null) {
          ch.close();
        }
        if (!Files.isRegularFile(path)) {
          throw e instanceof IOException ? (IOException) e : new IOException(e);
        }
        fallback =
            "O_DIRECT refused for " + path + " (" + e + "); reading through the page cache instead";
        System.getLogger(FileSource.class.getName()).log(System.Logger.Level.WARNING, fallback);
      }
    }
    FileChannel ch = openChannel(path, false);
    try {
      return new FileSource(path, ch, ch.size(), false, 1, fallback);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * Fails unless {@code path} is a regular file (after links): a named pipe opened for reading
   * blocks until something writes to it, and a pipe, device or socket has no offsets to read at.
   *
   * @throws java.nio.file.NoSuchFileException if nothing is there
   * @throws FileSystemException naming the path, if it is something other than a regular file
   */
  public static void requireRegularFile(Path path) throws IOException {
    BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
    if (!a.isRegularFile()) {
      throw new FileSystemException(
          path.toString(),
          null,
          a.isDirectory()
              ? "a directory, not a file"
              : "not a regular file (a named pipe, a device or a socket), so not a file to read");
    }
  }

  @SuppressForbidden(
      reason = "O_DIRECT has no portable option; where it is refused, the caller falls back")
  private static FileChannel openChannel(Path path, boolean direct) throws IOException {
    OpenOption[] options =
        direct
            ? new OpenOption[] {StandardOpenOption.READ, ExtendedOpenOption.DIRECT}
            : new OpenOption[] {StandardOpenOption.READ};
    return FileChannel.open(path, options);
  }

  /** Whether reads bypass the page cache (O_DIRECT). */
  public boolean isDirect() {
    return direct;
  }

  /** Why O_DIRECT was asked for and not used, or null. */
  public String directFallback() {
    return directFallback;
  }

  /** The alignment O_DIRECT reads need (1 when not direct). */
  public int alignment() {
    return alignment;
  }

  @Override
  public boolean prefersDirectBuffers() {
    return true;
  }

  @Override
  public String name() {
    return path.toString();
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    if (offset < 0) {
      throw new IllegalArgumentException("negative position " + offset);
    }
    if (!direct) {
      readAt(offset, dst);
      return;
    }
    int n = dst.remaining();
    if (n == 0) {
      return;
    }
    long mask = alignment - 1;
    if ((offset & mask) == 0
        && (n & mask) == 0
        && dst.isDirect()
        && dst.alignmentOffset(dst.position(), alignment) == 0) {
      readAt(offset, dst);
      return;
    }
    // Through the thread's bounce buffer, at most BOUNCE_BYTES at a time: a large unaligned read
    // (a loader's fetch reads tens of MiB) must not allocate and fault in a buffer of its size.
    long end = offset + n;
    ByteBuffer b = BOUNCE.get();
    if (b == null) {
      b = IoEngine.allocateAligned(BOUNCE_BYTES, alignment);
      BOUNCE.set(b);
    }
    long at = offset;
    while (at < end) {
      long start = at & ~mask;
      long pieceEnd = Math.min(end, start + BOUNCE_BYTES);
      int span = (int) (((pieceEnd + mask) & ~mask) - start);
      b.clear().limit(span);
      // The file may end inside the last block: a short read there is fine as long as it covers
      // the bytes asked for.
      long got = start;
      while (got < pieceEnd) {
        int r = readOnce(b, got);
        if (r <= 0 || (((got + r) & mask) != 0 && got + r < pieceEnd)) {
          throw new EOFException(path + ": end of file at offset " + Math.max(got, got + r));
        }
        got += r;
      }
      int from = (int) (at - start);
      int len = (int) (pieceEnd - at);
      dst.put(b.duplicate().position(from).limit(from + len));
      at = pieceEnd;
    }
  }

  private void readAt(long offset, ByteBuffer dst) throws IOException {
    long at = offset;
    while (dst.hasRemaining()) {
      int n = readOnce(dst, at);
      if (n < 0) {
        throw new EOFException(path + ": end of file at offset " + at);
      }
      at += n;
    }
  }

  /** One positional read; reopens the file if an interrupt of some thread closed the channel. */
  private int readOnce(ByteBuffer dst, long at) throws IOException {
    while (true) {
      FileChannel ch = channel;
      try {
        return ch.read(dst, at);
      } catch (ClosedByInterruptException e) {
        // This thread was interrupted: its read fails, the file stays usable for everyone else.
        reopen(ch);
        throw e;
      } catch (AsynchronousCloseException e) {
        // Another thread's interrupt closed the channel under this read: retry on a fresh one.
        if (closed) {
          throw e;
        }
        reopen(ch);
      } catch (ClosedChannelException e) {
        if (closed) {
          throw e;
        }
        reopen(ch);
      }
    }
  }

  private void reopen(FileChannel broken) throws IOException {
    synchronized (reopenLock) {
      if (closed || channel != broken) {
        return;
      }
      channel = openChannel(path, direct);
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (reopenLock) {
      closed = true;
      channel.close();
    }
  }
}
