package dev.riffle.loader.pipeline;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Small sparse datasets for pipeline tests: {@code id} (the global row), {@code indices} and {@code
 * values} (row r has r mod 7 entries: index r+k, value r+k/2), {@code plate} (r·14/n, rows ordered
 * by plate like an experiment's files). Several data files, so takes cross files.
 */
final class TestDatasets {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("id", new ArrowType.Int(64, true)),
              list("indices", new ArrowType.Int(32, true)),
              list(
                  "values",
                  new ArrowType.FloatingPoint(
                      org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE)),
              Field.notNullable("plate", new ArrowType.Int(32, true))));

  private TestDatasets() {}

  private static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.notNullable(ArrowType.List.INSTANCE),
        List.of(Field.notNullable("item", item)));
  }

  static int entries(long row) {
    return (int) (row % 7);
  }

  /** Writes {@code rows} rows to {@code dir} in files of about {@code fileBytes}. */
  static LocalStorage write(Path dir, long rows, long fileBytes, BufferAllocator allocator)
      throws IOException {
    return write(dir, rows, DatasetOptions.defaults().withTargetFileBytes(fileBytes), allocator);
  }

  /** Writes {@code rows} rows to {@code dir} with these options (e.g. rows per file). */
  static LocalStorage write(Path dir, long rows, DatasetOptions options, BufferAllocator allocator)
      throws IOException {
    LocalStorage storage = new LocalStorage(dir);
    try (DatasetWriter w = DatasetWriter.create(storage, SCHEMA, null, options)) {
      int batch = 4096;
      for (long start = 0; start < rows; start += batch) {
        int n = (int) Math.min(batch, rows - start);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
          root.allocateNew();
          BigIntVector id = (BigIntVector) root.getVector("id");
          IntVector plate = (IntVector) root.getVector("plate");
          UnionListWriter iw = ((ListVector) root.getVector("indices")).getWriter();
          UnionListWriter vw = ((ListVector) root.getVector("values")).getWriter();
          for (int i = 0; i < n; i++) {
            long r = start + i;
            id.setSafe(i, r);
            plate.setSafe(i, (int) (r * 14 / rows));
            iw.setPosition(i);
            vw.setPosition(i);
            iw.startList();
            vw.startList();
            for (int k = 0; k < entries(r); k++) {
              iw.integer().writeInt((int) (r + k));
              vw.float4().writeFloat4(r + k / 2f);
            }
            iw.endList();
            vw.endList();
          }
          root.setRowCount(n);
          w.write(root);
        }
      }
      w.publish();
    }
    return storage;
  }

  /** The float a row's k-th value should be. */
  static float value(long row, int k) {
    return row + k / 2f;
  }
}
