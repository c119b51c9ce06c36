package dev.riffle.datagen;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.write.WriterOptions;
import java.io.IOException;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A dataset of an id and a random, incompressible 4 KiB payload per row, in files of about a given
 * size: what staging and lazy reads move (the s3 tests and the staging benchmarks), where only the
 * bytes matter.
 */
public final class PayloadDataset {
  public static final Schema SCHEMA =
      new Schema(
          List.of(
              new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
              new Field("payload", FieldType.nullable(ArrowType.Binary.INSTANCE), null)));

  public static final int ROW_BYTES = 4096;
  private static final int BATCH_ROWS = 32;

  private PayloadDataset() {}

  /**
   * Writes (version 1) or appends (later versions) about {@code totalBytes} of rows in files of
   * about {@code fileBytes}, and returns the published manifest.
   */
  public static Manifest write(Storage storage, long totalBytes, long fileBytes, long seed)
      throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    // Small pages and no zstd (the payload is random): files end near the target size, quickly.
    DatasetOptions options =
        DatasetOptions.defaults()
            .withTargetFileBytes(fileBytes)
            .withFileOptions(
                WriterOptions.defaults()
                    .withPageBytes((int) Math.min(1 << 20, Math.max(4096, fileBytes / 8)))
                    .withZstdLevel(0));
    boolean exists = !Dataset.versions(storage).isEmpty();
    long firstId =
        exists ? Dataset.readManifest(storage, Dataset.latestVersion(storage)).totalRows() : 0;
    try (BufferAllocator a = new RootAllocator();
        DatasetWriter w =
            exists
                ? DatasetWriter.append(storage, SCHEMA, null, options)
                : DatasetWriter.create(storage, SCHEMA, null, options)) {
      long rows = Math.max(1, totalBytes / ROW_BYTES);
      long id = firstId;
      for (long done = 0; done < rows; done += BATCH_ROWS) {
        int n = (int) Math.min(BATCH_ROWS, rows - done);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
          BigIntVector ids = (BigIntVector) root.getVector("id");
          VarBinaryVector payload = (VarBinaryVector) root.getVector("payload");
          ids.allocateNew(n);
          payload.allocateNew((long) n * ROW_BYTES, n);
          byte[] bytes = new byte[ROW_BYTES];
          for (int i = 0; i < n; i++) {
            ids.set(i, id++);
            for (int j = 0; j < bytes.length; j += 8) {
              long v = r.nextLong();
              for (int k = 0; k < 8; k++) {
                bytes[j + k] = (byte) (v >>> (8 * k));
              }
            }
            payload.setSafe(i, bytes);
          }
          root.setRowCount(n);
          w.write(root);
        }
      }
      return w.publish();
    }
  }
}
