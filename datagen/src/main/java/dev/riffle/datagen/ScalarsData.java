package dev.riffle.datagen;

import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code scalars}: {@code id} uint64 with 10% nulls, {@code x} float64, {@code name} utf8 of 8 to
 * 24 lowercase letters. Narrow fixed-width and short variable-width values, the common table case.
 */
public final class ScalarsData implements SyntheticData {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Synth.nullable("id", Synth.UINT64),
              Synth.notNull("x", Synth.FLOAT64),
              Synth.notNull("name", ArrowType.Utf8.INSTANCE)));

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public int batchRows() {
    return 4096;
  }

  @Override
  public void fill(
      VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng) {
    UInt8Vector id = (UInt8Vector) batch.getVector("id");
    Float8Vector x = (Float8Vector) batch.getVector("x");
    VarCharVector name = (VarCharVector) batch.getVector("name");
    for (int i = 0; i < count; i++) {
      if (rng.nextInt(10) == 0) {
        id.setNull(i);
      } else {
        id.setSafe(i, rng.nextLong());
      }
      x.setSafe(i, Synth.gaussian(rng) * 1000);
      name.setSafe(i, Synth.lowercase(rng, 8 + rng.nextInt(17)));
    }
  }
}
