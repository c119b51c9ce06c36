package dev.riffle.hadoop.lazy;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * An object read through a {@link ChunkCache}: reads are cut at chunk boundaries, cached chunks are
 * copied from local disk, and the missing ones (of every range of a {@link #readRanges} call
 * together) are fetched, coalesced into ranges across gaps of up to {@link LazyOptions#gapBytes()},
 * with one positional read for a single range and {@code readVectored} (parallel ranged GETs on
 * S3A) for several. Safe for concurrent reads; two threads missing the same chunk at once both
 * fetch it (the cache keeps one).
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
  public boolean isRemote() {
    return true;
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    readRanges(List.of(new Range(offset, dst)));
  }

  /**
   * Serves every range: cached chunks are copied from local disk, and the chunks missing for all
   * ranges together are fetched at once (one positional read if they form one range, else one
   * {@code readVectored} call, which S3A runs as parallel GETs), cached, and copied out.
   */
  @Override
  public void readRanges(List<Range> ranges) throws IOException {
    for (Range r : ranges) {
      RandomAccessSource.checkRange(name, length, r.offset(), r.dst().remaining());
    }
    int cb = options.chunkBytes();
    // Missing chunk -> the parts of the ranges' buffers it fills, in chunk order.
    TreeMap<Long, List<Pending>> missing = new TreeMap<>();
    for (Range r : ranges) {
      ByteBuffer dst = r.dst();
      int n = dst.remaining();
      if (n == 0) {
        continue;
      }
      long offset = r.offset();
      int base = dst.position();
      for (long c = offset / cb; c <= (offset + n - 1) / cb; c++) {
        ByteBuffer part = slice(dst, base, offset, c);
        int from = offsetIn(c, offset);
        List<Pending> waiting = missing.get(c);
        if (waiting != null) {
          waiting.add(new Pending(part, from));
        } else if (cache.read(key, c, chunkLength(c), from, part)) {
          stats.chunkHits.increment();
        } else {
          stats.chunkMisses.increment();
          waiting = new ArrayList<>(1);
          waiting.add(new Pending(part, from));
          missing.put(c, waiting);
        }
      }
    }
    if (!missing.isEmpty()) {
      fetch(missing);
    }
    for (Range r : ranges) {
      r.dst().position(r.dst().limit());
    }
  }

  /** Where a missing chunk's bytes go: {@code part} gets the chunk from {@code from} on. */
  private record Pending(ByteBuffer part, int from) {}

  /** Fetches the missing chunks, caches them and copies them to where they are waited for. */
  private void fetch(TreeMap<Long, List<Pending>> missing) throws IOException {
    int cb = options.chunkBytes();
    // Ranges of whole chunks [from, to]: a chunk joins the previous range when the bytes between
    // cost less than another request.
    List<long[]> ranges = new ArrayList<>();
    for (long c : missing.keySet()) {
      long[] r = ranges.isEmpty() ? null : ranges.get(ranges.size() - 1);
      if (r != null && (c - r[1] - 1) * (long) cb <= options.gapBytes()) {
        r[1] = c;
      } else {
        ranges.add(new long[] {c, c});
      }
    }
    List<ByteBuffer> data = new ArrayList<>(ranges.size());
    stats.fetchRounds.increment();
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
        try {
          data.add(FutureIO.awaitFuture(fr.getData()));
        } catch (IOException e) {
          throw failed(fr.getOffset(), fr.getOffset() + fr.getLength(), e);
        }
        stats.remoteRequests.increment();
        stats.remoteBytes.add(fr.getLength());
      }
    }
    for (int i = 0; i < ranges.size(); i++) {
      long[] r = ranges.get(i);
      ByteBuffer bytes = data.get(i);
      int rangeStart = bytes.position();
      for (long c = r[0]; c <= r[1]; c++) {
        List<Pending> waiting = missing.get(c);
        if (waiting == null) {
          // A cached chunk inside the gap: fetched along, already copied.
          continue;
        }
        int at = rangeStart + (int) ((c - r[0]) * cb);
        ByteBuffer chunk = bytes.duplicate().limit(at + chunkLength(c)).position(at).slice();
        cache.put(key, c, chunk);
        for (Pending p : waiting) {
          p.part().put(chunk.duplicate().limit(p.from() + p.part().remaining()).position(p.from()));
        }
      }
    }
  }

  private ByteBuffer readRange(long[] r) throws IOException {
    long start = r[0] * options.chunkBytes();
    byte[] bytes = new byte[(int) (rangeEnd(r) - start)];
    try {
      in.readFully(start, bytes, 0, bytes.length);
    } catch (IOException e) {
      throw failed(start, start + bytes.length, e);
    }
    stats.remoteRequests.increment();
    stats.remoteBytes.add(bytes.length);
    return ByteBuffer.wrap(bytes);
  }

  /**
   * A fetch of bytes [from, to) failed: the object ended early or changed since it was opened (S3A
   * sees its ETag change) get messages that say so, with the object and offset; other errors (a
   * lost connection, say) pass unchanged.
   */
  private IOException failed(long from, long to, IOException e) {
    if (e instanceof RemoteFileChangedException) {
      return new CorruptFileException(
          name,
          from,
          "the object changed while it was open (fetching bytes ["
              + from
              + ", "
              + to
              + ") found another version; published data files are never rewritten, so the"
              + " snapshot was modified or damaged); nothing of it was cached",
          e);
    }
    if (!(e instanceof EOFException)) {
      return e;
    }
    EOFException x =
        new EOFException(
            name
                + ": the object ended before bytes ["
                + from
                + ", "
                + to
                + ") (it was "
                + length
                + " bytes when opened; replaced or truncated since): "
                + e.getMessage());
    x.initCause(e);
    return x;
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
