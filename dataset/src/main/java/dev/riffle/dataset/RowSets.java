package dev.riffle.dataset;

import dev.riffle.format.read.RowSelection;
import dev.riffle.format.read.ScanCursor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import org.roaringbitmap.longlong.PeekableLongIterator;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Sets of global row ids as they appear in manifests: the portable 64-bit Roaring format (the
 * RoaringFormatSpec's 64-bit extension), base64-encoded, so that any Roaring implementation reads
 * them.
 */
public final class RowSets {
  private RowSets() {}

  /**
   * Adds rows {@code [start, end)}. Why not always {@code addRange}: it replaces the container of
   * the rows' 65,536-row chunk on every call, so thousands of short ranges in one chunk (the rows a
   * filter matches) cost a copy of it each — seconds where adding the rows one by one, which
   * updates the container in place, takes milliseconds. Long ranges still go in at once.
   */
  public static void addRange(Roaring64Bitmap rows, long start, long end) {
    if (end - start >= LONG_RANGE) {
      rows.addRange(start, end);
      return;
    }
    for (long r = start; r < end; r++) {
      rows.addLong(r);
    }
  }

  /** Ranges at least this long are added with {@code addRange}. */
  private static final long LONG_RANGE = 4096;

  /** Encodes a set (run-optimized first, for size). */
  public static String encode(Roaring64Bitmap rows) {
    Roaring64Bitmap copy = rows.clone();
    copy.runOptimize();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      copy.serializePortable(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  /**
   * Decodes a set.
   *
   * @throws IOException if the text is not base64 or not a portable bitmap
   */
  public static Roaring64Bitmap decode(String text) throws IOException {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new IOException("row set is not base64: " + e.getMessage(), e);
    }
    Roaring64Bitmap rows = new Roaring64Bitmap();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      rows.deserializePortable(in);
      if (in.available() != 0) {
        throw new IOException(in.available() + " trailing bytes after the row set");
      }
    } catch (RuntimeException e) {
      // The library validates keys but may still trip over hostile container contents.
      throw new IOException("row set does not decode: " + e, e);
    }
    return rows;
  }

  /** Rows of {@code rows} before {@code row} (an id below 2^63, as manifests hold them). */
  public static long rankBefore(Roaring64Bitmap rows, long row) {
    return row == 0 ? 0 : rows.rankLong(row - 1);
  }

  /**
   * The rows of one file in a set of global row ids, as a scan's selection ({@link
   * ScanCursor#select}): the file's row {@code r} is selected if {@code firstRow + r} is in {@code
   * rows}. It follows the scan forward with one iterator, so that each call costs about as much as
   * the rows it steps over; it serves one scan.
   *
   * @param firstRow the global id of the file's first row
   */
  public static RowSelection selection(Roaring64Bitmap rows, long firstRow) {
    PeekableLongIterator it = rows.getLongIteratorFrom(firstRow);
    return new RowSelection() {
      @Override
      public long next(long row, long end) {
        it.advanceIfNeeded(firstRow + row);
        return it.hasNext() ? Math.min(it.peekNext() - firstRow, end) : end;
      }

      @Override
      public long runEnd(long row, long end) {
        it.advanceIfNeeded(firstRow + row);
        long at = firstRow + row;
        long to = firstRow + end;
        while (at < to && it.hasNext() && it.peekNext() == at) {
          it.next();
          at++;
        }
        return at - firstRow;
      }
    };
  }

  /** The rows {@code [0, n)}. */
  public static Roaring64Bitmap range(long n) {
    Roaring64Bitmap r = new Roaring64Bitmap();
    if (n > 0) {
      r.addRange(0, n);
    }
    return r;
  }
}
