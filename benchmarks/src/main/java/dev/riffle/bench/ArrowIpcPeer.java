package dev.riffle.bench;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;

/**
 * An Arrow IPC file (uncompressed) of record batches of about {@link #BATCH_BYTES} bytes. Arrow
 * Java reads a record batch whole ({@code loadRecordBatch}), so a take reads every batch that holds
 * a requested row; that is the random access Arrow Java's IPC reader offers.
 */
final class ArrowIpcPeer implements Peer {
  static final long BATCH_BYTES = 256 * 1024;
  private final String type;
  private final Path file;
  private final BufferAllocator allocator;

  ArrowIpcPeer(String type, Path file, BufferAllocator allocator) {
    this.type = type;
    this.file = file;
    this.allocator = allocator;
  }

  static int batchRows(String type) {
    return (int) Math.max(1, Math.min(1 << 20, BATCH_BYTES / Types.rowBytes(type)));
  }

  @Override
  public String format() {
    return "arrow-ipc";
  }

  @Override
  public Path file() {
    return file;
  }

  /** Writes batches of exactly {@link #batchRows} rows (the last may be shorter). */
  static final class Writer implements AutoCloseable {
    private final FileChannel channel;
    private final ArrowFileWriter writer;

    Writer(Path file, VectorSchemaRoot root, String type) throws IOException {
      channel =
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING);
      writer =
          new ArrowFileWriter(
              root, null, channel, Map.of("batch_rows", Integer.toString(batchRows(type))));
      writer.start();
    }

    /** Writes the root's current contents as one batch. */
    void writeBatch() throws IOException {
      writer.writeBatch();
    }

    @Override
    public void close() throws IOException {
      writer.end();
      writer.close();
      channel.close();
    }
  }

  @Override
  public Taker taker() throws IOException {
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
    ArrowFileReader reader = new ArrowFileReader(ch, allocator);
    List<ArrowBlock> blocks = reader.getRecordBlocks();
    int batchRows = Integer.parseInt(reader.getMetaData().get("batch_rows"));
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    return new Taker() {
      @Override
      public long[] take(long[] rows, boolean digests) throws IOException {
        Integer[] order = new Integer[rows.length];
        for (int i = 0; i < rows.length; i++) {
          order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(rows[a], rows[b]));
        long[] out = digests ? new long[rows.length] : null;
        int loaded = -1;
        for (int o : order) {
          int b = (int) (rows[o] / batchRows);
          if (b != loaded) {
            reader.loadRecordBatch(blocks.get(b));
            loaded = b;
          }
          int i = (int) (rows[o] - (long) b * batchRows);
          if (digests) {
            out[o] = Fingerprint.of(type, root, i);
          }
        }
        return out;
      }

      @Override
      public void close() throws IOException {
        reader.close();
        ch.close();
      }
    };
  }

  /** Arrow Java loads a record batch whole, so a one-column scan reads every column too. */
  @Override
  public long scan(String column) throws IOException {
    long n = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      while (reader.loadNextBatch()) {
        n += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return n;
  }
}
