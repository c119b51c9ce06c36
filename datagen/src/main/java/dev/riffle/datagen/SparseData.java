package dev.riffle.datagen;

import dev.riffle.format.write.WriterOptions;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code sparse}: single-cell expression profiles. {@code indices} (sorted distinct gene numbers in
 * [0, 20000)) and {@code values} (positive float32, as many) are one column group, since a reader
 * always wants both; {@code plate} (14 values) and {@code cell_line} (50 values) are categorical,
 * dictionary-encoded utf8. Rows are ordered by plate, as an experiment's files usually are. A row
 * has 300 to 4,000 non-zeros, about 1,500 on average, from a clipped log-normal: real cells are
 * skewed the same way, with a long tail of rich cells.
 *
 * <p>{@link #withCodes} gives the same rows with the labels as plain int32 numbers instead, for
 * writers that have no dictionaries.
 */
public final class SparseData implements SyntheticData {
  public static final int GENES = 20_000;
  public static final int PLATES = 14;
  public static final int CELL_LINES = 50;
  public static final int MIN_NNZ = 300;
  public static final int MAX_NNZ = 4_000;

  // 300 + exp(N(MU, SIGMA^2)), clipped to 4,000: the mean is about 300 + exp(MU + SIGMA^2 / 2)
  // minus the clipped tail, i.e. close to 1,500.
  private static final double SIGMA = 0.6;
  private static final double MU = Math.log(1_210) - SIGMA * SIGMA / 2;

  private static final ArrowType.Int PLATE_INDEX = new ArrowType.Int(8, true);
  private static final ArrowType.Int CELL_LINE_INDEX = new ArrowType.Int(16, true);
  private static final DictionaryEncoding PLATE_ENCODING =
      new DictionaryEncoding(1, false, PLATE_INDEX);
  private static final DictionaryEncoding CELL_LINE_ENCODING =
      new DictionaryEncoding(2, false, CELL_LINE_INDEX);

  private static final Field INDICES = Synth.listOf("indices", Synth.notNull("item", Synth.INT32));
  private static final Field VALUES = Synth.listOf("values", Synth.notNull("item", Synth.FLOAT32));

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              INDICES,
              VALUES,
              Synth.categorical("plate", PLATE_ENCODING),
              Synth.categorical("cell_line", CELL_LINE_ENCODING)));

  private final Schema schema;
  private final DictionaryProvider.MapDictionaryProvider dictionaries;
  private final BitSet scratch = new BitSet(GENES);
  private final int[] genes = new int[MAX_NNZ];

  /** The four columns, {@code plate} and {@code cell_line} dictionary-encoded utf8. */
  public SparseData(BufferAllocator allocator) {
    schema = SCHEMA;
    dictionaries = new DictionaryProvider.MapDictionaryProvider();
    String[] plates = new String[PLATES];
    for (int p = 0; p < PLATES; p++) {
      plates[p] = plateName(p);
    }
    String[] lines = new String[CELL_LINES];
    for (int c = 0; c < CELL_LINES; c++) {
      lines[c] = String.format(Locale.ROOT, "CL%04d", c + 1);
    }
    VarCharVector plateValues = Synth.strings("plate", plates, allocator);
    dictionaries.put(new Dictionary(plateValues, PLATE_ENCODING));
    try {
      dictionaries.put(
          new Dictionary(Synth.strings("cell_line", lines, allocator), CELL_LINE_ENCODING));
    } catch (RuntimeException e) {
      plateValues.close();
      throw e;
    }
  }

  private SparseData(Schema schema) {
    this.schema = schema;
    this.dictionaries = null;
  }

  /**
   * {@code indices}, {@code values} and those of the labels {@code plate} and {@code cell_line}
   * named in {@code labels}, as int32 numbers: the dictionary index of the other form ({@code
   * plate} p is {@code plateName(p)}). A label left out draws nothing from the generator, so that
   * leaving out {@code cell_line} changes the other columns too: its draw after each row shifts
   * every later row. With both labels the rows are those of the four-column form.
   *
   * @throws IllegalArgumentException for a label other than {@code plate} or {@code cell_line}
   */
  public static SparseData withCodes(List<String> labels) {
    List<Field> fields = new ArrayList<>(List.of(INDICES, VALUES));
    for (String name : List.of("plate", "cell_line")) {
      if (labels.contains(name)) {
        fields.add(Synth.notNull(name, Synth.INT32));
      }
    }
    for (String l : labels) {
      if (!l.equals("plate") && !l.equals("cell_line")) {
        throw new IllegalArgumentException(
            "sparse has no label '" + l + "'; labels are plate, cell_line");
      }
    }
    return new SparseData(new Schema(fields));
  }

  /** The name of plate {@code p} (0-based), as the dictionary holds it. */
  public static String plateName(int p) {
    return String.format(Locale.ROOT, "plate%02d", p + 1);
  }

  @Override
  public Schema schema() {
    return schema;
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

  /** Non-zeros of one row. */
  static int nonZeros(SplittableRandom rng) {
    double x = MIN_NNZ + StrictMath.exp(MU + SIGMA * Synth.gaussian(rng));
    return (int) Math.min(MAX_NNZ, Math.round(x));
  }

  @Override
  public void fill(
      VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng) {
    ListVector indices = (ListVector) batch.getVector("indices");
    ListVector values = (ListVector) batch.getVector("values");
    IntVector indexData = (IntVector) indices.getDataVector();
    Float4Vector valueData = (Float4Vector) values.getDataVector();
    // Dictionary indices (int8, int16) or plain int32: both take the label's number.
    BaseIntVector plate = (BaseIntVector) batch.getVector("plate");
    BaseIntVector cellLine = (BaseIntVector) batch.getVector("cell_line");
    for (int i = 0; i < count; i++) {
      int nnz = nonZeros(rng);
      Synth.sortedSample(rng, GENES, nnz, scratch, genes);
      int at = indices.startNewValue(i);
      values.startNewValue(i);
      for (int k = 0; k < nnz; k++) {
        indexData.setSafe(at + k, genes[k]);
        // Expression levels: positive, skewed, with a random mantissa.
        valueData.setSafe(at + k, (float) (0.1 + StrictMath.exp(2 * rng.nextDouble()) - 1));
      }
      indices.endValue(i, nnz);
      values.endValue(i, nnz);
      long row = first + i;
      if (plate != null) {
        plate.setWithPossibleTruncate(i, row * PLATES / totalRows);
      }
      if (cellLine != null) {
        cellLine.setWithPossibleTruncate(i, rng.nextInt(CELL_LINES));
      }
    }
  }

  @Override
  public void close() {
    if (dictionaries == null) {
      return;
    }
    Synth.close(dictionaries);
  }
}
