package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.read.TakePlan;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compressed sectors (FORMAT.md §5.1): chosen for compressible narrow values, at least a quarter
 * more rows per sector than plain ones, one aligned 4 KiB read per row still, and damage inside a
 * frame reported as corruption.
 */
@ExtendWith(SeedExtension.class)
class SectorZstdTest {
  private static final int ROWS = 20_000;
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              TypeCase.f("text_s", ArrowType.Utf8.INSTANCE),
              TypeCase.f("rep_f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              TypeCase.f(
                  "text_list",
                  ArrowType.List.INSTANCE,
                  TypeCase.f("item", ArrowType.Utf8.INSTANCE))));

  @TempDir Path dir;
  private BufferAllocator allocator;
  private long seed;
  private VectorSchemaRoot data;

  @BeforeEach
  void setUp(@Seed long seed) {
    allocator = new RootAllocator();
    this.seed = seed;
    data = RandomData.generate(SCHEMA, ROWS, seed, 0.1, allocator);
  }

  @AfterEach
  void tearDown() {
    data.close();
    allocator.close();
  }

  private Path write(String name, WriterOptions options) throws Exception {
    Path file = dir.resolve(name + ".riffle");
    try (FileWriter w = FileWriter.create(file, SCHEMA, options)) {
      w.write(data);
      w.finish();
    }
    return file;
  }

  /** Per stored column: {plain sectors, compressed sectors}. */
  static List<int[]> sectorKinds(Path file, BufferAllocator a) throws Exception {
    byte[] b = Files.readAllBytes(file);
    List<int[]> out = new ArrayList<>();
    try (FileReader r = FileReader.open(file, a)) {
      for (int c = 0; c < r.schema().columns().size(); c++) {
        int[] kinds = new int[2];
        for (PageInfo p : r.pages(c)) {
          if (p.layout() != ColumnLayout.LAYOUT_SECTORS) {
            continue;
          }
          for (long at = p.offset(); at < p.offset() + p.byteLength(); at += 4096) {
            int flags = b[(int) at + SectorLayout.FLAGS_OFFSET];
            kinds[(flags & SectorLayout.FLAG_ZSTD) != 0 ? 1 : 0]++;
          }
        }
        out.add(kinds);
      }
    }
    return out;
  }

  private static int minor(Path file) throws Exception {
    byte[] b = Files.readAllBytes(file);
    ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int head = buf.getShort(10);
    int foot =
        buf.getShort(b.length - FooterLayout.FOOTER_BYTES + FooterLayout.FOOTER_VERSION_MINOR);
    assertThat(foot).isEqualTo(head);
    return head;
  }

  @Test
  void compressibleValuesPackAtLeastAQuarterMoreRowsPerSector() throws Exception {
    Path packed = write("packed", WriterOptions.defaults());
    Path plain = write("plain", WriterOptions.defaults().withCompressSectors(false));
    assertThat(minor(packed)).isEqualTo(FileLayout.VERSION_MINOR);
    assertThat(minor(plain)).isEqualTo(FileLayout.VERSION_MINOR);
    List<int[]> p = sectorKinds(packed, allocator);
    List<int[]> q = sectorKinds(plain, allocator);
    for (int c = 0; c < p.size(); c++) {
      assertThat(q.get(c)[1]).as("plain file, column " + c).isZero();
      assertThat(p.get(c)[1]).as("compressed sectors, column " + c).isPositive();
      int packedSectors = p.get(c)[0] + p.get(c)[1];
      int plainSectors = q.get(c)[0];
      // Every compressed sector holds >= 5/4 of what the plain greedy sector from its first row
      // would; page ends and plain sectors in between keep the overall gain a little lower.
      assertThat(packedSectors * 1.2)
          .as("sectors of column " + c + " (plain " + plainSectors + ")")
          .isLessThanOrEqualTo(plainSectors);
    }
    assertThat(Files.size(packed) * 1.2).isLessThanOrEqualTo(Files.size(plain));
    // zstd level 0 turns compressed sectors off: byte for byte the plain file.
    Path off = write("off", WriterOptions.defaults().withZstdLevel(0));
    assertThat(Files.readAllBytes(off)).isEqualTo(Files.readAllBytes(plain));
  }

  @Test
  void rowsReadBackAndEachCostsOneSectorRead() throws Exception {
    Path file = write("packed", WriterOptions.defaults());
    try (FileReader reader = FileReader.open(file, allocator)) {
      reader.loadColumns(null);
      for (int batch : new int[] {1, 333, 8192}) {
        ScanCursor cursor = reader.scan(null, batch);
        long at = 0;
        VectorSchemaRoot b;
        while ((b = cursor.next()) != null) {
          try (VectorSchemaRoot got = b) {
            long[] idx = new long[got.getRowCount()];
            for (int i = 0; i < idx.length; i++) {
              idx[i] = at + i;
            }
            assertRows(idx, got, "scan " + batch);
            at += idx.length;
          }
        }
        assertThat(at).isEqualTo(ROWS);
      }
      SplittableRandom r = new SplittableRandom(seed);
      for (String field : List.of("text_s", "rep_f64", "text_list")) {
        long[] rows = apartRows(reader, field, r);
        ReadStats stats = reader.stats();
        stats.reset();
        try (VectorSchemaRoot got = reader.take(rows, List.of(field))) {
          assertRows(rows, got, "take " + field);
        }
        assertThat(stats.reads()).as("reads " + field).isEqualTo(rows.length);
        assertThat(stats.sectors()).as("sectors " + field).isEqualTo(rows.length);
        assertThat(stats.bytesRead()).isEqualTo(4096L * rows.length);
      }
    }
  }

  /** Up to 64 random rows whose sectors neither coincide nor touch (so no read is shared). */
  private static long[] apartRows(FileReader reader, String field, SplittableRandom r)
      throws Exception {
    List<Long> rows = new ArrayList<>();
    List<Long> starts = new ArrayList<>();
    for (int attempt = 0; attempt < 5000 && rows.size() < 64; attempt++) {
      long row = r.nextLong(reader.rowCount());
      TakePlan p = reader.plan(new long[] {row}, List.of(field));
      assertThat(p.reads()).isEqualTo(1);
      assertThat(p.readLength(0)).isEqualTo(4096);
      long s = p.readOffset(0);
      if (starts.stream().noneMatch(t -> Math.abs(t - s) <= 4096)) {
        starts.add(s);
        rows.add(row);
      }
    }
    assertThat(rows.size()).as("sectors apart in " + field).isGreaterThanOrEqualTo(2);
    return rows.stream().mapToLong(Long::longValue).toArray();
  }

  /** The file CorruptionTest damages in every way it knows does exercise compressed sectors. */
  @Test
  void theCorruptionTestFileHasCompressedSectorsInEveryColumn() throws Exception {
    List<TypeCase> cases = CorruptionTest.fileCases();
    TypeCase c = cases.get(cases.size() - 1);
    assertThat(c.name).isEqualTo("sectors_zstd");
    Path file = dir.resolve(c.name + ".riffle");
    Files.write(
        file,
        CorruptionTest.writeFile(c, c.severalPagesRows, seed, CorruptionTest.NULL_RATE, allocator));
    for (int[] kinds : sectorKinds(file, allocator)) {
      assertThat(kinds[1]).isPositive();
    }
  }

  @Test
  void damageInsideAFrameIsCorruption() throws Exception {
    Path file = write("packed", WriterOptions.defaults());
    byte[] b = Files.readAllBytes(file);
    long sector = -1;
    try (FileReader r = FileReader.open(file, allocator)) {
      for (PageInfo p : r.pages(0)) {
        for (long at = p.offset(); at < p.offset() + p.byteLength() && sector < 0; at += 4096) {
          if ((b[(int) at + SectorLayout.FLAGS_OFFSET] & SectorLayout.FLAG_ZSTD) != 0) {
            sector = at;
          }
        }
      }
    }
    assertThat(sector).isPositive();
    int frameLength =
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getShort((int) sector + 6) & 0xFFFF;
    int failures = 0;
    // Flip bytes across the frame, checksums repaired so the damage reaches the inflater and the
    // decoder: each read either fails as corruption or (a flip in a literal) returns other values.
    for (int k = 0; k < frameLength; k += Math.max(1, frameLength / 40)) {
      byte[] m = b.clone();
      m[(int) sector + SectorLayout.HEADER_BYTES + k] ^= 0x5A;
      CorruptionTest.repairChecksums(m);
      Path damaged = dir.resolve("damaged.riffle");
      Files.write(damaged, m);
      try (FileReader reader = FileReader.open(damaged, allocator)) {
        ScanCursor cursor = reader.scan(List.of("text_s"), 4096);
        VectorSchemaRoot got;
        while ((got = cursor.next()) != null) {
          got.close();
        }
      } catch (CorruptFileException e) {
        assertThat(e.getMessage()).contains("damaged.riffle at offset");
        failures++;
      }
    }
    assertThat(failures).isPositive();
  }

  private void assertRows(long[] rows, VectorSchemaRoot got, String where) {
    for (FieldVector actual : got.getFieldVectors()) {
      FieldVector expected = data.getVector(actual.getName());
      for (int j = 0; j < rows.length; j++) {
        if (!new RangeEqualsVisitor(expected, actual).rangeEquals(new Range((int) rows[j], j, 1))) {
          fail(where + ": field " + actual.getName() + " row " + rows[j] + " differs");
        }
      }
    }
  }
}
