package dev.riffle.hadoop.lazy;

import dev.riffle.dataset.storage.RetryPolicy;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.hadoop.HadoopStorage;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.util.functional.FutureIO;

/**
 * An object read through a {@link ChunkCache}. Large reads, and reads that continue the previous
 * one (scans, load's fetch windows), go by aligned chunks: cached chunks are copied from local disk
 * and missing ones fetched, coalesced across gaps of up to {@link LazyOptions#gapBytes()}. Small
 * random reads (a take's records and sectors) go by exact ranges ({@link
 * LazyOptions#exactRanges()}): served from a cached range or cached chunks that hold them, else
 * fetched as the bytes asked for, coalesced only across gaps of {@link
 * LazyOptions#exactGapBytes()}, and cached as ranges. Everything a {@link #readRanges} call misses
 * is fetched in one round: one positional read for a single range, else one {@code readVectored}
 * call (parallel ranged GETs on S3A), retried under the storage's {@code RetryPolicy}. Safe for
 * concurrent reads; two threads missing the same bytes at once both fetch them (the cache keeps
 * one).
 */
final class LazySource implements RandomAccessSource {
  private final String name;
  private final String key;
  private final FSDataInputStream in;
  private final long length;
  private final ChunkCache cache;
  private final LazyOptions options;
  private final LazyStats stats;
  private final HadoopStorage remote;

  /** Where the last read ended: a read starting there continues it (sequential, so by chunks). */
  private volatile long lastEnd = -1;

  LazySource(
      String name,
      String key,
      FSDataInputStream in,
      long length,
      ChunkCache cache,
      LazyOptions options,
      LazyStats stats,
      HadoopStorage remote) {
    this.name = name;
    this.key = key;
    this.in = in;
    this.length = length;
    this.cache = cache;
    this.options = options;
    this.stats = stats;
    this.remote = remote;
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
   * Serves every range from the cache where it can, and fetches what all of them miss in one round.
   */
  @Override
  public void readRanges(List<Range> ranges) throws IOException {
    for (Range r : ranges) {
      RandomAccessSource.checkRange(name, length, r.offset(), r.dst().remaining());
    }
    int cb = options.chunkBytes();
    long previousEnd = lastEnd;
    // Missing chunk -> the parts of the ranges' buffers it fills, in chunk order.
    TreeMap<Long, List<Pending>> missing = new TreeMap<>();
    List<Want> exact = new ArrayList<>();
    long end = previousEnd;
    for (Range r : ranges) {
      ByteBuffer dst = r.dst();
      int n = dst.remaining();
      if (n == 0) {
        continue;
      }
      long offset = r.offset();
      end = Math.max(end, offset + n);
      boolean continues =
          ranges.size() == 1 && offset >= previousEnd && offset - previousEnd < cb / 4;
      if (options.exactRanges() && n < options.exactBelowBytes() && !continues) {
        if (cache.readRange(key, offset, dst.duplicate())) {
          stats.rangeHits.increment();
        } else if (chunksHold(offset, dst)) {
          stats.chunkHits.increment();
        } else {
          stats.rangeMisses.increment();
          Want w = new Want(offset, offset + n, -1, -1);
          w.pending.add(new Pending(dst.duplicate(), offset));
          exact.add(w);
        }
        continue;
      }
      int base = dst.position();
      for (long c = offset / cb; c <= (offset + n - 1) / cb; c++) {
        ByteBuffer part = slice(dst, base, offset, c);
        int from = offsetIn(c, offset);
        List<Pending> waiting = missing.get(c);
        if (waiting != null) {
          waiting.add(new Pending(part, c * cb + from));
        } else if (cache.read(key, c, chunkLength(c), from, part.duplicate())) {
          stats.chunkHits.increment();
        } else {
          stats.chunkMisses.increment();
          waiting = new ArrayList<>(1);
          waiting.add(new Pending(part, c * cb + from));
          missing.put(c, waiting);
        }
      }
    }
    lastEnd = end;
    if (!missing.isEmpty() || !exact.isEmpty()) {
      fetch(missing, exact);
    }
    for (Range r : ranges) {
      r.dst().position(r.dst().limit());
    }
  }

  /** Whether cached chunks hold all of [offset, offset + remaining); copies them if so. */
  private boolean chunksHold(long offset, ByteBuffer dst) throws IOException {
    int cb = options.chunkBytes();
    int n = dst.remaining();
    int base = dst.position();
    for (long c = offset / cb; c <= (offset + n - 1) / cb; c++) {
      if (!Files.exists(cache.chunkFile(key, c))) {
        return false;
      }
    }
    for (long c = offset / cb; c <= (offset + n - 1) / cb; c++) {
      if (!cache.read(key, c, chunkLength(c), offsetIn(c, offset), slice(dst, base, offset, c))) {
        return false;
      }
    }
    return true;
  }

  /** Where fetched bytes go: {@code part} gets the object's bytes from {@code at} on. */
  private record Pending(ByteBuffer part, long at) {}

  /**
   * Bytes [start, end) to fetch: chunks {@code firstChunk..lastChunk} (stored as chunks), or, with
   * {@code firstChunk} -1, an exact range (stored as a range); and who waits for them.
   */
  private static final class Want {
    final long start;
    long end;
    final long firstChunk;
    final long lastChunk;
    final List<Pending> pending = new ArrayList<>();

    /** Bytes of [start, end) that some read asked for (the rest is gap read through). */
    long useful;

    Want(long start, long end, long firstChunk, long lastChunk) {
      this.start = start;
      this.end = end;
      this.firstChunk = firstChunk;
      this.lastChunk = lastChunk;
      this.useful = end - start;
    }
  }

  /** One request: [start, end) with the wants it serves. */
  private record Request(long start, long end, List<Want> wants) {}

  /** Fetches the missing chunks and exact ranges in one round, caches them, copies them out. */
  private void fetch(TreeMap<Long, List<Pending>> missing, List<Want> exact) throws IOException {
    int cb = options.chunkBytes();
    List<Want> wants = new ArrayList<>();
    // Runs of whole chunks: a chunk joins the previous run when the bytes between cost less than
    // another request.
    Want run = null;
    for (Map.Entry<Long, List<Pending>> e : missing.entrySet()) {
      long c = e.getKey();
      if (run != null && (c - run.lastChunk - 1) * (long) cb <= options.gapBytes()) {
        Want longer = new Want(run.start, chunkEnd(c), run.firstChunk, c);
        longer.pending.addAll(run.pending);
        run = longer;
        wants.set(wants.size() - 1, run);
      } else {
        run = new Want(c * cb, chunkEnd(c), c, c);
        wants.add(run);
      }
      run.pending.addAll(e.getValue());
    }
    // Exact ranges, joined only across small gaps, never into more than a chunk's worth, and only
    // while the gap bytes read through stay below the bytes asked for: a take then fetches at
    // most twice what it reads, whatever the spacing of its rows.
    exact.sort(Comparator.comparingLong(w -> w.start));
    Want last = null;
    for (Want w : exact) {
      long gap = w.start - (last == null ? 0 : last.end);
      if (last != null
          && gap <= options.exactGapBytes()
          && Math.max(last.end, w.end) - last.start <= cb
          && (last.end - last.start - last.useful) + Math.max(0, gap)
              <= last.useful + (w.end - w.start)) {
        last.useful += Math.min(w.end - w.start, w.end - last.end);
        last.end = Math.max(last.end, w.end);
        last.pending.addAll(w.pending);
      } else {
        last = w;
        wants.add(w);
      }
    }
    // Requests: wants that overlap or touch go as one (an exact range inside a chunk run, say).
    wants.sort(Comparator.comparingLong(w -> w.start));
    List<Request> requests = new ArrayList<>();
    for (Want w : wants) {
      Request r = requests.isEmpty() ? null : requests.get(requests.size() - 1);
      if (r != null && w.start <= r.end) {
        r.wants.add(w);
        requests.set(requests.size() - 1, new Request(r.start, Math.max(r.end, w.end), r.wants));
      } else {
        List<Want> ws = new ArrayList<>();
        ws.add(w);
        requests.add(new Request(w.start, w.end, ws));
      }
    }
    List<ByteBuffer> data = fetchAll(requests);
    for (int i = 0; i < requests.size(); i++) {
      Request req = requests.get(i);
      ByteBuffer bytes = data.get(i);
      int base = bytes.position();
      for (Want w : req.wants) {
        if (w.firstChunk >= 0) {
          for (long c = w.firstChunk; c <= w.lastChunk; c++) {
            if (missing.containsKey(c)) {
              int at = base + (int) (c * cb - req.start);
              cache.put(key, c, bytes.duplicate().limit(at + chunkLength(c)).position(at).slice());
            }
          }
        } else {
          int at = base + (int) (w.start - req.start);
          cache.putRange(
              key, w.start, bytes.duplicate().limit(at + (int) (w.end - w.start)).position(at));
        }
        for (Pending p : w.pending) {
          int at = base + (int) (p.at() - req.start);
          p.part().put(bytes.duplicate().limit(at + p.part().remaining()).position(at));
        }
      }
    }
  }

  /**
   * Reads every request, in one round: a positional read for one, one {@code readVectored} call for
   * several; a range that failed transiently is read again alone under the retry policy.
   */
  private List<ByteBuffer> fetchAll(List<Request> requests) throws IOException {
    stats.fetchRounds.increment();
    List<ByteBuffer> data = new ArrayList<>(requests.size());
    if (requests.size() == 1) {
      Request r = requests.get(0);
      data.add(readRange(r.start(), r.end()));
      return data;
    }
    List<FileRange> fileRanges = new ArrayList<>(requests.size());
    for (Request r : requests) {
      fileRanges.add(FileRange.createFileRange(r.start(), (int) (r.end() - r.start())));
    }
    in.readVectored(fileRanges, ByteBuffer::allocate);
    stats.vectoredReads.increment();
    for (FileRange fr : fileRanges) {
      long from = fr.getOffset();
      long to = from + fr.getLength();
      try {
        data.add(FutureIO.awaitFuture(fr.getData()));
        stats.remoteRequests.increment();
        stats.remoteBytes.add(fr.getLength());
      } catch (IOException e) {
        if (e instanceof EOFException || !RetryPolicy.isTransient(e)) {
          throw failed(from, to, e);
        }
        remote
            .retryListener()
            .retrying(
                "reading bytes [" + from + ", " + to + ") of " + name,
                1,
                remote.retryPolicy().maxAttempts(),
                RetryPolicy.describe(e));
        data.add(readRange(from, to));
      }
    }
    return data;
  }

  private ByteBuffer readRange(long start, long end) throws IOException {
    byte[] bytes = new byte[(int) (end - start)];
    try {
      remote.retrying(
          "reading bytes [" + start + ", " + end + ") of " + name,
          () -> {
            in.readFully(start, bytes, 0, bytes.length);
            return null;
          });
    } catch (IOException e) {
      throw failed(start, end, e);
    }
    stats.remoteRequests.increment();
    stats.remoteBytes.add(bytes.length);
    return ByteBuffer.wrap(bytes);
  }

  private long chunkEnd(long c) {
    return Math.min(length, (c + 1) * options.chunkBytes());
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
