// Why this file stays whole (over 500 lines): see "Why this file is longer than most" in the class
// comment: a scan's reads, read-ahead, buffer reuse and batch assembly share one state.
package dev.riffle.format.read;

import dev.riffle.format.FileLayout;
import dev.riffle.format.encoding.VectorSizes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Sequential batches over a file, or over some ranges of its rows ({@link FileReader#scan(List,
 * int, RowRanges)}: then only the pages holding those rows are read, read-ahead included, the first
 * and last page of a range whole, rows outside the ranges decoded from them not; no batch spans two
 * ranges). Each page is read whole, once, and its checksum verified before any row of it is
 * returned. With a {@link #select selection}, the pages of the ranges are still all read and
 * verified in order (up to the one that holds the last selected row), but only the selected rows
 * are decoded, into batches of up to {@code batchRows} of them, each within one range. Not
 * thread-safe; close the batches it returns.
 *
 * <p>Reads: consecutive pages of a wide column (by default {@value #WIDE_ROW_BYTES} bytes per row
 * or more) that lie next to each other in the file (at most {@value #MAX_GAP} bytes apart) are read
 * together, in one read of up to {@link #readAhead(int, long) a number of bytes} ({@value
 * #DEFAULT_READ_BYTES} by default; a larger page is one read of its own), so that a cold scan of a
 * wide column reads in multi-MiB requests rather than one request per page (default Parquet-MR
 * reads whole column chunks). Other columns read one page per read.
 *
 * <p>Read-ahead: when a page of a column is loaded, the next reads of the same column (by default
 * {@value #DEFAULT_AHEAD_READS}) are made and checksummed in the background by a small process-wide
 * pool of daemon threads, which is never interrupted (an interrupt would close a shared file
 * channel). A read that has not started by the time it is needed is made by the caller itself. A
 * read is counted in {@link ReadStats} (one read, one round) when its first page is used, so the
 * counters do not depend on timing; a damaged page fails only when its rows are reached, as without
 * read-ahead, and a read that fails as a whole (a truncated file) is retried page by page, so that
 * the failure names the same page as without read-ahead. {@link #close()} (or reaching the end)
 * withdraws reads not yet started and drops the pages read ahead; a cursor that is simply abandoned
 * holds them until it is garbage collected.
 *
 * <p>Memory: each scanned column holds its current read and the reads ahead: by default a wide
 * column {@value #DEFAULT_AHEAD_READS} reads of at most {@value #DEFAULT_READ_BYTES} bytes (less
 * when many columns are scanned, see {@link #readAhead}), another column {@value
 * #DEFAULT_AHEAD_PAGES} pages; reads go into buffers reused within the cursor (direct and
 * 4096-aligned for local files).
 *
 * <p>Why this file is longer than most: the order of a scan's reads, their read-ahead and buffer
 * reuse, and the assembly of batches from pages (ranges, selections) depend on one another's state,
 * which this class keeps in one place; the reads themselves are {@link PageFetch}'s.
 */
public final class ScanCursor implements AutoCloseable {
  /**
   * Reads made ahead per wide column by default ({@link #readAhead} sets them per cursor); other
   * columns read {@value #DEFAULT_AHEAD_PAGES} pages ahead, one per read.
   */
  public static final int DEFAULT_AHEAD_READS = 2;

  /**
   * Bytes read at once at most by default ({@link #readAhead} sets them per cursor): two pages of
   * the writer's default ~1 MiB per read, two reads ahead. Warm scans slow down as more bytes are
   * in flight (most likely the pages no longer stay in the shared L3 cache between the read and the
   * decode), while cold scans through the page cache gain little from reads above a few pages: the
   * kernel's read-ahead already sends the disk multi-MiB requests (measured in
   * benchmarks/RESULTS.md, "Scan read policies").
   */
  public static final long DEFAULT_READ_BYTES = 3L << 20;

  /**
   * Pages of a column at most this far apart are read together, the bytes between them included
   * (pages start on 4096-byte boundaries, so a column's consecutive pages are up to 4095 bytes
   * apart even when nothing lies between them).
   */
  public static final long MAX_GAP = 64L << 10;

  /**
   * By default only columns of at least this many bytes per row (on average) read several pages at
   * once. Their decoding outruns the disk, so a cold scan of them waits on the reads; narrower
   * columns (u64, str16, list_u64, list_str) decode below the disk's rate and gain nothing from
   * larger reads but a larger cache footprint (benchmarks/RESULTS.md, "Scan read policies").
   */
  public static final long WIDE_ROW_BYTES = 1024;

  /** Pages read ahead, one per read, by columns that do not read several pages at once. */
  public static final int DEFAULT_AHEAD_PAGES = 4;

  /**
   * Bytes a cursor's reads (those in use and those ahead, all columns together) aim to stay within
   * by default: a scan of many columns makes smaller reads, down to one page, rather than holding
   * {@code (reads + 1) × readBytes} per column.
   */
  public static final long DEFAULT_MEMORY_BYTES = 64L << 20;

  /** Largest read made into pooled buffers; larger ones get fresh heap buffers. */
  private static final long MAX_POOLED = 32L << 20;

  /** Bytes of free buffers kept per cursor at most (at least two buffers). */
  private static final long MAX_FREE_BYTES = 64L << 20;

  private final FileReader reader;
  private final List<String> fields;
  private final ColumnReader[] columns;
  private final int batchRows;
  private final int[] loadedPage;
  private final ByteBuffer[] pageBuffers;

  /** The read each column's loaded page lies in (null: read on its own, not pooled). */
  private final PageFetch[] current;

  /**
   * Read buffers free for the next reads. A read's buffer comes back here once the cursor has moved
   * past its pages and decoded every row it needed from them; buffers of reads withdrawn or dropped
   * are left to the garbage collector, since a read already running may still be writing into them.
   * Reusing them saves clearing fresh megabytes per read, and direct ones (for sources that prefer
   * them) save the JDK's copy through a temporary direct buffer.
   */
  private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();

  private final boolean direct;

  /**
   * The size of every pooled buffer: the largest read this cursor can make, so that any buffer fits
   * any read; 0 when that is above {@link #MAX_POOLED} (reads then go into fresh heap buffers).
   */
  private int pooledBytes;

  private final ArrayDeque<PageFetch>[] ahead;

  /** Whether column c's reads may span several pages (else one page per read). */
  private final boolean[] coalesce;

  private int aheadReads = DEFAULT_AHEAD_READS;

  /** Whether {@link #readAhead} set the reads of every column. */
  private boolean explicit;

  private long readBytes = DEFAULT_READ_BYTES;

  /** The size reads aim at: {@link #readBytes}, less for a scan of many columns. */
  private long readTarget;

  /** The rows scanned. */
  private final RowRanges ranges;

  /** The range of {@link #ranges} that {@link #nextRow} lies in (or lay in, before a skip). */
  private int range;

  /**
   * Per column, for each page {@code p}, the first page at or after {@code p} that holds a scanned
   * row ({@code pages.length} if none): reads never touch the pages in between.
   */
  private final int[][] nextNeeded;

  /**
   * Per column, the first page not yet loaded: with a selection, the pages of the ranges between
   * the runs of selected rows are loaded (read and checksummed) too, so that a scan reads its
   * ranges' pages the same way whatever it selects.
   */
  private final int[] nextPage;

  /** The rows returned, or null for all. */
  private RowSelection selection;

  /** The selected runs of the batch being assembled: start, length, output row. */
  private long[] runs = new long[3 * 16];

  private long nextRow;
  private long batchFirstRow = -1;
  private boolean closed;

  /** Scans {@code ranges}, which the caller has checked lie in the file. */
  @SuppressWarnings("unchecked")
  ScanCursor(
      FileReader reader,
      List<String> fields,
      ColumnReader[] columns,
      int batchRows,
      RowRanges ranges) {
    this.reader = reader;
    this.fields = fields;
    this.columns = columns;
    this.batchRows = batchRows;
    this.ranges = ranges;
    this.nextRow = ranges.isEmpty() ? 0 : ranges.start(0);
    this.nextNeeded = new int[columns.length][];
    for (int c = 0; c < columns.length; c++) {
      nextNeeded[c] = neededPages(columns[c].pages, ranges);
    }
    this.nextPage = new int[columns.length];
    this.loadedPage = new int[columns.length];
    java.util.Arrays.fill(loadedPage, -1);
    this.pageBuffers = new ByteBuffer[columns.length];
    this.current = new PageFetch[columns.length];
    this.direct = reader.source().prefersDirectBuffers();
    @SuppressWarnings({"unchecked", "rawtypes"}) // Java has no generic array creation.
    ArrayDeque<PageFetch>[] queues = new ArrayDeque[columns.length];
    this.ahead = queues;
    for (int c = 0; c < columns.length; c++) {
      ahead[c] = new ArrayDeque<>();
    }
    this.coalesce = new boolean[columns.length];
    for (int c = 0; c < columns.length; c++) {
      long bytes = 0;
      long rows = 0;
      for (PageInfo p : columns[c].pages) {
        bytes += p.byteLength();
        rows += p.rowCount();
      }
      coalesce[c] = bytes >= WIDE_ROW_BYTES * Math.max(1, rows);
    }
    this.pooledBytes = pooledBytes();
  }

  /** For each page, the first page at or after it that holds a row of {@code rows}. */
  private static int[] neededPages(PageInfo[] pages, RowRanges rows) {
    int[] next = new int[pages.length + 1];
    next[pages.length] = pages.length;
    int r = rows.count() - 1;
    for (int p = pages.length - 1; p >= 0; p--) {
      long start = pages[p].firstRow();
      long end = start + pages[p].rowCount();
      while (r >= 0 && rows.start(r) >= end) {
        r--;
      }
      next[p] = r >= 0 && rows.end(r) > start ? p : next[p + 1];
    }
    return next;
  }

  /**
   * The largest read: per column, the read size or its largest page, whichever is larger, but no
   * more than the span of the column's pages.
   */
  private int pooledBytes() {
    readTarget =
        Math.min(
            readBytes,
            DEFAULT_MEMORY_BYTES / ((long) Math.max(1, columns.length) * (aheadReads + 1)));
    long most = 1;
    for (int c = 0; c < columns.length; c++) {
      PageInfo[] pages = columns[c].pages;
      if (pages.length == 0) {
        continue;
      }
      long largest = 0;
      for (PageInfo p : pages) {
        largest = Math.max(largest, p.byteLength());
      }
      long span = 0;
      long start = pages[0].offset();
      long end = start;
      for (PageInfo p : pages) {
        if (p.offset() < end || p.offset() - end > MAX_GAP) {
          start = p.offset();
        }
        end = p.offset() + p.byteLength();
        span = Math.max(span, end - start);
      }
      long read =
          aheadReads == 0 || !coalesce[c] ? largest : Math.min(Math.max(readTarget, largest), span);
      most = Math.max(most, read);
    }
    return most <= MAX_POOLED ? (int) FileLayout.alignToSector(most) : 0;
  }

  /**
   * Sets how every scanned column reads (by default only columns of at least {@value
   * #WIDE_ROW_BYTES} bytes per row read several pages at once): up to {@code reads} reads ahead of
   * the one in use, each of consecutive pages spanning at most {@code readBytes} bytes (or one
   * larger page; less when {@code (reads + 1) × readBytes} for every scanned column would pass
   * {@value #DEFAULT_MEMORY_BYTES}). {@code reads = 0} turns read-ahead off: each page is then read
   * on its own when it is needed. Applies from the next read on; call it before the first batch to
   * size the buffers once.
   *
   * @return this cursor
   */
  public ScanCursor readAhead(int reads, long readBytes) {
    if (reads < 0 || readBytes < 0) {
      throw new IllegalArgumentException("negative read-ahead");
    }
    this.aheadReads = reads;
    this.explicit = true;
    java.util.Arrays.fill(coalesce, true);
    this.readBytes = readBytes;
    dropAhead();
    int size = pooledBytes();
    if (size != pooledBytes) {
      pooledBytes = size;
      free.clear();
    }
    return this;
  }

  /**
   * The most bytes one read of several pages spans: the read size set, less for a scan of many
   * columns (a single page larger than this is still read whole).
   */
  public long readBytes() {
    return readTarget;
  }

  /**
   * Returns only the selected rows of the ranges from now on, up to {@code batchRows} of them per
   * batch, a batch within one range; the pages of the ranges are still all read and verified, up to
   * the one that holds the last selected row. Call it before the first batch.
   *
   * @return this cursor
   */
  public ScanCursor select(RowSelection rows) {
    this.selection = rows;
    return this;
  }

  /**
   * The row number of the first row of the batch {@link #next()} returned last (-1 before the
   * first): batches of a scan of row ranges hold consecutive rows of one range; with a selection,
   * the batch's first selected row (its other rows are later selected rows of the same range).
   */
  public long batchFirstRow() {
    return batchFirstRow;
  }

  /** The next batch, or null after the last row. */
  public VectorSchemaRoot next() throws IOException {
    if (closed) {
      throw new IllegalStateException("scan cursor is closed");
    }
    int runCount = nextRuns();
    if (runCount == 0) {
      release();
      return null;
    }
    int n = (int) (runs[3 * runCount - 1] + runs[3 * runCount - 2]);
    VectorSchemaRoot root = null;
    try {
      // First the pages of the batch, so that wide rows can be measured and every result buffer
      // allocated once at its final size; then the decoding.
      List<List<Segment>> segments = new ArrayList<>(columns.length);
      VectorSizes[] sizes = new VectorSizes[columns.length];
      List<ByteBuffer> retired = new ArrayList<>();
      for (int c = 0; c < columns.length; c++) {
        List<Segment> list = new ArrayList<>(2);
        for (int r = 0; r < runCount; r++) {
          segmentsOf(c, runs[3 * r], (int) runs[3 * r + 1], (int) runs[3 * r + 2], retired, list);
        }
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
        Target target = reader.targetFor(col.spec, root);
        for (Segment g : segments.get(c)) {
          col.decodePageRows(g.page, g.bytes, g.from, g.count, target, g.out);
        }
      }
      reader.finishBatch(root, n, fields.size());
      batchFirstRow = runs[0];
      nextRow = runs[3 * runCount - 3] + runs[3 * runCount - 2];
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
   * The runs of rows of the next batch into {@link #runs} (start, length, output row each), at most
   * {@code batchRows} rows in all, within one range: the next rows of the ranges, or with a
   * selection their next selected ones; returns how many runs (0 at the end).
   */
  private int nextRuns() {
    while (range < ranges.count()) {
      long end = ranges.end(range);
      int count = nextRow < end ? runsBefore(end) : 0;
      if (count > 0) {
        return count;
      }
      range++;
      if (range < ranges.count()) {
        nextRow = ranges.start(range);
      }
    }
    return 0;
  }

  /** {@link #nextRuns()} within the current range, which ends at {@code endRow}. */
  private int runsBefore(long endRow) {
    if (selection == null) {
      runs[0] = nextRow;
      runs[1] = Math.min(batchRows, endRow - nextRow);
      runs[2] = 0;
      return 1;
    }
    int count = 0;
    int rows = 0;
    long row = nextRow;
    while (rows < batchRows && row < endRow) {
      long start = selection.next(row, endRow);
      if (start < row || start > endRow) {
        throw new IllegalStateException("selection gave row " + start + " after row " + row);
      }
      if (start == endRow) {
        break;
      }
      long end = selection.runEnd(start, Math.min(endRow, start + batchRows - rows));
      if (end <= start || end > endRow) {
        throw new IllegalStateException("selection gave the run [" + start + ", " + end + ")");
      }
      if (3 * count + 3 > runs.length) {
        runs = java.util.Arrays.copyOf(runs, runs.length * 2);
      }
      runs[3 * count] = start;
      runs[3 * count + 1] = end - start;
      runs[3 * count + 2] = rows;
      count++;
      rows += (int) (end - start);
      row = end;
    }
    if (count == 0) {
      nextRow = endRow;
    }
    return count;
  }

  /**
   * Loads the pages of column {@code c} that hold rows {@code [from, from + n)}, and adds their
   * segments, to be decoded from batch row {@code out} on, to {@code list}; the pooled buffers of
   * reads left behind go to {@code retired}.
   */
  private void segmentsOf(
      int c, long from, int n, int out, List<ByteBuffer> retired, List<Segment> list)
      throws IOException {
    ColumnReader col = columns[c];
    long row = from;
    long end = from + n;
    while (row < end) {
      int p = col.pageOf(row);
      if (loadedPage[c] != p) {
        pageBuffers[c] = null;
        loadedPage[c] = -1;
        // Pages of the ranges that hold no selected row are read and verified all the same, in
        // order; pages outside the ranges are not.
        for (int q = nextNeeded[c][nextPage[c]]; q < p; q = nextNeeded[c][q + 1]) {
          load(c, q, retired);
        }
        pageBuffers[c] = load(c, p, retired);
        loadedPage[c] = p;
        nextPage[c] = p + 1;
      }
      PageInfo page = col.pages[p];
      int count = (int) (Math.min(end, page.firstRow() + page.rowCount()) - row);
      list.add(
          new Segment(
              p, pageBuffers[c], (int) (row - page.firstRow()), count, out + (int) (row - from)));
      row += count;
    }
  }

  /**
   * Returns to the pool the buffers of reads this batch left behind: a scan only moves forward, so
   * no later batch reads them, and every row this batch needed from them is decoded by now.
   */
  private void recycle(List<ByteBuffer> retired) {
    int keep = (int) Math.max(2, MAX_FREE_BYTES / Math.max(1, pooledBytes));
    for (ByteBuffer b : retired) {
      if (b.capacity() == pooledBytes && free.size() < keep) {
        free.add(b);
      }
    }
  }

  /** A pooled buffer for a read of {@code length} bytes, or null for a fresh heap buffer. */
  private ByteBuffer buffer(long length) {
    if (pooledBytes == 0 || length > pooledBytes) {
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
    java.util.Arrays.fill(current, null);
    java.util.Arrays.fill(loadedPage, -1);
    free.clear();
  }

  private void dropAhead() {
    for (int c = 0; c < columns.length; c++) {
      for (PageFetch f : ahead[c]) {
        f.cancel();
      }
      ahead[c].clear();
    }
  }

  /**
   * Page {@code p} of column {@code c}, checksummed and counted, and schedules the next reads; the
   * buffer of the read the column leaves goes to {@code retired}.
   */
  private ByteBuffer load(int c, int p, List<ByteBuffer> retired) throws IOException {
    ColumnReader col = columns[c];
    PageFetch f = current[c];
    if (f == null || !f.covers(p)) {
      if (f != null && f.base != null) {
        retired.add(f.base);
      }
      current[c] = null;
      f = null;
      ArrayDeque<PageFetch> queue = ahead[c];
      while (!queue.isEmpty()) {
        PageFetch g = queue.pollFirst();
        if (g.covers(p)) {
          f = g;
          break;
        }
        // Not sequential (cannot happen in a forward scan): forget what was read ahead.
        g.cancel();
      }
      if (f == null) {
        if (aheadReads == 0) {
          return reader.readPage(col, p);
        }
        f = fetch(c, p);
      }
      f.await(reader.stats());
      current[c] = f;
    }
    ByteBuffer page = f.page(p);
    if (page == null) {
      // The read as a whole failed: read the page on its own, so that the failure (if it is not
      // transient) names this page, as without read-ahead.
      page = reader.readPage(col, p);
    }
    scheduleAhead(c);
    return page;
  }

  /** A read of page {@code first} of column {@code c} and of the pages that follow it closely. */
  private PageFetch fetch(int c, int first) {
    PageInfo[] pages = columns[c].pages;
    long start = pages[first].offset();
    long end = start + pages[first].byteLength();
    int last = first;
    while (coalesce[c] && last + 1 < pages.length && nextNeeded[c][last + 1] == last + 1) {
      PageInfo q = pages[last + 1];
      long gap = q.offset() - end;
      if (gap < 0 || gap > MAX_GAP || q.offset() + q.byteLength() - start > readTarget) {
        break;
      }
      end = q.offset() + q.byteLength();
      last++;
    }
    return new PageFetch(
        reader.source(), columns[c], first, last, start, end - start, buffer(end - start));
  }

  private void scheduleAhead(int c) {
    if (aheadReads == 0 || current[c] == null) {
      return;
    }
    ColumnReader col = columns[c];
    ArrayDeque<PageFetch> queue = ahead[c];
    int next = nextNeeded[c][(queue.isEmpty() ? current[c] : queue.peekLast()).last + 1];
    int depth = coalesce[c] || explicit ? aheadReads : DEFAULT_AHEAD_PAGES;
    while (queue.size() < depth && next < col.pages.length) {
      PageFetch f = fetch(c, next);
      queue.addLast(f);
      ReadAheadPool.submit(f);
      next = nextNeeded[c][f.last + 1];
    }
  }
}
