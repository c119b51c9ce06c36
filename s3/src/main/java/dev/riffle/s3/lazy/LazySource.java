package dev.riffle.s3.lazy;

import dev.riffle.format.io.RandomAccessSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * An object read through a {@link ChunkCache}: a read is cut at chunk boundaries, cached chunks are
 * copied from local disk, and the missing ones are fetched, coalesced into ranges across gaps of up
 * to {@link LazyOptions#gapBytes()}, with one positional read for a single range and {@code
 * readVectored} (parallel ranged GETs on S3A) for several. Safe for concurrent reads; two threads
 * missing the same chunk at once both fetch it (the cache keeps one).
 */
final class LazySource implements RandomAccessSource {
  private final String name;
  private final String key;
  private final FSDataInputStream in;
  private final long length;
  private final ChunkCache cache;
  private final LazyOptions options;
  private final LazyStats stats;

  LazySource(
      String name,
      String key,
      FSDataInputStream in,
      long length,
      ChunkCache cache,
      LazyOptions options,
      LazyStats stats) {
    this.name = name;
    this.key = key;
    this.in = in;
    this.length = length;
    this.cache = cache;
    this.options = options;
    this.stats = stats;
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
    int cb = options.chunkBytes();
    long first = offset / cb;
    long last = (offset + n - 1) / cb;
    int base = dst.position();
    List<Long> missing = new ArrayList<>();
    for (long c = first; c <= last; c++) {
      if (cache.read(key, c, chunkLength(c), offsetIn(c, offset), slice(dst, base, offset, c))) {
        stats.chunkHits.increment();
      } else {
        stats.chunkMisses.increment();
        missing.add(c);
      }
    }
    if (!missing.isEmpty()) {
      fetch(missing, dst, base, offset);
    }
    dst.position(base + n);
  }

  /** Fetches the missing chunks, caches them and copies their part of the read into {@code dst}. */
  private void fetch(List<Long> missing, ByteBuffer dst, int base, long offset) throws IOException {
    int cb = options.chunkBytes();
    // Ranges of whole chunks [from, to]: a chunk joins the previous range when the bytes between
    // cost less than another request.
    List<long[]> ranges = new ArrayList<>();
    for (long c : missing) {
      long[] r = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
      if (r != null && (c - r[1] - 1) * (long) cb <= options.gapBytes()) {
        r[1] = c;
      } else {
        ranges.add(new long[] {c, c});
      }
    }
    List<ByteBuffer> data = new ArrayList<>(ranges.size());
    if (ranges.size() == 1) {
      data.add(readRange(ranges.get(0)));
    } else {
      List<FileRange> fileRanges = new ArrayList<>(ranges.size());
      for (long[] r : ranges) {
        long start = r[0] * cb;
        fileRanges.add(FileRange.createFileRange(start, (int) (rangeEnd(r) - start)));
      }
      in.readVectored(fileRanges, ByteBuffer::allocate);
      stats.vectoredReads.increment();
      for (FileRange fr : fileRanges) {
        data.add(FutureIO.awaitFuture(fr.getData()));
        stats.remoteRequests.increment();
        stats.remoteBytes.add(fr.getLength());
      }
    }
    int next = 0;
    for (int i = 0; i < ranges.size(); i++) {
      long[] r = ranges.get(i);
      ByteBuffer bytes = data.get(i);
      int rangeStart = bytes.position();
      for (long c = r[0]; c <= r[1]; c++) {
        if (next >= missing.size() || missing.get(next) != c) {
          // A cached chunk inside the gap: fetched along, already in dst.
          continue;
        }
        next++;
        int at = rangeStart + (int) ((c - r[0]) * cb);
        ByteBuffer chunk = bytes.duplicate().limit(at + chunkLength(c)).position(at).slice();
        cache.put(key, c, chunk);
        ByteBuffer part = slice(dst, base, offset, c);
        int from = offsetIn(c, offset);
        part.put(chunk.limit(from + part.remaining()).position(from));
      }
    }
  }

  private ByteBuffer readRange(long[] r) throws IOException {
    long start = r[0] * options.chunkBytes();
    byte[] bytes = new byte[(int) (rangeEnd(r) - start)];
    try {
      in.readFully(start, bytes, 0, bytes.length);
    } catch (EOFException e) {
      EOFException x = new EOFException(name + ": " + e.getMessage());
      x.initCause(e);
      throw x;
    }
    stats.remoteRequests.increment();
    stats.remoteBytes.add(bytes.length);
    return ByteBuffer.wrap(bytes);
  }

  private long rangeEnd(long[] r) {
    return Math.min(length, (r[1] + 1) * options.chunkBytes());
  }

  private int chunkLength(long c) {
    return (int) Math.min(options.chunkBytes(), length - c * options.chunkBytes());
  }

  /** Where the read starts within chunk {@code c}. */
  private int offsetIn(long c, long offset) {
    return (int) Math.max(0, offset - c * options.chunkBytes());
  }

  /** The part of {@code dst} that chunk {@code c} fills. */
  private ByteBuffer slice(ByteBuffer dst, int base, long offset, long c) {
    long chunkStart = c * options.chunkBytes();
    long from = Math.max(offset, chunkStart);
    long to = Math.min(offset + (dst.limit() - base), chunkStart + chunkLength(c));
    return dst.duplicate().limit(base + (int) (to - offset)).position(base + (int) (from - offset));
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
