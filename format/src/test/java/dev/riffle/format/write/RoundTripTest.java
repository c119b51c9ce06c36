package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded randomized round trips: every type family × null rate {0, 0.1, 1} × sizes (empty, one row,
 * a page boundary ±1, several pages) × two page sizes, read back by scan (two batch sizes), by
 * random index lists (sorted, unsorted, with duplicates) and by contiguous ranges.
 */
@ExtendWith(SeedExtension.class)
class RoundTripTest {
  @TempDir Path dir;
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    // Closing fails the test if any buffer leaked.
    allocator.close();
  }

  static Stream<TypeCase> cases() {
    return TypeCase.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void roundTrip(TypeCase c, @Seed long seed) throws Exception {
    String where = "case " + c.name;
    try {
      for (double nullRate : new double[] {0, 0.1, 1.0}) {
        for (int pageBytes : new int[] {4096, 64 * 1024}) {
          WriterOptions options =
              WriterOptions.defaults().withPageBytes(pageBytes).withColumnGroups(c.groups);
          int big = c.severalPagesRows;
          int boundary = firstPageRows(c, big, seed, nullRate, options);
          for (int n : new int[] {0, 1, boundary - 1, boundary, boundary + 1, big}) {
            if (n >= 0) {
              check(
                  c,
                  n,
                  seed,
                  nullRate,
                  options,
                  where + " nullRate=" + nullRate + " pageBytes=" + pageBytes + " rows=" + n);
            }
          }
        }
      }
    } catch (AssertionError | Exception e) {
      throw new AssertionError(where + ": " + e, e);
    }
  }

  private int firstPageRows(TypeCase c, int rows, long seed, double nullRate, WriterOptions options)
      throws Exception {
    Path file = write(c, rows, seed, nullRate, options, "probe");
    try (FileReader reader = FileReader.open(file, allocator)) {
      return reader.rowCount() == 0 ? 0 : reader.pages(0).get(0).rowCount();
    }
  }

  private Path write(
      TypeCase c, int rows, long seed, double nullRate, WriterOptions options, String name)
      throws Exception {
    Path file = dir.resolve(name + ".riffle");
    try (Data data = new Data(c, rows, seed, nullRate, allocator);
        FileWriter w = FileWriter.create(file, c.schema, data.provider, options)) {
      // Uneven batches exercise row-major flushing across batch boundaries.
      int at = 0;
      int batch = 1;
      while (at < rows) {
        int n = Math.min(batch, rows - at);
        try (VectorSchemaRoot slice = data.root.slice(at, n)) {
          w.write(slice);
        }
        at += n;
        batch = batch * 3 + 1;
      }
      if (rows == 0) {
        w.write(data.root);
      }
      w.finish();
    }
    return file;
  }

  private void check(
      TypeCase c, int rows, long seed, double nullRate, WriterOptions options, String where)
      throws Exception {
    Path file = write(c, rows, seed, nullRate, options, "t");
    try (Data data = new Data(c, rows, seed, nullRate, allocator);
        FileReader reader = FileReader.open(file, allocator)) {
      assertThat(reader.rowCount()).as(where).isEqualTo(rows);
      assertThat(reader.arrowSchema().getFields()).as(where).isEqualTo(c.schema.getFields());
      DictionaryProvider actualDicts = reader.dictionaries();
      for (int batch : new int[] {7, 1000}) {
        ScanCursor cursor = reader.scan(null, batch);
        long at = 0;
        VectorSchemaRoot b;
        while ((b = cursor.next()) != null) {
          try (VectorSchemaRoot got = b) {
            long[] idx = new long[got.getRowCount()];
            for (int i = 0; i < idx.length; i++) {
              idx[i] = at + i;
            }
            assertRows(data, idx, got, actualDicts, where + " scan batch=" + batch);
            at += idx.length;
          }
        }
        assertThat(at).as(where).isEqualTo(rows);
      }
      if (rows == 0) {
        return;
      }
      SplittableRandom r = new SplittableRandom(seed ^ rows);
      long[] random = r.longs(Math.min(300, rows * 2L), 0, rows).toArray();
      long[] sorted = random.clone();
      Arrays.sort(sorted);
      int from = r.nextInt(rows);
      long[] range = new long[Math.min(rows - from, 200)];
      Arrays.setAll(range, i -> from + i);
      for (long[] idx : List.of(random, sorted, range, new long[] {rows - 1, 0, rows - 1})) {
        try (VectorSchemaRoot got = reader.take(idx, null)) {
          assertRows(
              data,
              idx,
              got,
              actualDicts,
              where + " take " + Arrays.toString(Arrays.copyOf(idx, Math.min(8, idx.length))));
        }
      }
      // Projection of a single field (inside a group: the others are skipped).
      String last = c.schema.getFields().get(c.schema.getFields().size() - 1).getName();
      try (VectorSchemaRoot got = reader.take(random, List.of(last))) {
        assertThat(got.getFieldVectors()).hasSize(1);
        assertRows(data, random, got, actualDicts, where + " projected take");
      }
    }
  }

  private static void assertRows(
      Data data, long[] rows, VectorSchemaRoot got, DictionaryProvider actualDicts, String where) {
    assertThat(got.getRowCount()).as(where).isEqualTo(rows.length);
    for (FieldVector actual : got.getFieldVectors()) {
      FieldVector expected = data.root.getVector(actual.getName());
      DictionaryEncoding enc = actual.getField().getDictionary();
      for (int j = 0; j < rows.length; j++) {
        int src = (int) rows[j];
        if (enc != null) {
          Object e = decode(expected, src, data.provider.lookup(enc.getId()));
          Object a = decode(actual, j, actualDicts.lookup(enc.getId()));
          if (!java.util.Objects.equals(e, a)) {
            fail(
                where
                    + ": field "
                    + actual.getName()
                    + " row "
                    + src
                    + " expected "
                    + e
                    + " got "
                    + a);
          }
          continue;
        }
        RangeEqualsVisitor eq = new RangeEqualsVisitor(expected, actual);
        if (!eq.rangeEquals(new Range(src, j, 1))) {
          fail(
              where
                  + ": field "
                  + actual.getName()
                  + " row "
                  + src
                  + " (output "
                  + j
                  + ") expected "
                  + expected.getObject(src)
                  + " got "
                  + actual.getObject(j));
        }
      }
    }
  }

  private static Object decode(FieldVector indices, int i, Dictionary dict) {
    if (indices.isNull(i)) {
      return null;
    }
    int code = (int) ((BaseIntVector) indices).getValueAsLong(i);
    Object v = dict.getVector().getObject(code);
    return v == null ? null : v.toString();
  }

  /** The generated rows of a case, with their dictionaries. */
  static final class Data implements AutoCloseable {
    final VectorSchemaRoot root;
    final DictionaryProvider.MapDictionaryProvider provider =
        new DictionaryProvider.MapDictionaryProvider();
    private final List<VarCharVector> dictionaries = new ArrayList<>();

    Data(TypeCase c, int rows, long seed, double nullRate, BufferAllocator a) {
      for (Field f : c.schema.getFields()) {
        if (f.getDictionary() != null) {
          VarCharVector d = RandomData.dictionary(f.getName(), seed, a);
          dictionaries.add(d);
          provider.put(new Dictionary(d, f.getDictionary()));
        }
      }
      root = RandomData.generate(c.schema, rows, seed, nullRate, a);
    }

    @Override
    public void close() {
      root.close();
      dictionaries.forEach(VarCharVector::close);
    }
  }
}
