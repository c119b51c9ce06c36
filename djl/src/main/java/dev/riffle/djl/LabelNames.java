package dev.riffle.djl;

import dev.riffle.dataset.Dataset;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.loader.pipeline.SamplerColumns;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;

/** The classes of a label column: what each int64 label code handed out means. */
public final class LabelNames {
  private LabelNames() {}

  /**
   * The class names of a label column, code c at index c: its dictionary's values for a categorical
   * column, or "0", "1", ... up to the largest code for an integer column (one scan).
   *
   * @throws IllegalArgumentException if the column is missing or neither categorical nor integer
   */
  public static List<String> of(Dataset d, String label) throws IOException {
    RiffleSchema schema = d.schema();
    int i = schema.fieldIndex(label);
    if (i < 0) {
      throw new IllegalArgumentException(
          "no column '" + label + "' in " + d.storage().uri() + " to use as the label");
    }
    Field f = schema.fields().get(i);
    List<String> names = new ArrayList<>();
    if (f.getDictionary() != null) {
      Dictionary dict = d.dictionaries().lookup(f.getDictionary().getId());
      FieldVector values = dict.getVector();
      for (int c = 0; c < values.getValueCount(); c++) {
        names.add(
            values instanceof VarCharVector s
                ? new String(s.get(c), StandardCharsets.UTF_8)
                : String.valueOf(values.getObject(c)));
      }
      return names;
    }
    if (!(f.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Int)) {
      throw SamplerColumns.notALabel(schema, label);
    }
    long max = -1;
    var cursor = d.all().scan(List.of(label), 1 << 16);
    while (true) {
      try (VectorSchemaRoot b = cursor.next()) {
        if (b == null) {
          break;
        }
        BaseIntVector v = (BaseIntVector) b.getVector(label);
        for (int r = 0; r < b.getRowCount(); r++) {
          if (!b.getVector(label).isNull(r)) {
            max = Math.max(max, v.getValueAsLong(r));
          }
        }
      }
    }
    for (long c = 0; c <= max; c++) {
      names.add(Long.toString(c));
    }
    return names;
  }
}
