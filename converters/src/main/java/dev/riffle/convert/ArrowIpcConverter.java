package dev.riffle.convert;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Converts an Arrow IPC file or stream into a new dataset, batch by batch: a file through its
 * footer, a stream to its end-of-stream marker, every batch validated ({@link ArrowIpcInput}), so
 * that a truncated or damaged input fails naming itself and publishes nothing. Dictionary-encoded
 * top-level fields stay categorical.
 */
public final class ArrowIpcConverter {
  /** The tool name recorded in the provenance. */
  public static final String TOOL = "riffle convert arrow";

  private ArrowIpcConverter() {}

  /**
   * @param allocator unused: the input is read with an allocator of its own, bounded by its length
   *     (see {@link ArrowIpcInput})
   * @throws InputException naming the file, if it is no Arrow IPC data, is truncated or damaged, or
   *     a type is unsupported
   */
  public static ConvertResult convert(
      SourceFile input, Storage out, BufferAllocator allocator, ConvertOptions options)
      throws IOException {
    long start = System.nanoTime();
    String sha = input.sha256();
    var dataset =
        options
            .dataset()
            .withProvenance(
                new Manifest.Provenance(
                    TOOL,
                    ConvertOptions.version(),
                    List.of(new Manifest.Source(input.name(), input.length(), sha))));
    try (ArrowIpcInput in = ArrowIpcInput.open(input)) {
      VectorSchemaRoot root = in.root();
      Schema schema = root.getSchema();
      // Arrow reads the dictionaries with the first batch; the writer declares them when it is
      // created, so that categories keep the file's list and order (unused ones too), not the
      // order the rows first use them in.
      boolean more = in.next();
      DatasetWriter writer;
      try {
        writer = options.writer(input.name(), out, schema, in.dictionaries(), dataset);
      } catch (dev.riffle.format.schema.UnsupportedTypeException e) {
        throw new InputException(input.name(), ParquetBatchReader.oneLine(e), e);
      }
      try (writer) {
        long rows = 0;
        long bytesSeen = 0;
        int batch = 0;
        for (; more; more = in.next()) {
          batch++;
          try {
            writer.write(root);
          } catch (IllegalArgumentException e) {
            // The writer checks what validation cannot (a dictionary index past its dictionary):
            // that is the input's fault too.
            throw new InputException(
                input.name(),
                "record batch "
                    + batch
                    + " (rows "
                    + rows
                    + " to "
                    + (rows + root.getRowCount() - 1)
                    + "): "
                    + ParquetBatchReader.oneLine(e),
                e);
          }
          rows += root.getRowCount();
          options.progress().accept(in.bytesRead() - bytesSeen);
          bytesSeen = in.bytesRead();
        }
        Manifest m = writer.publish();
        return new ConvertResult(
            rows, input.length(), ConvertResult.dataBytes(m), System.nanoTime() - start, m);
      }
    }
  }
}
