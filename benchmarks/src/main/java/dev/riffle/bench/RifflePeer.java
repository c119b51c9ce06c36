package dev.riffle.bench;

import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.read.ScanCursor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Riffle through one shared {@link FileReader} (it is safe for concurrent takes). */
final class RifflePeer implements Peer {
  private final String type;
  private final Path file;
  private final FileReader reader;
  private final String format;
  private final BufferAllocator allocator;

  /**
   * @param inFlight reads in flight per take (1: the synchronous engine; 0: the reader's default)
   * @param direct O_DIRECT
   */
  RifflePeer(String type, Path file, BufferAllocator allocator, int inFlight, boolean direct)
      throws IOException {
    this.type = type;
    this.file = file;
    this.allocator = allocator;
    this.reader = FileReader.open(file, allocator, direct);
    if (inFlight > 0) {
      reader.setReadsInFlight(inFlight);
    }
    reader.loadColumns(null);
    this.format = "riffle" + (direct ? "-direct" : "") + (inFlight > 1 ? "-engine" + inFlight : "");
  }

  @Override
  public String format() {
    return format;
  }

  @Override
  public Path file() {
    return file;
  }

  @Override
  public ReadStats stats() {
    return reader.stats();
  }

  @Override
  public Taker taker() {
    return (rows, digests) -> {
      try (VectorSchemaRoot root = reader.take(rows, null)) {
        if (!digests) {
          return null;
        }
        long[] out = new long[rows.length];
        for (int i = 0; i < rows.length; i++) {
          out[i] = Fingerprint.of(type, root, i);
        }
        return out;
      }
    };
  }

  @Override
  public long scan(String column) throws IOException {
    ScanCursor c = reader.scan(column == null ? null : List.of(column), Types.batchRows(type));
    long n = 0;
    for (VectorSchemaRoot b = c.next(); b != null; b = c.next()) {
      n += b.getRowCount();
      b.close();
    }
    return n;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
