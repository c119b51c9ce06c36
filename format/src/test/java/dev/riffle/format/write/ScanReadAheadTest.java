package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scan read-ahead (coalesced reads of consecutive pages) and the per-thread last-sector memo of
 * takes: same rows and failures as the plain paths, and the reads the layout calls for.
 */
@ExtendWith(SeedExtension.class)
class ScanReadAheadTest {
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
  void sameRowsWithAndWithoutReadAhead(TypeCase c) throws Exception {
    String where = c.name;
    Path p = write(c, c.severalPagesRows, 0.1, "f.riffle");
    long[][] aheads = {{2, 8 << 20}, {8, 1 << 30}, {1, 4096}, {3, 20_000}};
    for (long[] ahead : aheads) {
      for (int batch : new int[] {1000, 77}) {
        try (FileReader plain = FileReader.open(p, allocator);
            FileReader fast = FileReader.open(p, allocator)) {
          // Load the column metadata first, so that both count only the scan.
          plain.loadColumns(null);
          fast.loadColumns(null);
          plain.stats().reset();
          fast.stats().reset();
          ScanCursor a = plain.scan(null, batch).readAhead(0, 0);
          long readBytes;
          try (ScanCursor b = fast.scan(null, batch).readAhead((int) ahead[0], ahead[1])) {
            readBytes = b.readBytes();
            // Memory stays bounded however many columns are scanned.
            long columns = fast.schema().columns().size();
            assertThat(readBytes)
                .isLessThanOrEqualTo(ahead[1])
                .isLessThanOrEqualTo(ScanCursor.DEFAULT_MEMORY_BYTES / (columns * (ahead[0] + 1)));
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
          String w = where + " ahead " + ahead[0] + "x" + ahead[1] + " batch " + batch;
          ReadStats x = plain.stats();
          ReadStats y = fast.stats();
          assertThat(x.reads()).as(w).isEqualTo(pageCount(plain)).isEqualTo(x.rounds());
          assertThat(y.valuesDecoded()).as(w).isEqualTo(x.valuesDecoded());
          assertThat(y.rounds()).as(w).isEqualTo(y.reads());
          long[] expected = coalescedReads(fast, readBytes);
          assertThat(y.reads()).as(w + " reads").isEqualTo(expected[0]);
          assertThat(y.bytesRead()).as(w + " bytes").isEqualTo(expected[1]);
          if (readBytes <= 4096) {
            // Reads no larger than a page: exactly the plain path's reads.
            assertSameStats(x, y, w);
          }
        }
      }
    }
  }

  /**
   * The reads a scan of every column should make: per column, runs of consecutive pages at most
   * {@link ScanCursor#MAX_GAP} apart spanning at most {@code readBytes} (or one page); {reads,
   * bytes}.
   */
  private static long[] coalescedReads(FileReader r, long readBytes) throws Exception {
    long reads = 0;
    long bytes = 0;
    for (int c = 0; c < r.schema().columns().size(); c++) {
      List<PageInfo> pages = r.pages(c);
      int i = 0;
      while (i < pages.size()) {
        long start = pages.get(i).offset();
        long end = start + pages.get(i).byteLength();
        int j = i + 1;
        while (j < pages.size()) {
          PageInfo q = pages.get(j);
          long gap = q.offset() - end;
          if (gap < 0
              || gap > ScanCursor.MAX_GAP
              || q.offset() + q.byteLength() - start > readBytes) {
            break;
          }
          end = q.offset() + q.byteLength();
          j++;
        }
        reads++;
        bytes += end - start;
        i = j;
      }
    }
    return new long[] {reads, bytes};
  }

  /** A file of one binary column, {@code valueBytes} random bytes per row, 64 KiB pages. */
  private byte[] wideFile(int rows, int valueBytes) throws Exception {
    Schema schema = new Schema(List.of(Field.nullable("b", ArrowType.Binary.INSTANCE)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      VarBinaryVector v = (VarBinaryVector) root.getVector(0);
      v.allocateNew();
      SplittableRandom rnd = new SplittableRandom(seed);
      byte[] value = new byte[valueBytes];
      for (int i = 0; i < rows; i++) {
        for (int k = 0; k < value.length; k++) {
          value[k] = (byte) rnd.nextInt();
        }
        v.setSafe(i, value);
      }
      root.setRowCount(rows);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (FileWriter w =
          FileWriter.create(
              out,
              schema,
              new DictionaryProvider.MapDictionaryProvider(),
              WriterOptions.defaults().withPageBytes(64 << 10))) {
        w.write(root);
        w.finish();
      }
      return out.toByteArray();
    }
  }

  /** A wide column of many small pages: a scan reads them a few MiB at a time, in few reads. */
  @Test
  void consecutivePagesAreReadTogether() throws Exception {
    int rows = 2000;
    byte[] file = wideFile(rows, 3000);
    long readBytes = 1 << 20;
    RecordingSource source = new RecordingSource(new CorruptionTest.BytesSource("wide", file));
    try (FileReader r = FileReader.open(source, true, allocator)) {
      List<PageInfo> pages = r.pages(0);
      long largest = pages.stream().mapToLong(PageInfo::byteLength).max().orElseThrow();
      long total = pages.stream().mapToLong(PageInfo::byteLength).sum();
      assertThat(pages.size()).isGreaterThan(60);
      assertThat(largest).isLessThan(readBytes / 8);
      r.stats().reset();
      source.reads.clear();
      long got = 0;
      try (ScanCursor cursor = r.scan(null, 100).readAhead(2, readBytes)) {
        for (VectorSchemaRoot b = cursor.next(); b != null; b = cursor.next()) {
          got += b.getRowCount();
          b.close();
        }
      }
      assertThat(got).isEqualTo(rows);
      // Every read but the last of the column stops only where one more page would not fit.
      long least = readBytes - largest - 4096;
      long[] lengths = source.reads.stream().mapToLong(x -> x[1]).sorted().toArray();
      assertThat(lengths.length).isEqualTo(r.stats().reads());
      assertThat(lengths.length).isLessThanOrEqualTo((int) ((total + least - 1) / least) + 1);
      assertThat(lengths.length).isLessThanOrEqualTo(pages.size() / 8);
      for (int i = 1; i < lengths.length; i++) {
        assertThat(lengths[i]).isBetween(least, readBytes);
      }
      assertThat(r.stats().bytesRead()).isBetween(total, total + (long) pages.size() * 4096);
      // Each page is read once.
      long end = 0;
      List<long[]> sorted = new ArrayList<>(source.reads);
      sorted.sort((x, y) -> Long.compare(x[0], y[0]));
      for (long[] read : sorted) {
        assertThat(read[0]).isGreaterThanOrEqualTo(end);
        end = read[0] + read[1];
      }
    }
  }

  /** By default only wide columns read several pages at once; narrow ones read page by page. */
  @Test
  void byDefaultOnlyWideColumnsReadSeveralPages() throws Exception {
    TypeCase c = TypeCase.all().get(7); // narrow integers
    Path p = write(c, c.severalPagesRows, 0.1, "f.riffle");
    try (FileReader r = FileReader.open(p, allocator)) {
      r.loadColumns(null);
      r.stats().reset();
      try (ScanCursor cursor = r.scan(null, 1000)) {
        for (VectorSchemaRoot b = cursor.next(); b != null; b = cursor.next()) {
          b.close();
        }
      }
      assertThat(r.stats().reads()).isEqualTo(pageCount(r));
    }
    Path wide = dir.resolve("wide.riffle");
    Files.write(wide, wideFile(2000, 3000));
    try (FileReader r = FileReader.open(wide, allocator)) {
      r.loadColumns(null);
      r.stats().reset();
      try (ScanCursor cursor = r.scan(null, 100)) {
        for (VectorSchemaRoot b = cursor.next(); b != null; b = cursor.next()) {
          b.close();
        }
      }
      assertThat(r.stats().reads()).isEqualTo(coalescedReads(r, ScanCursor.DEFAULT_READ_BYTES)[0]);
      assertThat(r.stats().reads()).isLessThan(pageCount(r) / 8);
    }
  }

  /**
   * A read of several pages that fails (here: any read touching page 3) is retried page by page:
   * the scan returns every row before page 3 and fails with the same error as without read-ahead.
   */
  @Test
  void failedReadFailsAtTheSamePageAsWithoutReadAhead() throws Exception {
    TypeCase c = TypeCase.all().get(7);
    byte[] bytes = CorruptionTest.writeFile(c, c.severalPagesRows, seed, 0.1, allocator);
    PageInfo victim;
    try (FileReader r =
        FileReader.open(new CorruptionTest.BytesSource("f", bytes), true, allocator)) {
      List<PageInfo> pages = r.pages(0);
      assertThat(pages.size()).isGreaterThan(4);
      victim = pages.get(3);
    }
    String[] messages = new String[2];
    for (int mode = 0; mode < 2; mode++) {
      RecordingSource source = new RecordingSource(new CorruptionTest.BytesSource("f", bytes));
      try (FileReader r = FileReader.open(source, true, allocator)) {
        r.loadColumns(null);
        // From here on (opening reads the whole tail of this small file).
        source.failAt = victim.offset();
        ScanCursor cursor = r.scan(null, 1).readAhead(mode == 0 ? 0 : 4, 1 << 30);
        long rows = 0;
        try {
          for (VectorSchemaRoot b = cursor.next(); b != null; b = cursor.next()) {
            rows += b.getRowCount();
            b.close();
          }
          throw new AssertionError("failed read not reported");
        } catch (IOException e) {
          messages[mode] = e.getMessage();
        }
        cursor.close();
        assertThat(rows).as("mode " + mode).isEqualTo(victim.firstRow());
      }
    }
    assertThat(messages[1]).isEqualTo(messages[0]).contains("offset " + victim.offset());
  }

  /**
   * An interrupt of the scanning thread fails that scan at most: the reader's shared file channel,
   * which the JDK closes on an interrupted read, is reopened, and the same reader scans again.
   */
  @Test
  void interruptedScanLeavesTheReaderUsable() throws Exception {
    TypeCase c = TypeCase.all().get(7);
    Path p = write(c, c.severalPagesRows, 0.1, "f.riffle");
    try (FileReader r = FileReader.open(p, allocator)) {
      r.loadColumns(null);
      ScanCursor cursor = r.scan(null, 10).readAhead(2, 1 << 20);
      Thread.currentThread().interrupt();
      try {
        for (VectorSchemaRoot b = cursor.next(); b != null; b = cursor.next()) {
          b.close();
        }
      } catch (ClosedByInterruptException e) {
        // The consumer's own read was interrupted.
      } finally {
        Thread.interrupted();
        cursor.close();
      }
      long rows = 0;
      try (ScanCursor again = r.scan(null, 10)) {
        for (VectorSchemaRoot b = again.next(); b != null; b = again.next()) {
          rows += b.getRowCount();
          b.close();
        }
      }
      assertThat(rows).isEqualTo(c.severalPagesRows);
    }
  }

  /** A source that records its reads and fails those that touch offset {@code failAt}. */
  private static final class RecordingSource implements RandomAccessSource {
    final RandomAccessSource inner;
    final List<long[]> reads = java.util.Collections.synchronizedList(new ArrayList<>());
    volatile long failAt = -1;

    RecordingSource(RandomAccessSource inner) {
      this.inner = inner;
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public long length() throws IOException {
      return inner.length();
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
      int n = dst.remaining();
      if (failAt >= offset && failAt < offset + n) {
        throw new IOException(name() + ": simulated read failure at offset " + failAt);
      }
      reads.add(new long[] {offset, n});
      inner.readFully(offset, dst);
    }

    @Override
    public void close() throws IOException {
      inner.close();
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
        assertThat(r.stats().valuesDecoded())
            .as("damaged page, mode " + mode)
            .isEqualTo(stats[0].valuesDecoded());
      }
    }
    assertThat(messages[1]).isEqualTo(messages[0]);
    assertThat(offsets[1]).isEqualTo(offsets[0]).isEqualTo(victim.offset());
  }

  /** Takes of neighbouring rows (sharing sectors) decode exactly what one-row takes decode. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void takesOfNeighboursMatchSingleRowTakes(TypeCase c) throws Exception {
    String where = c.name;
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
