package dev.riffle.format;

import dev.riffle.format.encoding.VectorSizes;
import dev.riffle.format.io.RandomAccessSource;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Sequential batches over a file. Each page is read whole, once, and its checksum verified before
 * any row of it is returned. Not thread-safe; close the batches it returns.
 *
 * <p>Read-ahead: when a page of a column is loaded, the next pages of the same column (up to {@link
 * #readAhead(int, long) a number of pages and of bytes}, by default {@value #DEFAULT_AHEAD_PAGES}
 * pages and 8 MiB per column) are read and checksummed in the background by a small process-wide
 * pool of daemon threads, which is never interrupted. A page whose read has not started by the time
 * it is needed is read by the caller itself. Reads are counted in {@link ReadStats} when their page
 * is used, so the counters are the same with and without read-ahead; a damaged page fails only when
 * its rows are reached, as without read-ahead. {@link #close()} (or reaching the end) withdraws
 * reads not yet started and drops the pages read ahead; a cursor that is simply abandoned holds
 * them until it is garbage collected.
 */
public final class ScanCursor implements AutoCloseable {
  /** Pages read ahead per column by default (system property {@code riffle.scan.aheadPages}). */
  public static final int DEFAULT_AHEAD_PAGES = 4;

  /** Bytes read ahead per column by default (system property {@code riffle.scan.aheadBytes}). */
  public static final long DEFAULT_AHEAD_BYTES = 8L << 20;

  private static final int AHEAD_PAGES =
      Integer.getInteger("riffle.scan.aheadPages", DEFAULT_AHEAD_PAGES);
  private static final long AHEAD_BYTES =
      Long.getLong("riffle.scan.aheadBytes", DEFAULT_AHEAD_BYTES);

  private final FileReader reader;
  private final List<String> fields;
  private final ColumnReader[] columns;
  private final int batchRows;
  private final int[] loadedPage;
  private final ByteBuffer[] pageBuffers;

  /** The pooled buffer each column's loaded page lies in (null: not pooled). */
  private final ByteBuffer[] pageBases;

  /**
   * Page buffers free for the next reads. A page's buffer comes back here once the cursor has moved
   * past the page and decoded every row it needed from it; buffers of reads withdrawn or dropped
   * are left to the garbage collector, since a read already running may still be writing into them.
   * Reusing them saves clearing a fresh megabyte per page, and direct ones (for sources that prefer
   * them) save the JDK's copy through a temporary direct buffer.
   */
  private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();

  private final boolean direct;

  /**
   * The size of every pooled buffer: the largest page of the scanned columns, so that any buffer
   * fits any page; 0 when that is above {@link #MAX_POOLED_PAGE} (pages are then read into fresh
   * heap buffers, as without a pool).
   */
  private final int pooledBytes;

  /** Largest page read into pooled buffers. */
  private static final long MAX_POOLED_PAGE = 8L << 20;

  private final ArrayDeque<Fetch>[] ahead;
  private final long[] aheadBytesPending;
  private int aheadPages = AHEAD_PAGES;
  private long aheadBytes = AHEAD_BYTES;
  private long nextRow;
  private boolean closed;

  @SuppressWarnings("unchecked")
  ScanCursor(FileReader reader, List<String> fields, ColumnReader[] columns, int batchRows) {
    this.reader = reader;
    this.fields = fields;
    this.columns = columns;
    this.batchRows = batchRows;
    this.loadedPage = new int[columns.length];
    java.util.Arrays.fill(loadedPage, -1);
    this.pageBuffers = new ByteBuffer[columns.length];
    this.pageBases = new ByteBuffer[columns.length];
    this.direct = reader.source().prefersDirectBuffers();
    long largest = 0;
    for (ColumnReader col : columns) {
      for (PageInfo p : col.pages) {
        largest = Math.max(largest, p.byteLength());
      }
    }
    this.pooledBytes =
        largest <= MAX_POOLED_PAGE ? (int) FileLayout.alignToSector(Math.max(1, largest)) : 0;
    this.ahead = new ArrayDeque[columns.length];
    for (int c = 0; c < columns.length; c++) {
      ahead[c] = new ArrayDeque<>();
    }
    this.aheadBytesPending = new long[columns.length];
  }

  /**
   * Sets how far each column reads ahead: at most {@code pages} pages and {@code bytes} bytes
   * beyond the page in use ({@code pages = 0} turns read-ahead off). Applies from the next page
   * loaded on.
   *
   * @return this cursor
   */
  public ScanCursor readAhead(int pages, long bytes) {
    if (pages < 0 || bytes < 0) {
      throw new IllegalArgumentException("negative read-ahead");
    }
    this.aheadPages = pages;
    this.aheadBytes = bytes;
    if (pages == 0) {
      dropAhead();
    }
    return this;
  }

  /** The next batch, or null after the last row. */
  public VectorSchemaRoot next() throws IOException {
    if (closed) {
      throw new IllegalStateException("scan cursor is closed");
    }
    long total = reader.rowCount();
    if (nextRow >= total) {
      release();
      return null;
    }
    int n = (int) Math.min(batchRows, total - nextRow);
    VectorSchemaRoot root = null;
    try {
      // First the pages of the batch, so that wide rows can be measured and every result buffer
      // allocated once at its final size; then the decoding.
      List<List<Segment>> segments = new ArrayList<>(columns.length);
      VectorSizes[] sizes = new VectorSizes[columns.length];
      List<ByteBuffer> retired = new ArrayList<>();
      for (int c = 0; c < columns.length; c++) {
        List<Segment> list = segmentsOf(c, n, retired);
        segments.add(list);
        ColumnReader col = columns[c];
        if (col.sizedByData()) {
          VectorSizes s = col.newSizes();
          boolean measured = true;
          for (int i = 0; i < list.size() && measured; i++) {
            Segment g = list.get(i);
            measured = col.measurePageRows(g.page, g.bytes, g.from, g.count, s);
          }
          sizes[c] = measured ? s : null;
        }
      }
      root = reader.newBatch(fields, n, reader.sizing(columns, sizes));
      for (int c = 0; c < columns.length; c++) {
        ColumnReader col = columns[c];
        ColumnReader.Target target = reader.targetFor(col.spec, root);
        for (Segment g : segments.get(c)) {
          col.decodePageRows(g.page, g.bytes, g.from, g.count, target, g.out);
        }
      }
      reader.finishBatch(root, n, fields.size());
      nextRow += n;
      recycle(retired);
      return root;
    } catch (IOException | RuntimeException e) {
      if (root != null) {
        root.close();
      }
      dropAhead();
      throw e;
    }
  }

  /** Rows [from, from + count) of a page, to be decoded into batch rows from {@code out}. */
  private static final class Segment {
    final int page;
    final ByteBuffer bytes;
    final int from;
    final int count;
    final int out;

    Segment(int page, ByteBuffer bytes, int from, int count, int out) {
      this.page = page;
      this.bytes = bytes;
      this.from = from;
      this.count = count;
      this.out = out;
    }
  }

  /**
   * Loads the pages of column {@code c} that hold the next {@code n} rows; the pooled buffers of
   * pages left behind go to {@code retired}.
   */
  private List<Segment> segmentsOf(int c, int n, List<ByteBuffer> retired) throws IOException {
    ColumnReader col = columns[c];
    List<Segment> list = new ArrayList<>(2);
    long row = nextRow;
    long end = nextRow + n;
    while (row < end) {
      int p = col.pageOf(row);
      if (loadedPage[c] != p) {
        if (pageBases[c] != null) {
          retired.add(pageBases[c]);
        }
        pageBuffers[c] = null;
        pageBases[c] = null;
        loadedPage[c] = -1;
        Fetch f = load(c, p);
        pageBuffers[c] = f.page();
        pageBases[c] = f.base;
        loadedPage[c] = p;
      }
      PageInfo page = col.pages[p];
      int count = (int) (Math.min(end, page.firstRow() + page.rowCount()) - row);
      list.add(
          new Segment(
              p, pageBuffers[c], (int) (row - page.firstRow()), count, (int) (row - nextRow)));
      row += count;
    }
    return list;
  }

  /**
   * Returns to the pool the buffers of pages this batch left behind: a scan only moves forward, so
   * no later batch reads them, and every row this batch needed from them is decoded by now.
   */
  private void recycle(List<ByteBuffer> retired) {
    for (ByteBuffer b : retired) {
      if (free.size() < MAX_FREE) {
        free.add(b);
      }
    }
  }

  /** Free page buffers kept per cursor at most. */
  private static final int MAX_FREE = 16;

  /** A pooled buffer (a free one or a new one), or null where pages are not pooled. */
  private ByteBuffer buffer() {
    if (pooledBytes == 0) {
      return null;
    }
    ByteBuffer b = free.pollFirst();
    if (b != null) {
      return b;
    }
    return direct
        ? dev.riffle.format.io.IoEngine.allocateAligned(pooledBytes, FileLayout.SECTOR_BYTES)
        : ByteBuffer.allocate(pooledBytes);
  }

  /**
   * Withdraws the reads ahead that have not started and drops every page held; reads already
   * running finish in the background and their pages are discarded. Idempotent; {@link #next()}
   * must not be called afterwards.
   */
  @Override
  public void close() {
    closed = true;
    release();
  }

  private void release() {
    dropAhead();
    java.util.Arrays.fill(pageBuffers, null);
    java.util.Arrays.fill(pageBases, null);
    java.util.Arrays.fill(loadedPage, -1);
    free.clear();
  }

  private void dropAhead() {
    for (int c = 0; c < columns.length; c++) {
      for (Fetch f : ahead[c]) {
        f.cancel();
      }
      ahead[c].clear();
      aheadBytesPending[c] = 0;
    }
  }

  /**
   * Page {@code p} of column {@code c}, checksummed and counted (in the returned fetch), and
   * schedules the next ones.
   */
  private Fetch load(int c, int p) throws IOException {
    ColumnReader col = columns[c];
    ArrayDeque<Fetch> queue = ahead[c];
    Fetch hit = null;
    while (!queue.isEmpty()) {
      Fetch f = queue.pollFirst();
      aheadBytesPending[c] -= f.length;
      if (f.page == p) {
        hit = f;
        break;
      }
      // Not sequential (cannot happen in a forward scan): forget what was read ahead.
      f.cancel();
    }
    Fetch f;
    if (hit != null) {
      f = hit;
      f.await(reader.stats());
    } else if (aheadPages == 0) {
      f = new Fetch(reader.source(), col, p, null);
      f.done(reader.readPage(col, p));
    } else {
      f = new Fetch(reader.source(), col, p, buffer());
      f.await(reader.stats());
    }
    scheduleAhead(c, p);
    return f;
  }

  private void scheduleAhead(int c, int p) {
    ColumnReader col = columns[c];
    ArrayDeque<Fetch> queue = ahead[c];
    int next = queue.isEmpty() ? p + 1 : queue.peekLast().page + 1;
    while (queue.size() < aheadPages && next < col.pages.length) {
      long bytes = col.pages[next].byteLength();
      if (aheadBytesPending[c] + bytes > aheadBytes) {
        return;
      }
      Fetch f = new Fetch(reader.source(), col, next, buffer());
      queue.addLast(f);
      aheadBytesPending[c] += bytes;
      Pool.submit(f);
      next++;
    }
  }

  /** The daemon threads that read ahead; never interrupted, idle ones exit. */
  private static final class Pool {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadPoolExecutor EXECUTOR;

    static {
      int n = Math.max(4, Math.min(16, 2 * Runtime.getRuntime().availableProcessors()));
      EXECUTOR =
          new ThreadPoolExecutor(
              n,
              n,
              30,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread t = new Thread(r, "riffle-scan-ahead-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      EXECUTOR.allowCoreThreadTimeOut(true);
    }

    private Pool() {}

    static void submit(Fetch f) {
      try {
        EXECUTOR.execute(f);
      } catch (RejectedExecutionException e) {
        // The consumer reads the page itself when it needs it.
      }
    }
  }

  /**
   * One page read: done once, by a pool thread or by the consumer, whichever claims it first. The
   * bytes are read and checksummed here; the counting happens in {@link #await}, in the consumer.
   */
  private static final class Fetch implements Runnable {
    private static final int QUEUED = 0;
    private static final int CLAIMED = 1;
    private static final int CANCELLED = 2;

    final RandomAccessSource source;
    final ColumnReader col;
    final int page;
    final long offset;
    final long length;

    /** The pooled buffer the page is read into, or null for a fresh heap buffer. */
    final ByteBuffer base;

    private ByteBuffer result;
    private final AtomicInteger state = new AtomicInteger(QUEUED);
    private final CountDownLatch done = new CountDownLatch(1);
    // Written before done.countDown(), read after done.await().
    private ByteBuffer bytes;
    private boolean read;
    private Throwable failure;

    Fetch(RandomAccessSource source, ColumnReader col, int page, ByteBuffer base) {
      this.source = source;
      this.col = col;
      this.page = page;
      this.base = base;
      PageInfo info = col.pages[page];
      this.offset = info.offset();
      this.length = info.byteLength();
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

    /** What {@link FileReader#readPage} does, without the counting. */
    private ByteBuffer readAndCheck() throws IOException {
      String resource = source.name();
      if (length > Integer.MAX_VALUE - 64) {
        throw new CorruptFileException(
            resource, offset, "read of " + length + " bytes is too large");
      }
      // A new buffer instance per read, even in a pooled buffer: the per-thread memo of the last
      // checked sector (ColumnReader) matches buffer instances, never stale bytes.
      ByteBuffer b =
          base == null
              ? ByteBuffer.allocate((int) length)
              : base.duplicate().clear().limit((int) length).slice();
      b.order(ByteOrder.LITTLE_ENDIAN);
      try {
        source.readFully(offset, b);
      } catch (EOFException e) {
        throw new CorruptFileException(
            resource, offset, "file ends inside a read of " + length + " bytes", e);
      }
      read = true;
      b.flip();
      CRC32C crc = new CRC32C();
      crc.update(b.duplicate());
      if ((int) crc.getValue() != col.pages[page].crc32c()) {
        throw new CorruptFileException(
            resource,
            offset,
            "page " + page + " of column '" + col.spec.name() + "' fails its checksum");
      }
      return b;
    }

    /** The page, counted in {@code stats} as {@link FileReader#readPage} counts it. */
    ByteBuffer await(ReadStats stats) throws IOException {
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
      if (read) {
        stats.read(offset, length);
      }
      Throwable t = failure;
      if (t != null) {
        if (t instanceof IOException) {
          throw (IOException) t;
        }
        if (t instanceof UncheckedIOException) {
          throw ((UncheckedIOException) t).getCause();
        }
        if (t instanceof RuntimeException) {
          throw (RuntimeException) t;
        }
        if (t instanceof Error) {
          throw (Error) t;
        }
        throw new IOException(t);
      }
      stats.round();
      result = bytes;
      bytes = null;
      return result;
    }

    /** The page this fetch delivered. */
    ByteBuffer page() {
      return result;
    }

    /** Records a page read elsewhere ({@link FileReader#readPage}) as this fetch's result. */
    void done(ByteBuffer b) {
      result = b;
    }
  }
}
