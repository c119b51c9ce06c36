package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.read.RowSelection;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scans of a row range ({@link FileReader#scan(List, int, long, long)}), and of selected rows of
 * one ({@link ScanCursor#select}): the rows a take of them returns, read through whole checksummed
 * pages, every page of the range and only those.
 */
@ExtendWith(SeedExtension.class)
class ScanRangeTest {
  @TempDir Path dir;
  private BufferAllocator allocator;
  private long seed;

  @BeforeEach
  void setUp(@Seed long seed) {
    allocator = new RootAllocator();
    this.seed = seed;
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  static Stream<TypeCase> cases() {
    return TypeCase.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aRangeScanReturnsTheRangesRowsFromItsPagesOnly(TypeCase c) throws Exception {
    Path p = dir.resolve("f.riffle");
    int rows = c.severalPagesRows;
    Files.write(p, CorruptionTest.writeFile(c, rows, seed, 0.1, allocator));
    SplittableRandom random = new SplittableRandom(seed);
    try (FileReader r = FileReader.open(p, allocator)) {
      r.loadColumns(null);
      for (int k = 0; k < 6; k++) {
        long start = k == 0 ? 0 : random.nextLong(rows);
        // An empty range, the whole file, a tail, and random ranges.
        long end = k == 2 ? start : k == 1 ? rows : start + random.nextLong(rows - start + 1);
        int batch = 1 + random.nextInt(k % 2 == 0 ? 50 : 5000);
        String where = c.name + " rows [" + start + ", " + end + ") batch " + batch;
        long[] expected = new long[(int) (end - start)];
        for (int i = 0; i < expected.length; i++) {
          expected[i] = start + i;
        }
        r.stats().reset();
        long at = start;
        // Without read-ahead, reads are exactly the pages of the range, one each.
        try (ScanCursor cursor = r.scan(null, batch, start, end).readAhead(0, 0)) {
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            try (VectorSchemaRoot g = got;
                VectorSchemaRoot want =
                    r.take(
                        Arrays.copyOfRange(
                            expected, (int) (at - start), (int) (at - start) + g.getRowCount()),
                        null)) {
              assertThat(g.getRowCount()).as(where).isBetween(1, batch);
              CorruptionTest.assertSame(want, g, where + " at row " + at);
              at += g.getRowCount();
            }
          }
        }
        assertThat(at).as(where).isEqualTo(end);
        // The takes above count too: count the scan alone.
        r.stats().reset();
        try (ScanCursor cursor = r.scan(null, batch, start, end).readAhead(0, 0)) {
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            got.close();
          }
        }
        assertThat(r.stats().reads()).as(where + " reads").isEqualTo(pagesOf(r, start, end));
        // With read-ahead: the same rows, and no read past the range's last page.
        r.stats().reset();
        long scanned = 0;
        try (ScanCursor cursor = r.scan(null, batch, start, end)) {
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            scanned += got.getRowCount();
            got.close();
          }
        }
        assertThat(scanned).isEqualTo(end - start);
        assertThat(r.stats().bytesRead())
            .as(where + " bytes")
            .isLessThanOrEqualTo(spanOf(r, start, end));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aSelectionReturnsItsRowsAndReadsEveryPageOfItsRange(TypeCase c) throws Exception {
    Path p = dir.resolve("f.riffle");
    int rows = c.severalPagesRows;
    Files.write(p, CorruptionTest.writeFile(c, rows, seed, 0.1, allocator));
    SplittableRandom random = new SplittableRandom(seed);
    try (FileReader r = FileReader.open(p, allocator)) {
      r.loadColumns(null);
      for (double density : new double[] {0.01, 0.3, 0.9, 1}) {
        long start = random.nextLong(rows / 4);
        long end = rows - random.nextLong(rows / 4);
        BitSet chosen = new BitSet();
        for (long row = start; row < end; row++) {
          // Runs as well as single rows: splits and deletions have both.
          if (random.nextDouble() < density) {
            int run = random.nextInt(4) == 0 ? 1 + random.nextInt(50) : 1;
            chosen.set((int) row, (int) Math.min(end, row + run));
            row += run - 1;
          }
        }
        long[] expected = chosen.stream().asLongStream().toArray();
        int batch = 1 + random.nextInt(700);
        String where = c.name + " density " + density + " batch " + batch;
        r.stats().reset();
        long at = 0;
        try (ScanCursor cursor =
            r.scan(null, batch, start, end).readAhead(0, 0).select(selection(chosen))) {
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            try (VectorSchemaRoot g = got) {
              assertThat(g.getRowCount()).as(where).isBetween(1, batch);
              at += g.getRowCount();
            }
          }
        }
        assertThat(at).as(where).isEqualTo(expected.length);
        long last = expected.length == 0 ? start : expected[expected.length - 1] + 1;
        assertThat(r.stats().reads()).as(where + " reads").isEqualTo(pagesOf(r, start, last));
        assertThat(r.stats().valuesDecoded())
            .as(where)
            .isEqualTo(expected.length * (long) r.schema().fields().size());
        // The rows themselves, with read-ahead, against takes.
        at = 0;
        try (ScanCursor cursor = r.scan(null, batch, start, end).select(selection(chosen))) {
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            try (VectorSchemaRoot g = got;
                VectorSchemaRoot want =
                    r.take(
                        Arrays.copyOfRange(expected, (int) at, (int) at + g.getRowCount()), null)) {
              CorruptionTest.assertSame(want, g, where + " at selected row " + at);
              at += g.getRowCount();
            }
          }
        }
        assertThat(at).as(where).isEqualTo(expected.length);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aSelectionOfSeveralRangesReadsTheirPagesOnlyAndKeepsBatchesInOneRange(TypeCase c)
      throws Exception {
    Path p = dir.resolve("f.riffle");
    int rows = c.severalPagesRows;
    Files.write(p, CorruptionTest.writeFile(c, rows, seed, 0.1, allocator));
    SplittableRandom random = new SplittableRandom(seed);
    try (FileReader r = FileReader.open(p, allocator)) {
      r.loadColumns(null);
      for (double density : new double[] {0, 0.02, 0.5, 1}) {
        // Three ranges with gaps between them (a page filter's candidates, or several parts).
        long[] cuts = random.longs(6, 0, rows).sorted().toArray();
        RowRanges ranges = RowRanges.none();
        for (int i = 0; i < 6; i += 2) {
          if (i == 0 || cuts[i] > cuts[i - 1]) {
            ranges = ranges.union(RowRanges.of(cuts[i], cuts[i + 1]));
          }
        }
        BitSet chosen = new BitSet();
        for (int i = 0; i < ranges.count(); i++) {
          for (long row = ranges.start(i); row < ranges.end(i); row++) {
            if (random.nextDouble() < density) {
              chosen.set((int) row);
            }
          }
        }
        // Selected rows outside the ranges are not returned.
        BitSet selected = (BitSet) chosen.clone();
        for (int row = 0; row < rows; row++) {
          if (!ranges.contains(row) && random.nextBoolean()) {
            selected.set(row);
          }
        }
        long[] expected = chosen.stream().asLongStream().toArray();
        int batch = 1 + random.nextInt(300);
        String where = c.name + " " + ranges + " density " + density + " batch " + batch;
        r.stats().reset();
        int at = 0;
        try (ScanCursor cursor =
            r.scan(null, batch, ranges).readAhead(0, 0).select(selection(selected))) {
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            try (VectorSchemaRoot g = got) {
              int n = g.getRowCount();
              assertThat(n).as(where).isBetween(1, batch);
              assertThat(cursor.batchFirstRow()).as(where).isEqualTo(expected[at]);
              assertThat(rangeOf(ranges, expected[at + n - 1]))
                  .as(where + " one range per batch")
                  .isEqualTo(rangeOf(ranges, expected[at]));
              try (VectorSchemaRoot want = r.take(Arrays.copyOfRange(expected, at, at + n), null)) {
                CorruptionTest.assertSame(want, g, where + " at selected row " + at);
              }
              at += n;
            }
          }
        }
        assertThat(at).as(where).isEqualTo(expected.length);
        // Reads counted without the takes: scan again.
        r.stats().reset();
        try (ScanCursor cursor =
            r.scan(null, batch, ranges).readAhead(0, 0).select(selection(selected))) {
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            got.close();
          }
        }
        long last = expected.length == 0 ? 0 : expected[expected.length - 1] + 1;
        RowRanges read = ranges.intersect(RowRanges.of(0, last));
        // Every page holding a row of the ranges up to the last selected one, once (a page
        // holding rows of two ranges too), and no other.
        long pages = 0;
        for (int col = 0; col < r.schema().columns().size(); col++) {
          for (PageInfo page : r.pages(col)) {
            RowRanges of = RowRanges.of(page.firstRow(), page.firstRow() + page.rowCount());
            pages += read.intersect(of).isEmpty() ? 0 : 1;
          }
        }
        assertThat(r.stats().reads()).as(where + " reads").isEqualTo(pages);
        assertThat(r.stats().valuesDecoded())
            .as(where)
            .isEqualTo(expected.length * (long) r.schema().fields().size());
      }
    }
  }

  private static int rangeOf(RowRanges ranges, long row) {
    for (int i = 0; i < ranges.count(); i++) {
      if (row >= ranges.start(i) && row < ranges.end(i)) {
        return i;
      }
    }
    return -1;
  }

  /** The rows of a bit set, as a scan selection. */
  static RowSelection selection(BitSet rows) {
    return new RowSelection() {
      @Override
      public long next(long row, long end) {
        int next = rows.nextSetBit((int) row);
        return next < 0 ? end : Math.min(next, end);
      }

      @Override
      public long runEnd(long row, long end) {
        return Math.min(rows.nextClearBit((int) row), end);
      }
    };
  }

  /** The pages, over all columns, that hold a row of [start, end). */
  private static long pagesOf(FileReader r, long start, long end) throws Exception {
    if (start >= end) {
      return 0;
    }
    long n = 0;
    for (int c = 0; c < r.schema().columns().size(); c++) {
      for (PageInfo page : r.pages(c)) {
        if (page.firstRow() < end && page.firstRow() + page.rowCount() > start) {
          n++;
        }
      }
    }
    return n;
  }

  /** Bytes from each column's first to last page of [start, end), summed. */
  private static long spanOf(FileReader r, long start, long end) throws Exception {
    long n = 0;
    for (int c = 0; c < r.schema().columns().size(); c++) {
      long from = Long.MAX_VALUE;
      long to = 0;
      for (PageInfo page : r.pages(c)) {
        if (page.firstRow() < end && page.firstRow() + page.rowCount() > start) {
          from = Math.min(from, page.offset());
          to = Math.max(to, page.offset() + page.byteLength());
        }
      }
      n += Math.max(0, to - from);
    }
    return n;
  }

  @Test
  void aDamagedPageFailsOnlyARangeThatHoldsIt() throws Exception {
    TypeCase c = TypeCase.single(TypeCase.f("s", ArrowType.Utf8.INSTANCE), 20_000);
    Path p = dir.resolve("f.riffle");
    byte[] bytes = CorruptionTest.writeFile(c, c.severalPagesRows, seed, 0, allocator);
    Files.write(p, bytes);
    PageInfo victim;
    long rows;
    try (FileReader r = FileReader.open(p, allocator)) {
      List<PageInfo> pages = r.pages(0);
      assertThat(pages.size()).isGreaterThan(2);
      victim = pages.get(1);
      rows = r.rowCount();
    }
    bytes[(int) (victim.offset() + victim.byteLength() / 2)] ^= 0x10;
    Files.write(p, bytes);
    try (FileReader r = FileReader.open(p, allocator)) {
      long before = victim.firstRow();
      long after = victim.firstRow() + victim.rowCount();
      for (long[] range : new long[][] {{0, before}, {after, rows}}) {
        try (ScanCursor cursor = r.scan(null, 1000, range[0], range[1])) {
          long n = 0;
          VectorSchemaRoot got;
          while ((got = cursor.next()) != null) {
            n += got.getRowCount();
            got.close();
          }
          assertThat(n).isEqualTo(range[1] - range[0]);
        }
      }
      try (ScanCursor cursor = r.scan(null, 1000, before + 1, before + 2)) {
        assertThatThrownBy(cursor::next)
            .isInstanceOf(CorruptFileException.class)
            .hasMessageContaining(p.toString())
            .hasMessageContaining("at offset " + victim.offset())
            .hasMessageContaining("fails its checksum");
      }
      assertThatThrownBy(() -> r.scan(null, 10, 5, 4)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> r.scan(null, 10, -1, 4))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> r.scan(null, 10, 0, rows + 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("has " + rows + " rows");
      try (ScanCursor empty = r.scan(null, 10, 7, 7)) {
        assertThat(empty.next()).isNull();
      }
    }
  }
}
