package dev.riffle.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.write.WriterOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The value distributions each kind promises, and rows that do not depend on batch sizes. */
class GeneratorsTest {
  private BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  static Stream<Arguments> kinds() {
    List<Arguments> kinds = new ArrayList<>();
    kinds.add(kind("scalars", a -> new ScalarsData(), 2000));
    kinds.add(kind("vectors", a -> new VectorsData(), 300));
    kinds.add(kind("sparse", SparseData::new, 300));
    kinds.add(kind("sparse-codes", a -> SparseData.withCodes(List.of("plate")), 300));
    kinds.add(kind("cells", a -> new CellsData(a, 500), 300));
    kinds.add(kind("atoms", a -> new AtomsData(), 1000));
    kinds.add(kind("lance8", a -> new Lance8Data(), 12));
    kinds.add(kind("lance8-narrow", a -> new Lance8Data(List.of("str16", "u64")), 3000));
    return kinds.stream();
  }

  private static Arguments kind(
      String name, Function<BufferAllocator, SyntheticData> factory, int rows) {
    return Arguments.of(name, factory, rows);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kinds")
  void rowsDoNotDependOnTheBatchSize(
      String name, Function<BufferAllocator, SyntheticData> factory, int rows) throws Exception {
    try (SyntheticData data = factory.apply(allocator);
        VectorSchemaRoot whole = Batches.all(data, allocator, rows, 9)) {
      for (int batchRows : new int[] {7, data.batchRows()}) {
        long[] at = {0};
        Batches.generate(
            data,
            allocator,
            rows,
            9,
            batchRows,
            batch -> {
              int n = batch.getRowCount();
              for (int f = 0; f < whole.getFieldVectors().size(); f++) {
                FieldVector expected = whole.getVector(f);
                FieldVector got = batch.getVector(f);
                assertThat(
                        new RangeEqualsVisitor(expected, got)
                            .rangeEquals(new Range((int) at[0], 0, n)))
                    .as("%s, batches of %d, column %s, rows from %d", name, batchRows, f, at[0])
                    .isTrue();
              }
              at[0] += n;
              return true;
            },
            null);
        assertThat(at[0]).isEqualTo(rows);
      }
    }
  }

  @Test
  void anotherSeedGivesOtherRows() {
    try (VectorSchemaRoot a = Batches.all(new ScalarsData(), allocator, 100, 1);
        VectorSchemaRoot b = Batches.all(new ScalarsData(), allocator, 100, 2)) {
      assertThat(
              new RangeEqualsVisitor(a.getVector("x"), b.getVector("x"))
                  .rangeEquals(new Range(0, 0, 100)))
          .isFalse();
    }
  }

  @Test
  void scalarsHaveNullsAndShortLowercaseNames() {
    try (VectorSchemaRoot r = Batches.all(new ScalarsData(), allocator, 2000, 4)) {
      UInt8Vector id = (UInt8Vector) r.getVector("id");
      VarCharVector name = (VarCharVector) r.getVector("name");
      assertThat(r.getVector("x")).isInstanceOf(Float8Vector.class);
      int nulls = 0;
      for (int i = 0; i < r.getRowCount(); i++) {
        nulls += id.isNull(i) ? 1 : 0;
        assertThat(new String(name.get(i), StandardCharsets.US_ASCII)).matches("[a-z]{8,24}");
      }
      // 10% of 2,000 rows: 200, binomial standard deviation 13.
      assertThat(nulls).isBetween(140, 260);
    }
  }

  @Test
  void vectorsHaveUnitFloatsAndLabels() {
    try (VectorSchemaRoot r = Batches.all(new VectorsData(), allocator, 50, 4)) {
      FixedSizeListVector embedding = (FixedSizeListVector) r.getVector("embedding");
      Float4Vector data = (Float4Vector) embedding.getDataVector();
      IntVector label = (IntVector) r.getVector("label");
      assertThat(embedding.getListSize()).isEqualTo(VectorsData.DIM);
      for (int k = 0; k < 50 * VectorsData.DIM; k++) {
        assertThat(data.get(k)).isBetween(-1f, 1f);
      }
      for (int i = 0; i < 50; i++) {
        assertThat(label.get(i)).isBetween(0, 999);
      }
    }
  }

  @Test
  void sparseRowsHaveSortedGenesPositiveValuesAndPlatesInOrder() {
    try (SparseData data = new SparseData(allocator);
        VectorSchemaRoot r = Batches.all(data, allocator, 280, 3)) {
      ListVector indices = (ListVector) r.getVector("indices");
      ListVector values = (ListVector) r.getVector("values");
      IntVector genes = (IntVector) indices.getDataVector();
      Float4Vector levels = (Float4Vector) values.getDataVector();
      BaseIntVector plate = (BaseIntVector) r.getVector("plate");
      BaseIntVector cellLine = (BaseIntVector) r.getVector("cell_line");
      long totalNonZeros = 0;
      for (int row = 0; row < 280; row++) {
        int start = indices.getElementStartIndex(row);
        int end = indices.getElementEndIndex(row);
        assertThat(end - start).isBetween(SparseData.MIN_NNZ, SparseData.MAX_NNZ);
        assertThat(values.getElementEndIndex(row) - values.getElementStartIndex(row))
            .isEqualTo(end - start);
        for (int k = start; k < end; k++) {
          assertThat(genes.get(k)).isBetween(0, SparseData.GENES - 1);
          if (k > start) {
            assertThat(genes.get(k)).isGreaterThan(genes.get(k - 1));
          }
          assertThat(levels.get(k)).isPositive();
        }
        totalNonZeros += end - start;
        // 280 rows over 14 plates: 20 rows each, in order.
        assertThat(plate.getValueAsLong(row)).isEqualTo(row / 20);
        assertThat(cellLine.getValueAsLong(row)).isBetween(0L, SparseData.CELL_LINES - 1L);
      }
      assertThat(totalNonZeros / 280.0).isBetween(1300.0, 1700.0);
      VarCharVector plates =
          (VarCharVector)
              data.dictionaries()
                  .lookup(r.getVector("plate").getField().getDictionary().getId())
                  .getVector();
      assertThat(new String(plates.get(0), StandardCharsets.UTF_8)).isEqualTo("plate01");
      assertThat(SparseData.plateName(13)).isEqualTo("plate14");
      assertThat(data.options(WriterOptions.defaults()))
          .isEqualTo(WriterOptions.defaults().withColumnGroup("indices", "values"));
    }
  }

  @Test
  void sparseCodesWithBothLabelsAreTheDictionaryIndices() {
    try (SparseData dict = new SparseData(allocator);
        VectorSchemaRoot a = Batches.all(dict, allocator, 40, 5);
        VectorSchemaRoot b =
            Batches.all(SparseData.withCodes(List.of("cell_line", "plate")), allocator, 40, 5)) {
      assertThat(b.getSchema().getFields().stream().map(f -> f.getName()))
          .containsExactly("indices", "values", "plate", "cell_line");
      assertThat(b.getVector("plate")).isInstanceOf(IntVector.class);
      for (String f : List.of("indices", "values")) {
        assertThat(
                new RangeEqualsVisitor(a.getVector(f), b.getVector(f))
                    .rangeEquals(new Range(0, 0, 40)))
            .isTrue();
      }
      for (String f : List.of("plate", "cell_line")) {
        for (int i = 0; i < 40; i++) {
          assertThat(((BaseIntVector) b.getVector(f)).getValueAsLong(i))
              .isEqualTo(((BaseIntVector) a.getVector(f)).getValueAsLong(i));
        }
      }
    }
    assertThatThrownBy(() -> SparseData.withCodes(List.of("batch")))
        .hasMessage("sparse has no label 'batch'; labels are plate, cell_line");
  }

  @Test
  void lance8RowsHaveTheAdvertisedSizes() {
    try (VectorSchemaRoot r = Batches.all(new Lance8Data(), allocator, 12, 5)) {
      int nulls = 0;
      for (int i = 0; i < 12; i++) {
        nulls += r.getVector("u64").isNull(i) ? 1 : 0;
        assertThat(((VarCharVector) r.getVector("str16")).get(i)).hasSize(16);
        for (String list : List.of("list_u64", "list_str", "list_vec", "list_bin")) {
          ListVector l = (ListVector) r.getVector(list);
          assertThat(l.getElementEndIndex(i) - l.getElementStartIndex(i)).isBetween(1, 9);
        }
        ListVector strs = (ListVector) r.getVector("list_str");
        for (int k = strs.getElementStartIndex(i); k < strs.getElementEndIndex(i); k++) {
          assertThat(((VarCharVector) strs.getDataVector()).get(k)).hasSize(16);
        }
        ListVector bins = (ListVector) r.getVector("list_bin");
        for (int k = bins.getElementStartIndex(i); k < bins.getElementEndIndex(i); k++) {
          assertThat(((VarBinaryVector) bins.getDataVector()).get(k)).hasSize(20 * 1024);
        }
        assertThat(((VarBinaryVector) r.getVector("bin20k")).get(i)).hasSize(20 * 1024);
      }
      assertThat(((FixedSizeListVector) r.getVector("vec768")).getListSize()).isEqualTo(768);
      ListVector vecs = (ListVector) r.getVector("list_vec");
      assertThat(((FixedSizeListVector) vecs.getDataVector()).getListSize()).isEqualTo(768);
      assertThat(nulls).isLessThan(12);
    }
  }

  @Test
  void lance8ColumnsKeepTheOrderGivenAndRejectUnknownNames() {
    assertThat(new Lance8Data(List.of("list_u64", "u64")).schema().getFields())
        .extracting(f -> f.getName())
        .containsExactly("list_u64", "u64");
    assertThat(Lance8Data.names())
        .containsExactly(
            "u64", "str16", "list_u64", "list_str", "vec768", "list_vec", "bin20k", "list_bin");
    assertThat(Lance8Data.rowBytes("vec768")).isEqualTo(3072);
    assertThatThrownBy(() -> new Lance8Data(List.of("u32")))
        .hasMessageStartingWith("lance8 has no column 'u32'; columns are [u64, str16");
  }

  @Test
  void atomsHaveMatchingPositionsForcesAndNumbers() {
    AtomsData data = new AtomsData();
    try (VectorSchemaRoot r = Batches.all(data, allocator, 50, 2)) {
      ListVector positions = (ListVector) r.getVector("positions");
      ListVector forces = (ListVector) r.getVector("forces");
      ListVector numbers = (ListVector) r.getVector("numbers");
      for (int i = 0; i < 50; i++) {
        int atoms = numbers.getElementEndIndex(i) - numbers.getElementStartIndex(i);
        assertThat(atoms).isBetween(AtomsData.MIN_ATOMS, AtomsData.MAX_ATOMS);
        assertThat(positions.getElementEndIndex(i) - positions.getElementStartIndex(i))
            .isEqualTo(atoms);
        assertThat(forces.getElementEndIndex(i) - forces.getElementStartIndex(i)).isEqualTo(atoms);
        for (int k = numbers.getElementStartIndex(i); k < numbers.getElementEndIndex(i); k++) {
          assertThat(((BaseIntVector) numbers.getDataVector()).getValueAsLong(k))
              .isBetween(1L, 100L);
        }
      }
      assertThat(((FixedSizeListVector) positions.getDataVector()).getListSize()).isEqualTo(3);
    }
    assertThat(data.options(WriterOptions.defaults()))
        .isEqualTo(WriterOptions.defaults().withColumnGroup("positions", "forces"));
  }
}
