package dev.riffle.dataset;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.testing.TypeCase;
import dev.riffle.format.write.WriterOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Small local datasets for tests: {@code id} (int64, the global row) and {@code vec} (384 float32:
 * records of 1.5 KiB, too large for sectors, so stored in ZIP_FIXED pages, whose slots a take reads
 * without a checksum), in files of a fixed row count; and manifest surgery, for damage that no
 * writer makes.
 */
final class TestDatasets {
  private TestDatasets() {}

  static final int DIM = 384;

  static final Schema SCHEMA =
      new Schema(
          List.of(
              TypeCase.notNull("id", new ArrowType.Int(64, true)),
              TypeCase.notNull(
                  "vec",
                  new ArrowType.FixedSizeList(DIM),
                  TypeCase.notNull(
                      "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))));

  /** Page size of the data files: about 40 rows of {@code vec} per page. */
  static final int PAGE_BYTES = 64 << 10;

  /** The value of element {@code j} of row {@code row}'s vector. */
  static float value(long row, int j) {
    return (float) new SplittableRandom(row * 1_000_003L + j).nextDouble();
  }

  /** Writes version 1: {@code files} files of {@code rowsPerFile} rows. */
  static Manifest write(LocalStorage storage, BufferAllocator allocator, int files, int rowsPerFile)
      throws IOException {
    DatasetOptions options =
        DatasetOptions.defaults()
            .withTargetFileRows(rowsPerFile)
            .withFileOptions(WriterOptions.defaults().withPageBytes(PAGE_BYTES));
    try (DatasetWriter w = DatasetWriter.create(storage, SCHEMA, null, options)) {
      for (int f = 0; f < files; f++) {
        try (VectorSchemaRoot batch = rows(allocator, (long) f * rowsPerFile, rowsPerFile)) {
          w.write(batch);
        }
      }
      return w.publish();
    }
  }

  /** Rows [first, first + n). */
  static VectorSchemaRoot rows(BufferAllocator allocator, long first, int n) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
    Float4Vector items = (Float4Vector) vec.getDataVector();
    for (int i = 0; i < n; i++) {
      id.setSafe(i, first + i);
      vec.setNotNull(i);
      for (int j = 0; j < DIM; j++) {
        items.setSafe(i * DIM + j, value(first + i, j));
      }
    }
    items.setValueCount(n * DIM);
    root.setRowCount(n);
    return root;
  }

  /** Rewrites version {@code v}'s manifest in place, as damage or an old writer would. */
  static void editManifest(LocalStorage storage, long v, Consumer<ObjectNode> edit)
      throws IOException {
    Path path = storage.root().resolve(Manifest.path(v));
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode json = (ObjectNode) mapper.readTree(Files.readAllBytes(path));
    edit.accept(json);
    Files.write(path, mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(json));
  }

  /** The data file {@code i} of a manifest, as a JSON object to edit. */
  static ObjectNode file(ObjectNode manifest, int i) {
    return (ObjectNode) manifest.get("files").get(i);
  }
}
