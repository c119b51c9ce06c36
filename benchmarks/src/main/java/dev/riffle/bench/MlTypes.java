package dev.riffle.bench;

import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The two ML shapes of {@code riffle generate} beside lance8, re-stated here as {@link Lance8} is
 * (the cli classes are package-private there), several columns per file:
 *
 * <ul>
 *   <li>{@code sparse}: single-cell expression rows, {@code indices} (sorted distinct gene numbers
 *       in [0, 20000)) and {@code values} (positive float32, as many), 300 to 4,000 non-zeros a row
 *       (about 1,500, clipped log-normal), plus {@code plate} int32 in [0, 14) rising with the row
 *       (files are ordered by plate). The cli stores plate as a dictionary-encoded string; a plain
 *       int32 keeps every peer's schema the same.
 *   <li>{@code vectors}: {@code embedding} FixedSizeList of 768 float32 in [-1, 1) and {@code
 *       label} int32 in [0, 1000).
 * </ul>
 */
final class MlTypes {
  static final List<String> TYPES = List.of("sparse", "vectors");
  static final int GENES = 20_000;
  static final int PLATES = 14;
  static final int MIN_NNZ = 300;
  static final int MAX_NNZ = 4_000;
  private static final double SIGMA = 0.6;
  private static final double MU = Math.log(1_210) - SIGMA * SIGMA / 2;

  private MlTypes() {}

  static Schema schema(String type) {
    switch (type) {
      case "sparse":
        return new Schema(
            List.of(
                list("indices", new ArrowType.Int(32, true)),
                list("values", Lance8.FLOAT32),
                new Field("plate", FieldType.notNullable(new ArrowType.Int(32, true)), List.of())));
      case "vectors":
        return new Schema(
            List.of(
                new Field(
                    "embedding",
                    FieldType.notNullable(new ArrowType.FixedSizeList(Lance8.DIM)),
                    List.of(new Field("item", FieldType.notNullable(Lance8.FLOAT32), List.of()))),
                new Field("label", FieldType.notNullable(new ArrowType.Int(32, true)), List.of())));
      default:
        throw new IllegalArgumentException(type);
    }
  }

  private static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.notNullable(ArrowType.List.INSTANCE),
        List.of(new Field("item", FieldType.notNullable(item), List.of())));
  }

  /**
   * The value kinds of the columns, in schema order, as {@link Fingerprint} and {@link ParquetPeer}
   * name them.
   */
  static List<String> kinds(String type) {
    return type.equals("sparse")
        ? List.of("list_i32", "list_f32", "i32")
        : List.of("vec768", "i32");
  }

  /** The column a one-column scan reads: the label, as a filter or a class balance would. */
  static String labelColumn(String type) {
    return type.equals("sparse") ? "plate" : "label";
  }

  /** Approximate bytes of one row. */
  static int rowBytes(String type) {
    return type.equals("sparse") ? 12_004 : 3_076;
  }

  /**
   * Fills rows [0, count) of {@code root} (freshly allocated); {@code first} and {@code total}
   * place the batch in the file (the plate rises with the row).
   */
  static void fill(
      String type, VectorSchemaRoot root, long first, int count, long total, SplittableRandom rng) {
    if (type.equals("vectors")) {
      FixedSizeListVector embedding = (FixedSizeListVector) root.getVector(0);
      IntVector label = (IntVector) root.getVector(1);
      for (int i = 0; i < count; i++) {
        Lance8.fillVector(embedding, i, rng);
        label.setSafe(i, rng.nextInt(1000));
      }
      setCounts(root, count);
      return;
    }
    ListVector indices = (ListVector) root.getVector(0);
    ListVector values = (ListVector) root.getVector(1);
    IntVector plate = (IntVector) root.getVector(2);
    IntVector indexData = (IntVector) indices.getDataVector();
    Float4Vector valueData = (Float4Vector) values.getDataVector();
    BitSet scratch = new BitSet(GENES);
    for (int i = 0; i < count; i++) {
      int nnz = nonZeros(rng);
      int at = indices.startNewValue(i);
      values.startNewValue(i);
      // Floyd's sample of nnz distinct genes, read back in order.
      for (int j = GENES - nnz; j < GENES; j++) {
        int t = rng.nextInt(j + 1);
        scratch.set(scratch.get(t) ? j : t);
      }
      int k = 0;
      for (int g = scratch.nextSetBit(0); g >= 0; g = scratch.nextSetBit(g + 1), k++) {
        indexData.setSafe(at + k, g);
        valueData.setSafe(at + k, (float) (0.1 + StrictMath.exp(2 * rng.nextDouble()) - 1));
      }
      scratch.clear();
      indices.endValue(i, nnz);
      values.endValue(i, nnz);
      plate.setSafe(i, (int) ((first + i) * PLATES / total));
    }
    setCounts(root, count);
  }

  private static int nonZeros(SplittableRandom rng) {
    double u = 1.0 - rng.nextDouble();
    double v = rng.nextDouble();
    double z = StrictMath.sqrt(-2 * StrictMath.log(u)) * StrictMath.cos(2 * StrictMath.PI * v);
    double x = MIN_NNZ + StrictMath.exp(MU + SIGMA * z);
    return (int) Math.min(MAX_NNZ, Math.round(x));
  }

  private static void setCounts(VectorSchemaRoot root, int count) {
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(count);
    }
    root.setRowCount(count);
  }
}
