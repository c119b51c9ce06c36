package dev.riffle.hadoop;

import dev.riffle.dataset.storage.RetryPolicy;
import dev.riffle.format.io.RandomAccessSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * An object read through a Hadoop {@link FSDataInputStream} with positional reads ({@code
 * readFully(position, …)}), which the {@code PositionedReadable} contract makes safe for concurrent
 * use. S3A's classic stream serialises them on the stream's lock; {@link #readRanges} instead hands
 * all ranges to one {@code readVectored} call, which S3A serves with parallel ranged GETs, after
 * coalescing ranges less than {@code gapBytes} apart (a larger gap than on a local disk: on an
 * object store a request costs about as much as a megabyte of transfer).
 */
final class HadoopSource implements RandomAccessSource {
  /** Largest heap copy buffer for reads into direct buffers (one GET each on S3A). */
  private static final int MAX_COPY_CHUNK = 8 << 20;

  private final String name;
  private final FSDataInputStream in;
  private final FileStatus status;
  private final long length;
  private final boolean remote;
  private final RangeCoalescing coalescing;
  private final HadoopStorage owner;

  HadoopSource(
      String name,
      FSDataInputStream in,
      FileStatus status,
      boolean remote,
      RangeCoalescing coalescing,
      HadoopStorage owner) {
    this.name = name;
    this.in = in;
    this.status = status;
    this.length = status.getLen();
    this.remote = remote;
    this.coalescing = coalescing;
    this.owner = owner;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long length() {
    return length;
  }

  /** What the storage looked up before opening it, for {@link HadoopStorage#openAgain}. */
  FileStatus status() {
    return status;
  }

  /** The storage that opened it. */
  HadoopStorage owner() {
    return owner;
  }

  @Override
  public boolean isRemote() {
    return remote;
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    int n = dst.remaining();
    RandomAccessSource.checkRange(name, length, offset, n);
    if (n == 0) {
      return;
    }
    try {
      if (dst.hasArray()) {
        readFully(offset, dst.array(), dst.arrayOffset() + dst.position(), n);
        dst.position(dst.position() + n);
      } else {
        byte[] buf = new byte[Math.min(n, MAX_COPY_CHUNK)];
        long at = offset;
        while (dst.hasRemaining()) {
          int k = Math.min(buf.length, dst.remaining());
          readFully(at, buf, 0, k);
          dst.put(buf, 0, k);
          at += k;
        }
      }
    } catch (EOFException e) {
      // The object shrank after open (replaced in place): say which one.
      EOFException x = new EOFException(name + ": " + e.getMessage());
      x.initCause(e);
      throw x;
    }
  }

  /** One positional read, retried (idempotent: it fills the same bytes again) under the policy. */
  private void readFully(long at, byte[] buf, int off, int len) throws IOException {
    owner.retrying(
        "reading bytes [" + at + ", " + (at + len) + ") of " + name,
        () -> {
          in.readFully(at, buf, off, len);
          return null;
        });
  }

  @Override
  public void readRanges(List<Range> ranges) throws IOException {
    List<Range> sorted = new ArrayList<>(ranges.size());
    for (Range r : ranges) {
      RandomAccessSource.checkRange(name, length, r.offset(), r.dst().remaining());
      if (r.dst().hasRemaining()) {
        sorted.add(r);
      }
    }
    if (sorted.size() <= 1) {
      for (Range r : sorted) {
        readFully(r.offset(), r.dst());
      }
      return;
    }
    sorted.sort(Comparator.comparingLong(Range::offset));
    List<RangeCoalescing.Group> groups = coalescing.group(sorted);
    if (groups.size() == 1 && groups.get(0).members().size() == 1) {
      readFully(sorted.get(0).offset(), sorted.get(0).dst());
      return;
    }
    List<FileRange> fetch = new ArrayList<>(groups.size());
    for (RangeCoalescing.Group g : groups) {
      fetch.add(FileRange.createFileRange(g.start(), (int) (g.end() - g.start())));
    }
    in.readVectored(fetch, ByteBuffer::allocate);
    for (int i = 0; i < groups.size(); i++) {
      RangeCoalescing.Group g = groups.get(i);
      ByteBuffer data;
      try {
        data = FutureIO.awaitFuture(fetch.get(i).getData());
      } catch (EOFException e) {
        EOFException x =
            new EOFException(
                name
                    + ": bytes ["
                    + g.start()
                    + ", "
                    + g.end()
                    + ") pass the end of the object: "
                    + e.getMessage());
        x.initCause(e);
        throw x;
      } catch (IOException e) {
        if (!RetryPolicy.isTransient(e)) {
          throw e;
        }
        // A failed range of the vectored read: fetched again alone, under the retry policy.
        owner
            .retryListener()
            .retrying(
                "reading bytes [" + g.start() + ", " + g.end() + ") of " + name,
                1,
                owner.retryPolicy().maxAttempts(),
                RetryPolicy.describe(e));
        byte[] again = new byte[(int) (g.end() - g.start())];
        readFully(g.start(), again, 0, again.length);
        data = ByteBuffer.wrap(again);
      }
      int base = data.position();
      for (Range r : g.members()) {
        int from = base + (int) (r.offset() - g.start());
        r.dst().put(data.duplicate().limit(from + r.dst().remaining()).position(from));
      }
    }
  }

  /** The stream's counters (S3A: GETs opened, vectored reads and the ranges they combined). */
  IOStatistics ioStatistics() {
    return in.getIOStatistics();
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  @Override
  public String toString() {
    return name;
  }
}
