package dev.riffle.convert.h5ad;

import dev.riffle.convert.InputException;
import io.jhdf.api.Dataset;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A CSC matrix transposed to rows out of core, in two passes over the file. The first counts the
 * entries of every row (4 bytes a row in memory) and cuts the rows into buckets of consecutive rows
 * whose entries fit in {@code bucketBytes}. The second reads the columns in order and appends each
 * entry (row, column, value) to its bucket's region of a temporary file, through a small buffer per
 * bucket. Rows are then served a bucket at a time: the bucket is read back and counting-sorted by
 * row, and as the columns were read in order, each row's columns come out ascending. Memory is the
 * row counts (4 bytes a row) plus about {@code bucketBytes}, whatever the number of entries: the
 * slices read from the file, and then either the spill buffers or one loaded bucket. When there are
 * so many buckets that their buffers would not fit, the second pass is repeated for groups of
 * buckets.
 */
final class CscRows implements SparseRows {
  /** Most entries read from the file at once. */
  private static final int READ = 1 << 18;

  /** Fewest entries read at once, whatever the budget. */
  private static final int MIN_READ = 1024;

  /** A spilled entry: row within its bucket, column, value (as a double: every source fits). */
  private static final int ENTRY = 16;

  /** An entry in a loaded bucket: column and value. */
  private static final int LOADED = 12;

  private final long rows;
  private final long cols;
  private final ArrowType valueType;
  private final int[] rowCounts;
  private final long[] bucketRows;
  private final long[] bucketEntries;
  private final FileChannel spill;
  private final BufferMeter meter;
  private final int readEntries;
  private int loaded = -1;
  private int[] loadedPtr;
  private int[] loadedCols;
  private long[] loadedValues;

  /** Whether the stored values are integers (spilled as longs, else as double bits). */
  private final boolean integral;

  private CscRows(
      long rows,
      long cols,
      ArrowType valueType,
      int[] rowCounts,
      long[] bucketRows,
      long[] bucketEntries,
      FileChannel spill,
      BufferMeter meter,
      int readEntries) {
    this.readEntries = readEntries;
    this.rows = rows;
    this.cols = cols;
    this.valueType = valueType;
    this.integral = valueType instanceof ArrowType.Int;
    this.rowCounts = rowCounts;
    this.bucketRows = bucketRows;
    this.bucketEntries = bucketEntries;
    this.spill = spill;
    this.meter = meter;
  }

  /**
   * Reads the matrix into the buckets.
   *
   * @param tempDir where the spill file goes (deleted on close)
   */
  static CscRows transpose(
      String file,
      Dataset indptr,
      Dataset indices,
      Dataset data,
      long rows,
      long cols,
      long bucketBytes,
      Path tempDir,
      BufferMeter meter)
      throws IOException {
    if (rows > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("more than 2^31 rows in a CSC matrix");
    }
    long nnz = Hdf.length(indices);
    // A slice of indices and data (up to 16 bytes an entry) takes an eighth of the budget.
    int readEntries = (int) Math.max(MIN_READ, Math.min(READ, bucketBytes / 8 / 16));
    // A loaded bucket's arrays, its row pointers and its read buffer take the rest.
    long loadBudget = bucketBytes - (long) readEntries * 16 - (long) readEntries * ENTRY / 16;
    int[] counts = new int[(int) rows];
    for (long k0 = 0; k0 < nnz; k0 += readEntries) {
      int n = (int) Math.min(readEntries, nnz - k0);
      Object idx = Hdf.slice(indices, k0, n);
      for (int k = 0; k < n; k++) {
        long r = Values.toLong(idx, k);
        if (r < 0 || r >= rows) {
          throw new InputException(
              file,
              Matrices.path(indices)
                  + "["
                  + (k0 + k)
                  + "] = "
                  + r
                  + " (column "
                  + column(indptr, k0 + k)
                  + ") is outside the "
                  + rows
                  + " rows");
        }
        counts[(int) r]++;
      }
    }
    // Buckets of consecutive rows, each (but a single huge row) within bucketBytes once loaded.
    List<Long> starts = new ArrayList<>();
    List<Long> firsts = new ArrayList<>();
    long entries = 0;
    long inBucket = 0;
    long rowsInBucket = 0;
    for (int r = 0; r < rows; r++) {
      long grown = (inBucket + counts[r]) * LOADED + (rowsInBucket + 2) * 8;
      if (r == 0 || (rowsInBucket > 0 && grown > loadBudget)) {
        starts.add((long) r);
        firsts.add(entries);
        inBucket = 0;
        rowsInBucket = 0;
      }
      inBucket += counts[r];
      rowsInBucket++;
      entries += counts[r];
    }
    starts.add(rows);
    firsts.add(entries);
    long[] bucketRows = starts.stream().mapToLong(Long::longValue).toArray();
    long[] bucketEntries = firsts.stream().mapToLong(Long::longValue).toArray();
    Path spillFile = Files.createTempFile(tempDir, "riffle-csc-", ".spill");
    FileChannel ch =
        FileChannel.open(
            spillFile,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE,
            StandardOpenOption.DELETE_ON_CLOSE);
    CscRows m =
        new CscRows(
            rows,
            cols,
            Values.arrowType(data),
            counts,
            bucketRows,
            bucketEntries,
            ch,
            meter,
            readEntries);
    try {
      m.spill(indptr, indices, data, nnz, bucketBytes);
      return m;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** The column that entry {@code k} is in (for a message: indptr was checked). */
  private static long column(Dataset indptr, long k) {
    long lo = 0;
    long hi = Hdf.length(indptr) - 1;
    // The last column whose pointer is at most k.
    while (lo < hi) {
      long mid = (lo + hi + 1) >>> 1;
      if (Values.toLong(Hdf.slice(indptr, mid, 1), 0) <= k) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  private void spill(Dataset indptr, Dataset indices, Dataset data, long nnz, long bucketBytes)
      throws IOException {
    int buckets = bucketRows.length - 1;
    long slices = (long) readEntries * 16;
    long room = Math.max(4096, bucketBytes - slices);
    // Buffers of 4 KiB to 64 KiB share what the slices leave; if 4 KiB each is too much, the
    // buckets are spilled in groups, one pass over the matrix per group.
    int buf = (int) Math.max(4096, Math.min(1 << 16, room / Math.max(1, buckets)));
    buf -= buf % ENTRY;
    int perPass = (int) Math.max(1, Math.min(buckets, room / buf));
    Object ptr = Hdf.all(indptr);
    long[] written = new long[buckets];
    for (int first = 0; first < buckets; first += perPass) {
      int last = Math.min(buckets, first + perPass);
      ByteBuffer[] buffers = new ByteBuffer[last - first];
      long allocated = slices;
      int c = 0;
      for (long k0 = 0; k0 < nnz; k0 += readEntries) {
        int n = (int) Math.min(readEntries, nnz - k0);
        Object idx = Hdf.slice(indices, k0, n);
        Object val = Hdf.slice(data, k0, n);
        for (int k = 0; k < n; k++) {
          while (c < cols && Values.toLong(ptr, c + 1) <= k0 + k) {
            c++;
          }
          long r = Values.toLong(idx, k);
          int b = bucketOf(r);
          if (b < first || b >= last) {
            continue;
          }
          ByteBuffer bb = buffers[b - first];
          if (bb == null) {
            bb = buffers[b - first] = ByteBuffer.allocate(buf);
            allocated += buf;
            meter.transpose(allocated);
          }
          bb.putInt((int) (r - bucketRows[b])).putInt(c).putLong(Values.bits(val, k, integral));
          if (!bb.hasRemaining()) {
            written[b] += flush(bb, b, written[b]);
          }
        }
      }
      for (int b = first; b < last; b++) {
        if (buffers[b - first] != null) {
          written[b] += flush(buffers[b - first], b, written[b]);
        }
      }
    }
  }

  private long flush(ByteBuffer bb, int bucket, long done) throws IOException {
    bb.flip();
    long at = bucketEntries[bucket] * ENTRY + done;
    int n = bb.remaining();
    while (bb.hasRemaining()) {
      at += spill.write(bb, at);
    }
    bb.clear();
    return n;
  }

  private int bucketOf(long row) {
    int i = Arrays.binarySearch(bucketRows, row);
    return i >= 0 ? i : -i - 2;
  }

  private void load(int b) throws IOException {
    int nrows = (int) (bucketRows[b + 1] - bucketRows[b]);
    int count = (int) (bucketEntries[b + 1] - bucketEntries[b]);
    loadedPtr = null;
    loadedCols = null;
    loadedValues = null;
    int[] ptr = new int[nrows + 1];
    for (int i = 0; i < nrows; i++) {
      ptr[i + 1] = ptr[i] + rowCounts[(int) bucketRows[b] + i];
    }
    int[] cursor = Arrays.copyOf(ptr, nrows);
    int[] cs = new int[count];
    long[] vs = new long[count];
    ByteBuffer bb = ByteBuffer.allocate(readEntries / 16 * ENTRY);
    meter.transpose((long) count * LOADED + 8L * (nrows + 1) + bb.capacity());
    long at = bucketEntries[b] * ENTRY;
    long end = bucketEntries[b + 1] * ENTRY;
    while (at < end) {
      bb.clear();
      bb.limit((int) Math.min(bb.capacity(), end - at));
      while (bb.hasRemaining()) {
        int got = spill.read(bb, at + bb.position());
        if (got < 0) {
          throw new IOException("spill file ended early");
        }
      }
      at += bb.limit();
      bb.flip();
      while (bb.hasRemaining()) {
        int pos = cursor[bb.getInt()]++;
        cs[pos] = bb.getInt();
        vs[pos] = bb.getLong();
      }
    }
    loaded = b;
    loadedPtr = ptr;
    loadedCols = cs;
    loadedValues = vs;
  }

  @Override
  public ArrowType valueType() {
    return valueType;
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public long cols() {
    return cols;
  }

  @Override
  public long[] extents(long start, int n) {
    long[] out = new long[n + 1];
    for (int i = 0; i < n; i++) {
      out[i + 1] = out[i] + rowCounts[(int) (start + i)];
    }
    return out;
  }

  @Override
  public void fill(ListVector indexList, ListVector valueList, long start, int n)
      throws IOException {
    IntVector iv = (IntVector) indexList.getDataVector();
    FieldVector vv = valueList.getDataVector();
    int[] lengths = new int[n];
    int at = 0;
    for (int i = 0; i < n; i++) {
      long r = start + i;
      int b = bucketOf(r);
      if (b != loaded) {
        load(b);
      }
      int local = (int) (r - bucketRows[b]);
      for (int k = loadedPtr[local]; k < loadedPtr[local + 1]; k++) {
        iv.setSafe(at, loadedCols[k]);
        Values.setBits(vv, at, loadedValues[k], integral);
        at++;
      }
      lengths[i] = loadedPtr[local + 1] - loadedPtr[local];
    }
    SparseRows.offsets(indexList, valueList, lengths, n, at);
  }

  @Override
  public void close() throws IOException {
    spill.close();
  }
}
