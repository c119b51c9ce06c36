package dev.riffle.loader.pipeline;

import dev.riffle.dataset.DatasetView;
import dev.riffle.format.io.Numbers;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The global distribution of a categorical label over a view, for TV distance and entropy. */
final class Labels {
  private Labels() {}

  /**
   * p_c for every code c of the label's dictionary (as far as the view uses it), from one
   * sequential scan of the label column.
   *
   * @throws IllegalArgumentException if the column is not dictionary-encoded or integer
   */
  static double[] distribution(DatasetView view, String label) throws IOException {
    long[] counts = new long[16];
    long total = 0;
    DatasetView.Cursor cursor = view.scan(List.of(label), 1 << 16);
    while (true) {
      try (VectorSchemaRoot batch = cursor.next()) {
        if (batch == null) {
          break;
        }
        FieldVector v = batch.getVector(label);
        if (!(v instanceof BaseIntVector codes)) {
          throw SamplerColumns.notALabel(view.dataset().schema(), label);
        }
        for (int i = 0; i < v.getValueCount(); i++) {
          if (v.isNull(i)) {
            continue;
          }
          long c = codes.getValueAsLong(i);
          if (c < 0 || c > 1 << 20) {
            throw new IllegalArgumentException(
                "label column '"
                    + label
                    + "' has code "
                    + Numbers.count(c)
                    + "; expected [0, 2^20]");
          }
          if (c >= counts.length) {
            counts = Arrays.copyOf(counts, (int) Math.max(c + 1, counts.length * 2L));
          }
          counts[(int) c]++;
          total++;
        }
      }
    }
    int classes = counts.length;
    while (classes > 1 && counts[classes - 1] == 0) {
      classes--;
    }
    double[] p = new double[classes];
    for (int c = 0; c < classes; c++) {
      p[c] = total == 0 ? 0 : (double) counts[c] / total;
    }
    return p;
  }
}
