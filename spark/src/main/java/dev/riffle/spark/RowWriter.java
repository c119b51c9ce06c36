package dev.riffle.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Copies Spark rows into the vectors of an Arrow batch of the dataset's schema. Each column gets a
 * writer for its (Spark type, Arrow type) pair, chosen once; a pair that cannot be written (a type
 * {@link SparkTypes} does not map, or, when appending, a dataset type the Spark column cannot fill)
 * fails at construction, on the driver, naming the column. Values that do not fit (a null in a
 * non-nullable field, an int out of an unsigned range, a vector of the wrong size) fail with the
 * column and the value.
 */
final class RowWriter {
  private final VectorSchemaRoot root;
  private final ValueWriters.ValueWriter[] columns;
  private int rows;

  RowWriter(VectorSchemaRoot root, StructType sparkSchema) {
    this.root = root;
    List<Field> fields = root.getSchema().getFields();
    StructField[] spark = sparkSchema.fields();
    List<String> have = new ArrayList<>();
    fields.forEach(f -> have.add(f.getName()));
    List<String> want = names(sparkSchema);
    if (!have.equals(want)) {
      List<String> missing = new ArrayList<>(have);
      missing.removeAll(want);
      List<String> extra = new ArrayList<>(want);
      extra.removeAll(have);
      throw new IllegalArgumentException(
          "the DataFrame's columns "
              + want
              + " are not the dataset's "
              + have
              + (missing.isEmpty() ? "" : "; missing: " + quoted(missing))
              + (extra.isEmpty() ? "" : "; not in the dataset: " + quoted(extra))
              + ((missing.isEmpty() && extra.isEmpty()) ? " (order differs)" : ""));
    }
    columns = new ValueWriters.ValueWriter[spark.length];
    for (int i = 0; i < spark.length; i++) {
      if (!fields.get(i).getName().equals(spark[i].name())) {
        throw new IllegalArgumentException(
            "column "
                + i
                + " is '"
                + spark[i].name()
                + "', the dataset's is '"
                + fields.get(i).getName()
                + "'");
      }
      if (fields.get(i).getDictionary() != null) {
        throw new IllegalArgumentException(
            "column '"
                + spark[i].name()
                + "' is categorical (dictionary-encoded) in the dataset; Spark writes plain"
                + " values, so append is not possible: write a new version with mode(\"overwrite\")");
      }
      columns[i] = ValueWriters.writer(root.getVector(i), spark[i].dataType(), spark[i].name());
    }
  }

  /** Appends a row. */
  void write(InternalRow row) {
    for (int i = 0; i < columns.length; i++) {
      columns[i].write(row, i, rows);
    }
    rows++;
  }

  /** Rows written since the last {@link #reset()}. */
  int rowCount() {
    return rows;
  }

  /** Bytes the batch's buffers hold (capacity, a bound on what a flush hands over). */
  long bufferBytes() {
    long n = 0;
    for (FieldVector v : root.getFieldVectors()) {
      n += v.getBufferSizeFor(rows);
    }
    return n;
  }

  /** Seals the batch: the root holds {@link #rowCount()} rows. */
  VectorSchemaRoot finish() {
    root.setRowCount(rows);
    return root;
  }

  /** Empties the batch for the next rows. */
  void reset() {
    root.allocateNew();
    rows = 0;
  }

  private static String quoted(List<String> names) {
    return names.stream()
        .map(n -> "'" + n + "'")
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** The Spark schema's column names. */
  static List<String> names(StructType t) {
    List<String> out = new ArrayList<>();
    for (StructField f : t.fields()) {
      out.add(f.name());
    }
    return out;
  }
}
