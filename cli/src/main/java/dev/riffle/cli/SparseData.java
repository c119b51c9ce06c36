package dev.riffle.cli;

import dev.riffle.format.write.WriterOptions;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code sparse}: single-cell expression profiles. {@code indices} (sorted distinct gene numbers in
 * [0, 20000)) and {@code values} (positive float32, as many) are one column group, since a reader
 * always wants both; {@code plate} (14 values) and {@code cell_line} (50 values) are categorical,
 * dictionary-encoded utf8. Rows are ordered by plate, as an experiment's files usually are. A row
 * has 300 to 4,000 non-zeros, about 1,500 on average, from a clipped log-normal: real cells are
 * skewed the same way, with a long tail of rich cells.
 */
final class SparseData implements SyntheticData {
  static final int GENES = 20_000;
  static final int PLATES = 14;
  static final int CELL_LINES = 50;
  static final int MIN_NNZ = 300;
  static final int MAX_NNZ = 4_000;

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

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Synth.listOf("indices", Synth.notNull("item", Synth.INT32)),
              Synth.listOf("values", Synth.notNull("item", Synth.FLOAT32)),
              categorical("plate", PLATE_ENCODING),
              categorical("cell_line", CELL_LINE_ENCODING)));

  private final DictionaryProvider.MapDictionaryProvider dictionaries =
      new DictionaryProvider.MapDictionaryProvider();
  private final BitSet scratch = new BitSet(GENES);
  private final int[] genes = new int[MAX_NNZ];

  SparseData(BufferAllocator allocator) {
    String[] plates = new String[PLATES];
    for (int p = 0; p < PLATES; p++) {
      plates[p] = String.format(Locale.ROOT, "plate%02d", p + 1);
    }
    String[] lines = new String[CELL_LINES];
    for (int c = 0; c < CELL_LINES; c++) {
      lines[c] = String.format(Locale.ROOT, "CL%04d", c + 1);
    }
    VarCharVector plateValues = strings("plate", plates, allocator);
    dictionaries.put(new Dictionary(plateValues, PLATE_ENCODING));
    try {
      dictionaries.put(new Dictionary(strings("cell_line", lines, allocator), CELL_LINE_ENCODING));
    } catch (RuntimeException e) {
      plateValues.close();
      throw e;
    }
  }

  private static Field categorical(String name, DictionaryEncoding encoding) {
    // In an Arrow batch a dictionary field has its index type; the encoding names the dictionary.
    return new Field(
        name, new FieldType(false, encoding.getIndexType(), encoding, null), List.of());
  }

  private static VarCharVector strings(String name, String[] values, BufferAllocator allocator) {
    VarCharVector v = new VarCharVector(name, allocator);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
    }
    v.setValueCount(values.length);
    return v;
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
  public WriterOptions options() {
    return WriterOptions.defaults().withColumnGroup("indices", "values");
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
    TinyIntVector plate = (TinyIntVector) batch.getVector("plate");
    SmallIntVector cellLine = (SmallIntVector) batch.getVector("cell_line");
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
      plate.setSafe(i, (int) (row * PLATES / totalRows));
      cellLine.setSafe(i, rng.nextInt(CELL_LINES));
    }
  }

  @Override
  public void close() {
    for (long id : dictionaries.getDictionaryIds()) {
      dictionaries.lookup(id).getVector().close();
    }
  }
}
