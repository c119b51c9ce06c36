package dev.riffle.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The properties {@code cells} promises, on a random seed each run: they hold for every seed, with
 * margins far beyond the spread of 1,000 cells.
 */
@ExtendWith(SeedExtension.class)
class CellsDataTest {
  private static final int ROWS = 1000;

  private BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void rowsLookLikeRawCountsOfTypedCellsSortedByPlate(@Seed long seed) {
    try (CellsData data = new CellsData(allocator, CellsData.DEFAULT_GENES);
        VectorSchemaRoot r = Batches.all(data, allocator, ROWS, seed)) {
      int genes = data.genes();
      ListVector indices = (ListVector) r.getVector("indices");
      IntVector geneData = (IntVector) indices.getDataVector();
      Float4Vector countData = (Float4Vector) ((ListVector) r.getVector("values")).getDataVector();
      BaseIntVector type = (BaseIntVector) r.getVector("cell_type");
      BaseIntVector plate = (BaseIntVector) r.getVector("plate");
      BaseIntVector line = (BaseIntVector) r.getVector("cell_line");
      int types = CellsData.CELL_TYPES.size();

      int[] cellsWithGene = new int[genes];
      // Per type: cells, and the sum of counts on each gene.
      int[] cellsOfType = new int[types];
      double[][] sumOfType = new double[types][genes];
      long stored = 0;
      long smallCounts = 0;
      long[] histogram = new long[5];
      float largest = 0;
      double[] logLibrary = new double[ROWS];
      for (int i = 0; i < ROWS; i++) {
        int start = indices.getElementStartIndex(i);
        int end = indices.getElementEndIndex(i);
        assertThat(end).as("row %d is empty", i).isGreaterThan(start);
        int t = (int) type.getValueAsLong(i);
        assertThat(t).isBetween(0, types - 1);
        assertThat(line.getValueAsLong(i)).isBetween(0L, CellsData.CELL_LINES - 1L);
        if (i > 0) {
          assertThat(plate.getValueAsLong(i)).isGreaterThanOrEqualTo(plate.getValueAsLong(i - 1));
        }
        cellsOfType[t]++;
        double library = 0;
        for (int k = start; k < end; k++) {
          int g = geneData.get(k);
          float v = countData.get(k);
          assertThat(g).isBetween(0, genes - 1);
          if (k > start) {
            assertThat(g).as("row %d not sorted", i).isGreaterThan(geneData.get(k - 1));
          }
          assertThat(v).as("a count").isGreaterThanOrEqualTo(1f).isEqualTo((float) Math.rint(v));
          cellsWithGene[g]++;
          sumOfType[t][g] += v;
          smallCounts += v <= 3 ? 1 : 0;
          if (v <= 4) {
            histogram[(int) v]++;
          }
          largest = Math.max(largest, v);
          library += v;
        }
        stored += end - start;
        logLibrary[i] = Math.log(library);
      }
      assertThat(plate.getValueAsLong(0)).isZero();
      assertThat(plate.getValueAsLong(ROWS - 1)).isEqualTo(CellsData.PLATES - 1);

      // About 1,500 stored values a row, mostly 1 to 3 with a long tail.
      double perRow = stored / (double) ROWS;
      double small = smallCounts / (double) stored;
      System.out.println("counts 1..4: " + Arrays.toString(histogram));
      System.out.printf(
          "stored values a row %.0f, counts <= 3 %.3f, largest %.0f%n", perRow, small, largest);
      assertThat(perRow).isBetween(1_200.0, 1_800.0);
      assertThat(small).isGreaterThan(0.8);
      assertThat(largest).isGreaterThan(50f);

      // Library sizes log-normal: log spread near 0.5, no skew to speak of.
      double mean = Arrays.stream(logLibrary).average().orElseThrow();
      double sd =
          Math.sqrt(
              Arrays.stream(logLibrary).map(x -> (x - mean) * (x - mean)).average().orElseThrow());
      double skew =
          Arrays.stream(logLibrary).map(x -> Math.pow((x - mean) / sd, 3)).average().orElseThrow();
      System.out.printf("log library mean %.2f sd %.3f skew %.3f%n", mean, sd, skew);
      assertThat(sd).isBetween(0.4, 0.7);
      assertThat(Math.abs(skew)).isLessThan(0.5);

      // Heavy-tailed popularity: the top 1% of genes are in most cells, the median gene in few.
      int[] sorted = cellsWithGene.clone();
      Arrays.sort(sorted);
      int top = genes / 100;
      double topShare = Arrays.stream(sorted, genes - top, genes).average().orElseThrow() / ROWS;
      double medianShare = sorted[genes / 2] / (double) ROWS;
      System.out.printf(
          "top 1%% genes in %.3f of cells, the median gene in %.3f%n", topShare, medianShare);
      assertThat(topShare).isGreaterThan(0.5);
      assertThat(medianShare).isLessThan(0.1);
      assertThat(topShare).isGreaterThan(10 * medianShare);

      // Each type's program genes: a higher mean count in cells of the type than in the others.
      for (int t = 0; t < types; t++) {
        assertThat(cellsOfType[t]).as("cells of type %d", t).isGreaterThan(10);
        double in = 0;
        double out = 0;
        for (int g : data.program(t)) {
          double all = 0;
          for (int u = 0; u < types; u++) {
            all += sumOfType[u][g];
          }
          in += sumOfType[t][g] / cellsOfType[t];
          out += (all - sumOfType[t][g]) / (ROWS - cellsOfType[t]);
        }
        System.out.printf(
            "type %d: %d cells, program mean %.2f in, %.2f out%n", t, cellsOfType[t], in, out);
        assertThat(in).as("program of type %d", t).isGreaterThan(3 * out);
      }
    }
  }

  @Test
  void geneCountsOutOfRangeAreRefused() {
    assertThatThrownBy(() -> new CellsData(allocator, 99))
        .hasMessage("cells needs 100 to 1000000 genes, not 99");
  }

  @Test
  void smallGeneCountsStillGiveEveryTypeAProgram() {
    try (CellsData data = new CellsData(allocator, CellsData.MIN_GENES)) {
      for (int t = 0; t < CellsData.CELL_TYPES.size(); t++) {
        assertThat(data.program(t)).isNotEmpty();
      }
    }
  }
}
