package dev.riffle.datagen;

import dev.riffle.format.write.WriterOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Another kind's rows with one more column: a non-null float32 sampling weight, for the weighted
 * sampler. The i-th row written gets {@link #weight}(i), a function of its number alone, so that
 * the other columns are exactly those of the kind without it (the kind's random stream is not drawn
 * from).
 */
public final class WeightedData implements SyntheticData {
  private final SyntheticData base;
  private final String name;
  private final Schema schema;

  /**
   * @throws IllegalArgumentException if the kind already has a column of that name
   */
  public WeightedData(SyntheticData base, String name) {
    for (Field f : base.schema().getFields()) {
      if (f.getName().equals(name)) {
        throw new IllegalArgumentException("the kind already has a column '" + name + "'");
      }
    }
    this.base = base;
    this.name = name;
    List<Field> fields = new ArrayList<>(base.schema().getFields());
    fields.add(Synth.notNull(name, Synth.FLOAT32));
    this.schema = new Schema(fields, base.schema().getCustomMetadata());
  }

  /**
   * Row {@code row}'s weight: log-uniform in [0.1, 10), from a hash of the row number (a skew a
   * weighted sampler visibly corrects, without zeros).
   */
  public static float weight(long row) {
    double u = (mix(row) >>> 11) * 0x1.0p-53;
    return (float) Math.pow(10, 2 * u - 1);
  }

  // SplitMix64's finaliser: consecutive ids give unrelated bits.
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public DictionaryProvider dictionaries() {
    return base.dictionaries();
  }

  @Override
  public WriterOptions options(WriterOptions b) {
    return base.options(b);
  }

  @Override
  public int batchRows() {
    return base.batchRows();
  }

  @Override
  public void fill(
      VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng) {
    base.fill(batch, first, count, totalRows, rng);
    Float4Vector w = (Float4Vector) batch.getVector(name);
    for (int i = 0; i < count; i++) {
      w.setSafe(i, weight(first + i));
    }
    w.setValueCount(count);
  }

  @Override
  public void close() {
    base.close();
  }
}
