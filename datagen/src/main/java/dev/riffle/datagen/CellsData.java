package dev.riffle.datagen;

import dev.riffle.format.write.WriterOptions;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code cells}: raw single-cell counts shaped like a real atlas's, in the column layout of {@link
 * SparseData} ({@code indices} + {@code values}, one column group) with three dictionary-encoded
 * labels: {@code cell_type}, {@code plate} and {@code cell_line}. Rows are sorted by plate.
 *
 * <p>How a cell is drawn, following what sequencing does:
 *
 * <ul>
 *   <li>its type, from twelve types of unequal frequency (atlases are imbalanced), and its cell
 *       line, uniformly from {@value #CELL_LINES};
 *   <li>its library size (total counts), log-normal, scaled by a depth factor of its plate (plates
 *       are sequenced to different depths);
 *   <li>then transcript bursts until the library size is reached: each lands on a gene drawn from
 *       the type's expression profile and adds a geometric count (1, 2, 3, ... with ratio {@value
 *       #BURST_CONTINUE}). Summed per gene this is an overdispersed, negative-binomial-like count:
 *       mostly 1 to 3, with a long tail on the genes a cell expresses most.
 * </ul>
 *
 * <p>The expression profiles: gene popularity is Zipf-like (weight 1 / (rank + {@value
 * #RANK_SHIFT})), so a few genes are in almost every cell and most genes are in few; ranks are
 * scattered over the gene numbers by a fixed permutation, as real gene orders are not sorted by
 * expression. Each type has a program of marker genes, drawn from the moderately popular ranks,
 * whose weight is {@value #PROGRAM_BOOST} times higher in that type: a model can learn the type
 * from the counts. Values are integer-valued float32, as in a raw counts matrix; with the default
 * {@value #DEFAULT_GENES} genes a row holds about 1,500 of them.
 *
 * <p>The profiles, programs and plate depths are fixed for a gene count, the same for every seed
 * (one "organism" and one set of plates); the seed draws the cells.
 */
public final class CellsData implements SyntheticData {
  public static final int DEFAULT_GENES = 20_000;

  /** Fewest genes: enough for every type to have a program of its own. */
  public static final int MIN_GENES = 100;

  /** Most genes: the profiles hold 12 bytes per gene and type. */
  public static final int MAX_GENES = 1_000_000;

  public static final int PLATES = 14;
  public static final int CELL_LINES = 50;

  /** The cell types, most frequent first. */
  public static final List<String> CELL_TYPES =
      List.of(
          "T cell",
          "monocyte",
          "B cell",
          "NK cell",
          "fibroblast",
          "endothelial cell",
          "epithelial cell",
          "macrophage",
          "dendritic cell",
          "neutrophil",
          "hepatocyte",
          "neuron");

  private static final int TYPES = CELL_TYPES.size();

  /** Genes in each type's program, at most (fewer with few genes). */
  static final int PROGRAM_GENES = 50;

  static final double PROGRAM_BOOST = 8;
  static final int RANK_SHIFT = 5;

  /** The probability that a burst adds one more count. */
  static final double BURST_CONTINUE = 0.3;

  // Library size exp(N(MU, SIGMA^2)) times the plate's depth: median about 3,500 counts, which
  // with the profiles of 20,000 genes lands on about 1,500 genes a cell.
  private static final double SIGMA = 0.5;
  private static final double MU = StrictMath.log(3_500);
  private static final double PLATE_DEPTH_SIGMA = 0.15;

  // Type frequencies fall as 1 / (t + 1)^TYPE_SKEW.
  private static final double TYPE_SKEW = 0.7;

  /** Fixed seed of the profiles: they depend on the gene count only. */
  private static final long GENOME_SEED = 0x5EED_CE11_5L;

  private static final DictionaryEncoding CELL_TYPE_ENCODING =
      new DictionaryEncoding(1, false, new ArrowType.Int(8, true));
  private static final DictionaryEncoding PLATE_ENCODING =
      new DictionaryEncoding(2, false, new ArrowType.Int(8, true));
  private static final DictionaryEncoding CELL_LINE_ENCODING =
      new DictionaryEncoding(3, false, new ArrowType.Int(16, true));

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Synth.listOf("indices", Synth.notNull("item", Synth.INT32)),
              Synth.listOf("values", Synth.notNull("item", Synth.FLOAT32)),
              Synth.categorical("cell_type", CELL_TYPE_ENCODING),
              Synth.categorical("plate", PLATE_ENCODING),
              Synth.categorical("cell_line", CELL_LINE_ENCODING)));

  private final int genes;
  private final double[] typeCumulative = new double[TYPES];
  private final double[] plateDepth = new double[PLATES];
  private final int[][] programs = new int[TYPES][];
  // Walker's alias tables of each type's profile over the gene numbers.
  private final double[][] aliasProbability = new double[TYPES][];
  private final int[][] alias = new int[TYPES][];
  private final DictionaryProvider.MapDictionaryProvider dictionaries =
      new DictionaryProvider.MapDictionaryProvider();

  private final int[] counts;
  private final BitSet touched;

  /**
   * @throws IllegalArgumentException if {@code genes} is outside [{@value #MIN_GENES}, {@value
   *     #MAX_GENES}]
   */
  public CellsData(BufferAllocator allocator, int genes) {
    if (genes < MIN_GENES || genes > MAX_GENES) {
      throw new IllegalArgumentException(
          "cells needs " + MIN_GENES + " to " + MAX_GENES + " genes, not " + genes);
    }
    this.genes = genes;
    counts = new int[genes];
    touched = new BitSet(genes);
    profiles(new SplittableRandom(GENOME_SEED ^ genes));

    String[] plates = new String[PLATES];
    for (int p = 0; p < PLATES; p++) {
      plates[p] = SparseData.plateName(p);
    }
    String[] lines = new String[CELL_LINES];
    for (int c = 0; c < CELL_LINES; c++) {
      lines[c] = String.format(Locale.ROOT, "CL%04d", c + 1);
    }
    try {
      dictionaries.put(
          new Dictionary(
              Synth.strings("cell_type", CELL_TYPES.toArray(new String[0]), allocator),
              CELL_TYPE_ENCODING));
      dictionaries.put(new Dictionary(Synth.strings("plate", plates, allocator), PLATE_ENCODING));
      dictionaries.put(
          new Dictionary(Synth.strings("cell_line", lines, allocator), CELL_LINE_ENCODING));
    } catch (RuntimeException e) {
      Synth.close(dictionaries);
      throw e;
    }
  }

  /** Type frequencies, plate depths, programs and the alias tables of the type profiles. */
  private void profiles(SplittableRandom rng) {
    double total = 0;
    for (int t = 0; t < TYPES; t++) {
      total += StrictMath.pow(t + 1, -TYPE_SKEW);
      typeCumulative[t] = total;
    }
    for (int t = 0; t < TYPES; t++) {
      typeCumulative[t] /= total;
    }
    for (int p = 0; p < PLATES; p++) {
      plateDepth[p] = StrictMath.exp(PLATE_DEPTH_SIGMA * Synth.gaussian(rng));
    }
    // geneOfRank: a random permutation of the gene numbers (Fisher-Yates).
    int[] geneOfRank = new int[genes];
    for (int g = 0; g < genes; g++) {
      geneOfRank[g] = g;
    }
    shuffle(geneOfRank, genes, rng);
    double[] base = new double[genes];
    for (int r = 0; r < genes; r++) {
      base[geneOfRank[r]] = 1.0 / (r + 1 + RANK_SHIFT);
    }
    // Programs: distinct genes among ranks [lo, hi), below the housekeeping genes at the top and
    // above the rare tail, PROGRAM_GENES (or fewer) per type.
    int perType = Math.min(PROGRAM_GENES, Math.max(1, genes / (4 * TYPES)));
    int lo = Math.min(50, genes / 20);
    int hi = Math.min(genes, Math.max(5_000, lo + 2 * TYPES * perType));
    int[] window = new int[hi - lo];
    for (int i = 0; i < window.length; i++) {
      window[i] = geneOfRank[lo + i];
    }
    shuffle(window, TYPES * perType, rng);
    for (int t = 0; t < TYPES; t++) {
      programs[t] = new int[perType];
      System.arraycopy(window, t * perType, programs[t], 0, perType);
      Arrays.sort(programs[t]);
      double[] weights = base.clone();
      for (int g : programs[t]) {
        weights[g] *= PROGRAM_BOOST;
      }
      aliasProbability[t] = new double[genes];
      alias[t] = new int[genes];
      aliasTable(weights, aliasProbability[t], alias[t]);
    }
  }

  /** Moves a uniform random choice of {@code k} of {@code a}'s items to its front. */
  private static void shuffle(int[] a, int k, SplittableRandom rng) {
    for (int i = 0; i < k && i < a.length - 1; i++) {
      int j = i + rng.nextInt(a.length - i);
      int x = a[i];
      a[i] = a[j];
      a[j] = x;
    }
  }

  /**
   * Walker's alias method (Vose's construction): item i is drawn by picking a slot j uniformly,
   * then j with probability {@code probability[j]}, else {@code alias[j]}.
   */
  static void aliasTable(double[] weights, double[] probability, int[] alias) {
    int n = weights.length;
    double sum = 0;
    for (double w : weights) {
      sum += w;
    }
    double[] scaled = new double[n];
    int[] small = new int[n];
    int[] large = new int[n];
    int ns = 0;
    int nl = 0;
    for (int i = 0; i < n; i++) {
      scaled[i] = weights[i] * n / sum;
      if (scaled[i] < 1) {
        small[ns++] = i;
      } else {
        large[nl++] = i;
      }
    }
    while (ns > 0 && nl > 0) {
      int s = small[--ns];
      int l = large[--nl];
      probability[s] = scaled[s];
      alias[s] = l;
      scaled[l] = scaled[l] + scaled[s] - 1;
      if (scaled[l] < 1) {
        small[ns++] = l;
      } else {
        large[nl++] = l;
      }
    }
    // What is left is 1 up to rounding.
    while (nl > 0) {
      int l = large[--nl];
      probability[l] = 1;
      alias[l] = l;
    }
    while (ns > 0) {
      int s = small[--ns];
      probability[s] = 1;
      alias[s] = s;
    }
  }

  /** The number of genes, the width of the counts matrix. */
  public int genes() {
    return genes;
  }

  /** The marker genes of cell type {@code t} (an index into {@link #CELL_TYPES}), ascending. */
  public int[] program(int t) {
    return programs[t].clone();
  }

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public DictionaryProvider dictionaries() {
    return dictionaries;
  }

  @Override
  public WriterOptions options(WriterOptions base) {
    return base.withColumnGroup("indices", "values");
  }

  @Override
  public int batchRows() {
    return 1024;
  }

  @Override
  public void fill(
      VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng) {
    ListVector indices = (ListVector) batch.getVector("indices");
    ListVector values = (ListVector) batch.getVector("values");
    IntVector indexData = (IntVector) indices.getDataVector();
    Float4Vector valueData = (Float4Vector) values.getDataVector();
    BaseIntVector cellType = (BaseIntVector) batch.getVector("cell_type");
    BaseIntVector plate = (BaseIntVector) batch.getVector("plate");
    BaseIntVector cellLine = (BaseIntVector) batch.getVector("cell_line");
    for (int i = 0; i < count; i++) {
      int p = (int) ((first + i) * PLATES / totalRows);
      int t = cellType(rng.nextDouble());
      int line = rng.nextInt(CELL_LINES);
      long library =
          Math.max(1, Math.round(StrictMath.exp(MU + SIGMA * Synth.gaussian(rng)) * plateDepth[p]));
      double[] probability = aliasProbability[t];
      int[] other = alias[t];
      for (long total = 0; total < library; ) {
        int j = rng.nextInt(genes);
        int g = rng.nextDouble() < probability[j] ? j : other[j];
        int burst = 1;
        while (rng.nextDouble() < BURST_CONTINUE) {
          burst++;
        }
        burst = (int) Math.min(burst, library - total);
        counts[g] += burst;
        touched.set(g);
        total += burst;
      }
      int at = indices.startNewValue(i);
      values.startNewValue(i);
      int n = 0;
      for (int g = touched.nextSetBit(0); g >= 0; g = touched.nextSetBit(g + 1)) {
        indexData.setSafe(at + n, g);
        valueData.setSafe(at + n, counts[g]);
        counts[g] = 0;
        n++;
      }
      touched.clear();
      indices.endValue(i, n);
      values.endValue(i, n);
      cellType.setWithPossibleTruncate(i, t);
      plate.setWithPossibleTruncate(i, p);
      cellLine.setWithPossibleTruncate(i, line);
    }
  }

  private int cellType(double u) {
    for (int t = 0; t < TYPES - 1; t++) {
      if (u < typeCumulative[t]) {
        return t;
      }
    }
    return TYPES - 1;
  }

  @Override
  public void close() {
    Synth.close(dictionaries);
  }
}
