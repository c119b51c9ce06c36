package dev.riffle.format.read;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

/**
 * One read of pages [first, last] of a column: made once, by a pool thread or by the consumer,
 * whichever claims it first. The bytes are read and every page checksummed here; the counting
 * happens in {@link #await}, in the consumer.
 */
final class PageFetch implements Runnable {
  private static final int QUEUED = 0;
  private static final int CLAIMED = 1;
  private static final int CANCELLED = 2;

  final RandomAccessSource source;
  final ColumnReader col;
  final int first;
  final int last;
  final long offset;
  final long length;

  /** The pooled buffer the pages are read into, or null for a fresh heap buffer. */
  final ByteBuffer base;

  private final AtomicInteger state = new AtomicInteger(QUEUED);
  private final CountDownLatch done = new CountDownLatch(1);
  // Written before done.countDown(), read after done.await().
  private ByteBuffer bytes;
  private boolean[] damaged;
  private boolean read;
  private Throwable failure;

  PageFetch(
      RandomAccessSource source,
      ColumnReader col,
      int first,
      int last,
      long offset,
      long length,
      ByteBuffer base) {
    this.source = source;
    this.col = col;
    this.first = first;
    this.last = last;
    this.offset = offset;
    this.length = length;
    this.base = base;
  }

  boolean covers(int page) {
    return page >= first && page <= last;
  }

  @Override
  public void run() {
    if (state.compareAndSet(QUEUED, CLAIMED)) {
      execute();
    }
  }

  /** Withdraws the read if it has not started; a running read finishes and is dropped. */
  void cancel() {
    state.compareAndSet(QUEUED, CANCELLED);
  }

  private void execute() {
    try {
      bytes = readAndCheck();
    } catch (Throwable t) {
      failure = t;
    } finally {
      done.countDown();
    }
  }

  /** Reads the pages and checks each one's checksum (a mismatch is reported by {@link #page}). */
  private ByteBuffer readAndCheck() throws IOException {
    if (length > Integer.MAX_VALUE - 64) {
      throw new CorruptFileException(
          source.name(), offset, "read of " + length + " bytes is too large");
    }
    ByteBuffer b =
        base == null
            ? ByteBuffer.allocate((int) length)
            : base.duplicate().clear().limit((int) length).slice();
    source.readFully(offset, b);
    read = true;
    b.flip();
    damaged = new boolean[last - first + 1];
    CRC32C crc = new CRC32C();
    for (int p = first; p <= last; p++) {
      PageInfo info = col.pages[p];
      int at = (int) (info.offset() - offset);
      crc.reset();
      crc.update(b.duplicate().position(at).limit(at + (int) info.byteLength()));
      damaged[p - first] = (int) crc.getValue() != info.crc32c();
    }
    return b;
  }

  /** Waits for the read, making it here if no pool thread has started it, and counts it. */
  void await(ReadStats stats) {
    if (state.compareAndSet(QUEUED, CLAIMED)) {
      execute();
    } else {
      boolean interrupted = false;
      while (true) {
        try {
          done.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
    if (read) {
      stats.read(offset, length);
      stats.round();
    }
  }

  /**
   * Page {@code p} (covered by this read) as a buffer of its own, or null if the read failed.
   *
   * @throws CorruptFileException if the page fails its checksum
   */
  ByteBuffer page(int p) throws CorruptFileException {
    if (bytes == null) {
      return null;
    }
    PageInfo info = col.pages[p];
    if (damaged[p - first]) {
      throw new CorruptFileException(
          source.name(),
          info.offset(),
          "page " + p + " of column '" + col.spec.name() + "' fails its checksum");
    }
    // A new buffer instance per page, even in a pooled buffer: the per-thread memo of the last
    // checked sector (ColumnReader) matches buffer instances, never stale bytes.
    int at = (int) (info.offset() - offset);
    return bytes
        .duplicate()
        .position(at)
        .limit(at + (int) info.byteLength())
        .slice()
        .order(ByteOrder.LITTLE_ENDIAN);
  }
}
