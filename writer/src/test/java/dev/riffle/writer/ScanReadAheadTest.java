package dev.riffle.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileReader;
import dev.riffle.format.PageInfo;
import dev.riffle.format.ReadStats;
import dev.riffle.format.ScanCursor;
import dev.riffle.format.testing.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scan read-ahead and the per-thread last-sector memo of takes: same rows, same counters, same
 * failures as the plain paths.
 */
class ScanReadAheadTest {
  @TempDir Path dir;
  private BufferAllocator allocator;
  private long seed;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    seed = Seeds.seed();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  static Stream<TypeCase> cases() {
    return TypeCase.all().stream();
  }

  private Path write(TypeCase c, int rows, double nullRate, String name) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, CorruptionTest.writeFile(c, rows, seed, nullRate, allocator));
    return p;
  }

  private static void assertSameStats(ReadStats a, ReadStats b, String where) {
    assertThat(b.reads()).as(where + " reads").isEqualTo(a.reads());
    assertThat(b.bytesRead()).as(where + " bytes").isEqualTo(a.bytesRead());
    assertThat(b.sectors()).as(where + " sectors").isEqualTo(a.sectors());
    assertThat(b.rounds()).as(where + " rounds").isEqualTo(a.rounds());
    assertThat(b.valuesDecoded()).as(where + " values").isEqualTo(a.valuesDecoded());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameRowsAndCountersWithAndWithoutReadAhead(TypeCase c) throws Exception {
    String where = Seeds.reproduce("writer", getClass(), "sameRows", seed) + " " + c.name;
    Path p = write(c, c.severalPagesRows, 0.1, "f.riffle");
    int[][] aheads = {{2, 8 << 20}, {8, 1 << 30}, {1, 4096}};
    for (int[] ahead : aheads) {
      for (int batch : new int[] {1000, 77}) {
        try (FileReader plain = FileReader.open(p, allocator);
            FileReader fast = FileReader.open(p, allocator)) {
          // Load the column metadata first, so that both count only the scan.
          plain.pages(0);
          fast.pages(0);
          plain.stats().reset();
          fast.stats().reset();
          ScanCursor a = plain.scan(null, batch).readAhead(0, 0);
          try (ScanCursor b = fast.scan(null, batch).readAhead(ahead[0], ahead[1])) {
            long rows = 0;
            while (true) {
              try (VectorSchemaRoot x = a.next();
                  VectorSchemaRoot y = b.next()) {
                if (x == null) {
                  assertThat(y).as(where).isNull();
                  break;
                }
                CorruptionTest.assertSame(x, y, where + " batch at row " + rows);
                rows += x.getRowCount();
              }
            }
            assertThat(rows).isEqualTo(c.severalPagesRows);
          }
          assertSameStats(plain.stats(), fast.stats(), where + " ahead " + ahead[0]);
          assertThat(fast.stats().rounds()).isEqualTo(pageCount(fast));
        }
      }
    }
  }

  private static long pageCount(FileReader r) throws Exception {
    long n = 0;
    for (int c = 0; c < r.schema().columns().size(); c++) {
      n += r.pages(c).size();
    }
    return n;
  }

  @Test
  void abandonedAndClosedCursorsReleaseEverything() throws Exception {
    TypeCase c = TypeCase.all().get(7);
    Path p = write(c, c.severalPagesRows, 0.1, "f.riffle");
    try (FileReader r = FileReader.open(p, allocator)) {
      ScanCursor abandoned = r.scan(null, 10).readAhead(8, 1 << 30);
      abandoned.next().close();
      try (ScanCursor closed = r.scan(null, 10).readAhead(8, 1 << 30)) {
        closed.next().close();
      }
      ScanCursor done = r.scan(null, 1 << 20);
      done.next().close();
      assertThat(done.next()).isNull();
      assertThat(done.next()).isNull();
      done.close();
      assertThatThrownBy(done::next).isInstanceOf(IllegalStateException.class);
    }
    // The reader is closed under the abandoned cursor's reads: nothing leaks, nothing is thrown.
  }

  @Test
  void damagedPageFailsOnlyWhenReachedAndAsWithoutReadAhead() throws Exception {
    TypeCase c = TypeCase.all().get(7);
    Path p = write(c, c.severalPagesRows, 0.1, "f.riffle");
    PageInfo victim;
    List<PageInfo> pages;
    try (FileReader r = FileReader.open(p, allocator)) {
      pages = r.pages(0);
      assertThat(pages.size()).isGreaterThan(3);
      victim = pages.get(3);
    }
    byte[] bytes = Files.readAllBytes(p);
    bytes[(int) victim.offset() + 17] ^= 0x40;
    Path bad = dir.resolve("bad.riffle");
    Files.write(bad, bytes);
    String[] messages = new String[2];
    long[] offsets = new long[2];
    long[] rowsBefore = new long[2];
    ReadStats[] stats = new ReadStats[2];
    for (int mode = 0; mode < 2; mode++) {
      try (FileReader r = FileReader.open(bad, allocator)) {
        r.pages(0);
        r.stats().reset();
        ScanCursor cursor = r.scan(null, 1).readAhead(mode == 0 ? 0 : 8, 1 << 30);
        long rows = 0;
        try {
          while (true) {
            try (VectorSchemaRoot b = cursor.next()) {
              if (b == null) {
                break;
              }
              rows += b.getRowCount();
            }
          }
          throw new AssertionError("damaged page not detected");
        } catch (CorruptFileException e) {
          messages[mode] = e.getMessage();
          offsets[mode] = e.offset();
        }
        cursor.close();
        rowsBefore[mode] = rows;
        stats[mode] = r.stats();
        assertThat(rows).isEqualTo(victim.firstRow());
        assertSameStats(stats[0], r.stats(), "damaged page, mode " + mode);
      }
    }
    assertThat(messages[1]).isEqualTo(messages[0]);
    assertThat(offsets[1]).isEqualTo(offsets[0]).isEqualTo(victim.offset());
  }

  /** Takes of neighbouring rows (sharing sectors) decode exactly what one-row takes decode. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void takesOfNeighboursMatchSingleRowTakes(TypeCase c) throws Exception {
    String where = Seeds.reproduce("writer", getClass(), "neighbours", seed) + " " + c.name;
    int n = c.severalPagesRows;
    Path p = write(c, n, 0.1, "f.riffle");
    int m = Math.min(n, 400);
    long[] rows = new long[m + 20];
    for (int i = 0; i < m; i++) {
      rows[i] = i * 2L < n ? (n - m) / 2 + i : i;
    }
    for (int i = 0; i < 20; i++) {
      rows[m + i] = rows[m - 1 - 3 * i % m];
    }
    for (int inFlight : new int[] {1, 4}) {
      try (FileReader r = FileReader.open(p, allocator)) {
        r.setReadsInFlight(inFlight);
        try (VectorSchemaRoot all = r.take(rows, null)) {
          for (int i = 0; i < rows.length; i++) {
            try (VectorSchemaRoot one = r.take(new long[] {rows[i]}, null)) {
              for (FieldVector v : one.getFieldVectors()) {
                FieldVector w = all.getVector(v.getName());
                assertThat(CorruptionTest.rowEquals(v, 0, w, i))
                    .as(where + " row " + rows[i] + " field " + v.getName())
                    .isTrue();
              }
            }
          }
        }
      }
    }
  }

  /**
   * A sector verified in a take of one file is never trusted for another reader of a damaged copy,
   * nor for a later take of the damaged file: every take fails.
   */
  @Test
  void damagedSectorIsNeverTakenFromTheMemo() throws Exception {
    TypeCase c = TypeCase.all().get(7); // a narrow integer column, SECTORS layout
    Path p = write(c, c.severalPagesRows, 0.0, "f.riffle");
    PageInfo page;
    try (FileReader r = FileReader.open(p, allocator)) {
      page = r.pages(0).get(1);
      assertThat(page.sectorCount()).as(c.name).isGreaterThan(0);
    }
    byte[] bytes = Files.readAllBytes(p);
    bytes[(int) page.offset() + 40] ^= 0x01;
    Path bad = dir.resolve("bad.riffle");
    Files.write(bad, bytes);
    long[] rows = {page.firstRow(), page.firstRow() + 1, page.firstRow() + 2};
    try (FileReader good = FileReader.open(p, allocator);
        FileReader damaged = FileReader.open(bad, allocator)) {
      for (int round = 0; round < 3; round++) {
        good.take(rows, null).close();
        assertThatThrownBy(() -> damaged.take(rows, null).close())
            .isInstanceOf(CorruptFileException.class)
            .hasMessageContaining("sector checksum mismatch");
        assertThatThrownBy(() -> damaged.take(new long[] {rows[2]}, null).close())
            .isInstanceOf(CorruptFileException.class);
      }
    }
  }
}
