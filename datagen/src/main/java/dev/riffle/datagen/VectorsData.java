package dev.riffle.datagen;

import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code vectors}: {@code embedding} fixed_size_list&lt;float32, 768&gt; and {@code label} int32,
 * the shape of an embedding dataset (3 KiB of vector per row).
 */
public final class VectorsData implements SyntheticData {
  /** The vector length, also that of lance8's {@code vec768} and {@code list_vec} items. */
  public static final int DIM = 768;

  private static final Schema SCHEMA =
      new Schema(List.of(Synth.floatVector("embedding", DIM), Synth.notNull("label", Synth.INT32)));

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public int batchRows() {
    return 1024;
  }

  @Override
  public void fill(
      VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng) {
    FixedSizeListVector embedding = (FixedSizeListVector) batch.getVector("embedding");
    IntVector label = (IntVector) batch.getVector("label");
    for (int i = 0; i < count; i++) {
      Synth.fillVector(embedding, i, rng);
      label.setSafe(i, rng.nextInt(1000));
    }
  }
}
