package dev.riffle.datagen;

import dev.riffle.format.write.WriterOptions;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code atoms}: molecular structures of 2 to 200 atoms, as in machine-learned force fields: {@code
 * positions} and {@code forces} (list&lt;fixed_size_list&lt;float32, 3&gt;&gt;, one column group
 * since a training step reads both), {@code numbers} (list&lt;int8&gt; atomic numbers 1 to 100) and
 * {@code energy} (float64).
 */
public final class AtomsData implements SyntheticData {
  public static final int MIN_ATOMS = 2;
  public static final int MAX_ATOMS = 200;

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Synth.listOf("positions", Synth.floatVector("item", 3)),
              Synth.listOf("forces", Synth.floatVector("item", 3)),
              Synth.listOf("numbers", Synth.notNull("item", Synth.INT8)),
              Synth.notNull("energy", Synth.FLOAT64)));

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public WriterOptions options(WriterOptions base) {
    return base.withColumnGroup("positions", "forces");
  }

  @Override
  public int batchRows() {
    return 4096;
  }

  @Override
  public void fill(
      VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng) {
    ListVector positions = (ListVector) batch.getVector("positions");
    ListVector forces = (ListVector) batch.getVector("forces");
    ListVector numbers = (ListVector) batch.getVector("numbers");
    Float8Vector energy = (Float8Vector) batch.getVector("energy");
    FixedSizeListVector positionItems = (FixedSizeListVector) positions.getDataVector();
    FixedSizeListVector forceItems = (FixedSizeListVector) forces.getDataVector();
    Float4Vector positionData = (Float4Vector) positionItems.getDataVector();
    TinyIntVector numberData = (TinyIntVector) numbers.getDataVector();
    for (int i = 0; i < count; i++) {
      int atoms = MIN_ATOMS + rng.nextInt(MAX_ATOMS - MIN_ATOMS + 1);
      int at = positions.startNewValue(i);
      forces.startNewValue(i);
      numbers.startNewValue(i);
      for (int a = 0; a < atoms; a++) {
        // Coordinates in a 20 Å box; forces around zero.
        int p = positionItems.startNewValue(at + a);
        for (int k = 0; k < 3; k++) {
          positionData.setSafe(p + k, (float) (rng.nextDouble() * 20));
        }
        Synth.fillVector(forceItems, at + a, rng);
        numberData.setSafe(at + a, 1 + rng.nextInt(100));
      }
      positions.endValue(i, atoms);
      forces.endValue(i, atoms);
      numbers.endValue(i, atoms);
      energy.setSafe(i, -10.0 * atoms + Synth.gaussian(rng));
    }
  }
}
