package dev.riffle.format.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.read.RowSelection;
import dev.riffle.format.read.ScanCursor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Every way a file's rows are read, for differential tests that compare each row read with the row
 * written: takes of random rows in any order with repeats, a whole scan, a scan of row ranges, a
 * selective scan and a parallel take from a file through the I/O engine. The caller says what equal
 * means ({@link RowCheck}); the read paths stay the same for every kind of value.
 */
public final class ReadPaths {
  private ReadPaths() {}

  /** Fails unless row {@code g} of {@code got} is source row {@code w}. */
  @FunctionalInterface
  public interface RowCheck {
    void check(String what, int w, VectorSchemaRoot got, int g);
  }

  /**
   * Takes of every row once and some twice, in random order, in takes of random lengths (one row to
   * all of them), then of the first and last rows.
   */
  public static void takes(
      String variant, FileReader f, int rows, RowCheck check, SplittableRandom r)
      throws IOException {
    long[] order = new long[rows + rows / 5];
    for (int i = 0; i < order.length; i++) {
      order[i] = i < rows ? i : r.nextInt(rows);
    }
    for (int i = order.length - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      long t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int at = 0; at < order.length; ) {
      int n =
          Math.min(order.length - at, r.nextInt(3) == 0 ? 1 + r.nextInt(8) : 1 + r.nextInt(2000));
      long[] take = Arrays.copyOfRange(order, at, at + n);
      try (VectorSchemaRoot got = f.take(take, null)) {
        for (int i = 0; i < n; i++) {
          check.check(variant + ": take", (int) take[i], got, i);
        }
      }
      at += n;
    }
    long[] ends = {rows - 1, 0, rows - 1};
    try (VectorSchemaRoot got = f.take(ends, null)) {
      for (int i = 0; i < ends.length; i++) {
        check.check(variant + ": take", (int) ends[i], got, i);
      }
    }
  }

  /** A whole scan, a scan of a few row ranges and a scan of a random selection of a range. */
  public static void scans(
      String variant, FileReader f, int rows, RowCheck check, SplittableRandom r)
      throws IOException {
    scan(variant + ": scan", f.scan(null, 1 + r.nextInt(1000)), rows, null, check);
    RowRanges ranges = RowRanges.none();
    for (int k = 1 + r.nextInt(4); k > 0; k--) {
      long a = r.nextInt(rows);
      ranges = ranges.union(RowRanges.of(a, Math.min(rows, a + 1 + r.nextInt(rows / 4))));
    }
    scan(
        variant + ": scan of " + ranges,
        f.scan(null, 1 + r.nextInt(500), ranges),
        rows,
        ranges,
        check);
    long a = r.nextInt(rows / 2);
    long b = a + r.nextInt(rows / 2);
    BitSet selected = new BitSet();
    double rate = r.nextDouble();
    for (long i = a; i < b; i++) {
      if (r.nextDouble() < rate) {
        selected.set((int) i);
      }
    }
    RowSelection selection =
        new RowSelection() {
          @Override
          public long next(long row, long end) {
            int s = selected.nextSetBit((int) row);
            return s < 0 ? end : Math.min(s, end);
          }

          @Override
          public long runEnd(long row, long end) {
            return Math.min(selected.nextClearBit((int) row), end);
          }
        };
    RowRanges within = RowRanges.of(a, b);
    try (ScanCursor c = f.scan(null, 1 + r.nextInt(300), within).select(selection)) {
      String what = variant + ": selection in [" + a + ", " + b + ")";
      int next = selected.nextSetBit(0);
      VectorSchemaRoot batch;
      while ((batch = c.next()) != null) {
        try (VectorSchemaRoot got = batch) {
          assertThat(c.batchFirstRow()).as(what + ": batch's first row").isEqualTo(next);
          for (int i = 0; i < got.getRowCount(); i++) {
            assertThat(next).as(what + ": rows returned").isNotNegative();
            check.check(what, next, got, i);
            next = selected.nextSetBit(next + 1);
          }
        }
      }
      assertThat(next).as(what + ": first selected row not returned").isNegative();
    }
  }

  /** Checks that a cursor returns the rows of {@code ranges} (all if null), in order. */
  private static void scan(
      String what, ScanCursor cursor, int rows, RowRanges ranges, RowCheck check)
      throws IOException {
    ranges = ranges == null ? RowRanges.all(rows) : ranges;
    long expected = 0;
    int range = 0;
    long row = ranges.isEmpty() ? 0 : ranges.start(0);
    try (ScanCursor c = cursor) {
      VectorSchemaRoot batch;
      while ((batch = c.next()) != null) {
        try (VectorSchemaRoot got = batch) {
          for (int i = 0; i < got.getRowCount(); i++) {
            while (row >= ranges.end(range)) {
              row = ranges.start(++range);
            }
            check.check(what, (int) row, got, i);
            row++;
            expected++;
          }
        }
      }
    }
    assertThat(expected).as(what + ": rows scanned").isEqualTo(ranges.rowCount());
  }

  /**
   * A take of random rows through the I/O engine from a file in {@code dir}, O_DIRECT where the
   * file system allows it, 16 reads in flight.
   */
  public static void parallelTake(
      Path dir,
      byte[] bytes,
      int rows,
      RowCheck check,
      SplittableRandom r,
      BufferAllocator allocator)
      throws IOException {
    Path file = Files.write(dir.resolve("parallel.riffle"), bytes);
    long[] take = new long[1500];
    for (int i = 0; i < take.length; i++) {
      take[i] = r.nextInt(rows);
    }
    try (FileReader f = FileReader.open(file, allocator, true)) {
      f.setReadsInFlight(16);
      try (VectorSchemaRoot got = f.take(take, null)) {
        for (int i = 0; i < take.length; i++) {
          check.check("parallel take", (int) take[i], got, i);
        }
      }
    }
  }
}
