package dev.riffle.loader.pipeline;

import dev.riffle.dataset.DatasetView;
import dev.riffle.format.io.Numbers;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeNames;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The per-row inputs of the data-driven samplers, read once from a view in view order: weights for
 * {@link dev.riffle.loader.plan.WeightedBlocks}, label codes for {@link
 * dev.riffle.loader.plan.BalancedBlocks}. One sequential scan of one column.
 */
public final class SamplerColumns {
  private SamplerColumns() {}

  /**
   * The weight of every view position.
   *
   * @throws IllegalArgumentException if the column is not a plain number, or a weight is null,
   *     negative, NaN or infinite (naming the global row)
   */
  public static double[] weights(DatasetView view, String column) throws IOException {
    double[] out = new double[checkedSize(view)];
    int p = 0;
    try (DatasetView.Cursor cursor = view.scan(List.of(column), 1 << 16)) {
      while (true) {
        try (VectorSchemaRoot batch = cursor.next()) {
          if (batch == null) {
            break;
          }
          FieldVector v = batch.getVector(column);
          boolean number =
              v.getField().getDictionary() == null
                  && (v instanceof FloatingPointVector || v instanceof BaseIntVector);
          if (!number) {
            throw new IllegalArgumentException(
                "weight column '"
                    + column
                    + "' is "
                    + typeOf(view, column)
                    + (v.getField().getDictionary() != null ? " (categorical)" : "")
                    + "; it must be a floating-point or integer number");
          }
          for (int i = 0; i < v.getValueCount(); i++, p++) {
            double w =
                v.isNull(i)
                    ? Double.NaN
                    : v instanceof FloatingPointVector f
                        ? f.getValueAsDouble(i)
                        : ((BaseIntVector) v).getValueAsLong(i);
            if (!(w >= 0) || Double.isInfinite(w)) {
              throw new IllegalArgumentException(
                  "weight column '"
                      + column
                      + "' is "
                      + (v.isNull(i) ? "null" : Numbers.text(w))
                      + " at row "
                      + Numbers.count(view.globalRow(p))
                      + "; weights must be finite and non-negative");
            }
            out[p] = w;
          }
        }
      }
    }
    return out;
  }

  /**
   * The label code of every view position, -1 where it is null.
   *
   * @throws IllegalArgumentException if the column is not categorical or integer, or a code is
   *     outside [0, 2^20]
   */
  public static int[] labels(DatasetView view, String column) throws IOException {
    int[] out = new int[checkedSize(view)];
    int p = 0;
    try (DatasetView.Cursor cursor = view.scan(List.of(column), 1 << 16)) {
      while (true) {
        try (VectorSchemaRoot batch = cursor.next()) {
          if (batch == null) {
            break;
          }
          FieldVector v = batch.getVector(column);
          if (!(v instanceof BaseIntVector codes)) {
            throw notALabel(view.dataset().schema(), column);
          }
          for (int i = 0; i < v.getValueCount(); i++, p++) {
            if (v.isNull(i)) {
              out[p] = -1;
              continue;
            }
            long c = codes.getValueAsLong(i);
            if (c < 0 || c > 1 << 20) {
              throw new IllegalArgumentException(
                  "label column '"
                      + column
                      + "' has code "
                      + Numbers.count(c)
                      + " at row "
                      + Numbers.count(view.globalRow(p))
                      + "; expected [0, 2^20]");
            }
            out[p] = (int) c;
          }
        }
      }
    }
    return out;
  }

  /**
   * The refusal of a label column that is neither categorical nor an integer, in the one wording of
   * the loader and DJL; for a string column it says how to make the column categorical.
   */
  public static IllegalArgumentException notALabel(RiffleSchema schema, String column) {
    Field f = schema.fields().get(schema.fieldIndex(column));
    ArrowType.ArrowTypeID t = f.getType().getTypeID();
    boolean text =
        f.getDictionary() == null
            && (t == ArrowType.ArrowTypeID.Utf8 || t == ArrowType.ArrowTypeID.LargeUtf8);
    String asArgument = column.matches("[A-Za-z0-9_.-]+") ? column : "'" + column + "'";
    return new IllegalArgumentException(
        "label column '"
            + column
            + "' is "
            + TypeNames.of(schema, column)
            + "; it must be categorical (dictionary-encoded) or an integer"
            + (text
                ? "; convert the data with --categorical "
                    + asArgument
                    + " (riffle convert parquet or arrow) to make it one"
                : ""));
  }

  /** A column's type as the CLI prints it ({@code list<int32>}, {@code dictionary<...>}). */
  static String typeOf(DatasetView view, String column) {
    return TypeNames.of(view.dataset().schema(), column);
  }

  private static int checkedSize(DatasetView view) {
    if (view.rowCount() >= Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "view '"
              + view.name()
              + "' has "
              + Numbers.count(view.rowCount())
              + " rows; weighted and balanced"
              + " sampling hold one value per row and take at most 2^31 − 1");
    }
    return (int) view.rowCount();
  }
}
