package dev.riffle.s3;

import dev.riffle.format.io.RandomAccessSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.fs.FSDataInputStream;

/**
 * An object read through a Hadoop {@link FSDataInputStream} with positional reads ({@code
 * readFully(position, …)}), which the {@code PositionedReadable} contract makes safe for concurrent
 * use. S3A's classic stream serialises them on the stream's lock; a source per thread, or the
 * planned local cache, gives parallel GETs.
 */
final class HadoopSource implements RandomAccessSource {
  /** Largest heap copy buffer for reads into direct buffers (one GET each on S3A). */
  private static final int MAX_COPY_CHUNK = 8 << 20;

  private final String name;
  private final FSDataInputStream in;
  private final long length;

  HadoopSource(String name, FSDataInputStream in, long length) {
    this.name = name;
    this.in = in;
    this.length = length;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long length() {
    return length;
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
        in.readFully(offset, dst.array(), dst.arrayOffset() + dst.position(), n);
        dst.position(dst.position() + n);
      } else {
        byte[] buf = new byte[Math.min(n, MAX_COPY_CHUNK)];
        long at = offset;
        while (dst.hasRemaining()) {
          int k = Math.min(buf.length, dst.remaining());
          in.readFully(at, buf, 0, k);
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

  @Override
  public void close() throws IOException {
    in.close();
  }

  @Override
  public String toString() {
    return name;
  }
}
