package dev.riffle.format.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageFilter;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.testing.FloatBits;
import dev.riffle.format.testing.FloatListsData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.write.CorruptionTest.BytesSource;
import java.io.ByteArrayOutputStream;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Page statistics of adversarial float columns ({@link FloatListsData}'s scalar floats: −0.0 and
 * +0.0, NaNs of every payload, infinities, subnormals, extremes, decimals, in runs that fill pages)
 * never exclude a matching row: for comparisons with literals drawn from the rows and from the
 * edges, as Float or Double whatever the field, the rows a filter matches in the source (its own
 * row-by-row semantics) are all candidates, and the file's matching rows are exactly those.
 */
@ExtendWith(SeedExtension.class)
class FloatFiltersTest {
  private static final int ROWS = 5000;

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  @Test
  void statisticsKeepEveryMatchingRow(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    try (VectorSchemaRoot all = FloatListsData.generate(ROWS, r, allocator)) {
      List<FieldVector> scalars = List.of(all.getVector("f32s"), all.getVector("f64s"));
      VectorSchemaRoot source = new VectorSchemaRoot(scalars);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (FileWriter w =
          FileWriter.create(
              out, source.getSchema(), null, WriterOptions.defaults().withPageBytes(4096))) {
        w.write(source);
        w.finish();
      }
      byte[] b = out.toByteArray();
      try (FileReader f = FileReader.open(new BytesSource("stats.riffle", b), true, allocator)) {
        assertThat(f.pages(0)).as("pages").hasSizeGreaterThan(3);
        double[] edges = {
          0.0,
          -0.0,
          Double.NaN,
          Double.POSITIVE_INFINITY,
          Double.NEGATIVE_INFINITY,
          Double.MIN_VALUE,
          -Double.MIN_VALUE,
          Float.MIN_VALUE,
          Float.MAX_VALUE,
          1e-40,
          0.1,
          1
        };
        for (int k = 0; k < 300; k++) {
          FieldVector v = scalars.get(r.nextInt(2));
          String field = v.getName();
          Object literal;
          if (r.nextBoolean()) {
            int row = r.nextInt(ROWS);
            while (v.isNull(row)) {
              row = r.nextInt(ROWS);
            }
            literal = v.getObject(row);
          } else {
            literal = edges[r.nextInt(edges.length)];
          }
          if (r.nextInt(3) == 0) {
            // The other precision: a float literal on a double field compares exactly, and back.
            literal =
                literal instanceof Float x
                    ? (Object) (double) x
                    : (Object) (float) (double) literal;
          }
          PageFilter filter =
              switch (r.nextInt(7)) {
                case 0 -> PageFilter.eq(field, literal);
                case 1 -> PageFilter.notEq(field, literal);
                case 2 -> PageFilter.lt(field, literal);
                case 3 -> PageFilter.le(field, literal);
                case 4 -> PageFilter.gt(field, literal);
                case 5 -> PageFilter.ge(field, literal);
                default -> PageFilter.in(field, List.of(literal, edges[r.nextInt(edges.length)]));
              };
          BitSet want = filter.matches(source, null);
          RowRanges candidates = f.candidateRows(filter);
          String what = filter + " (literal " + describe(literal) + ")";
          for (int row = want.nextSetBit(0); row >= 0; row = want.nextSetBit(row + 1)) {
            if (!candidates.contains(row)) {
              throw new AssertionError(
                  what
                      + ": row "
                      + row
                      + " matches ("
                      + FloatBits.describe(FloatBits.bits(v, row), v.getName().equals("f32s"))
                      + ") but its page is excluded");
            }
          }
          RowRanges got = filter.matchingRows(f, RowRanges.all(ROWS));
          assertThat(got.rowCount()).as(what + ": matching rows").isEqualTo(want.cardinality());
        }
      }
    }
  }

  private static String describe(Object literal) {
    return literal instanceof Float x
        ? FloatBits.describe(Float.floatToRawIntBits(x) & 0xFFFFFFFFL, true) + "f"
        : FloatBits.describe(Double.doubleToRawLongBits((Double) literal), false);
  }
}
