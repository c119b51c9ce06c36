package dev.riffle.convert;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Converts an Arrow IPC file or stream into a new dataset, batch by batch. Both formats are read
 * sequentially: a file is its magic, then a stream, then a footer that is not needed, so any Hadoop
 * stream will do. Dictionary-encoded top-level fields stay categorical.
 */
public final class ArrowIpcConverter {
  /** The tool name recorded in the provenance. */
  public static final String TOOL = "riffle convert arrow";

  private static final byte[] MAGIC = {'A', 'R', 'R', 'O', 'W', '1'};

  private ArrowIpcConverter() {}

  /**
   * @throws InputException naming the file, if it is no Arrow IPC data or a type is unsupported
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
    try (InputStream in = ipcStream(input);
        ArrowStreamReader reader = new ArrowStreamReader(in, allocator)) {
      Schema schema;
      VectorSchemaRoot root;
      try {
        root = reader.getVectorSchemaRoot();
        schema = root.getSchema();
      } catch (IOException | RuntimeException e) {
        throw new InputException(
            input.name(),
            "not an Arrow IPC file or stream (" + ParquetBatchReader.oneLine(e) + ")",
            e);
      }
      DatasetWriter writer;
      try {
        writer = DatasetWriter.create(out, schema, reader, dataset);
      } catch (dev.riffle.format.schema.UnsupportedTypeException e) {
        throw new InputException(input.name(), ParquetBatchReader.oneLine(e), e);
      }
      try (writer) {
        long rows = 0;
        long bytesSeen = 0;
        while (true) {
          boolean more;
          try {
            more = reader.loadNextBatch();
          } catch (IOException | RuntimeException e) {
            throw new InputException(
                input.name(),
                "cannot read record batch after row "
                    + rows
                    + " ("
                    + ParquetBatchReader.oneLine(e)
                    + ")",
                e);
          }
          if (!more) {
            break;
          }
          writer.write(root);
          rows += root.getRowCount();
          options.progress().accept(reader.bytesRead() - bytesSeen);
          bytesSeen = reader.bytesRead();
        }
        Manifest m = writer.publish();
        return new ConvertResult(
            rows, input.length(), ConvertResult.dataBytes(m), System.nanoTime() - start, m);
      }
    }
  }

  /** The input positioned at its first stream message (past a file's magic). */
  private static InputStream ipcStream(SourceFile input) throws IOException {
    PushbackInputStream in =
        new PushbackInputStream(new BufferedInputStream(input.open(), 1 << 20), 8);
    try {
      byte[] head = in.readNBytes(8);
      boolean file = head.length == 8;
      for (int i = 0; file && i < MAGIC.length; i++) {
        file = head[i] == MAGIC[i];
      }
      if (!file) {
        in.unread(head);
      }
      return in;
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }
}
