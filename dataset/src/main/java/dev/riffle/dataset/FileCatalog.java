package dev.riffle.dataset;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.schema.RiffleSchema;
import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The data files of one dataset version, each opened on first use and checked against the manifest
 * (length, footer CRC, row count, schema) before anyone reads it, so that a file replaced, swapped
 * with another or cut short behind the manifest's back is reported, not read. The checks read
 * metadata only, mostly what opening the file reads anyway. Thread-safe.
 */
final class FileCatalog implements AutoCloseable {
  private final Storage storage;
  private final BufferAllocator allocator;
  private final Manifest manifest;
  private final RiffleSchema schema;
  private final ReadStats stats;
  private final FileReader[] readers;
  // Set once a file turns out to live on an object store: each take then costs a round trip, so
  // the per-file takes of one dataset take run side by side instead of one after another.
  private volatile boolean remote;

  FileCatalog(
      Storage storage,
      BufferAllocator allocator,
      Manifest manifest,
      RiffleSchema schema,
      ReadStats stats) {
    this.storage = storage;
    this.allocator = allocator;
    this.manifest = manifest;
    this.schema = schema;
    this.stats = stats;
    this.readers = new FileReader[manifest.files().size()];
  }

  int count() {
    return readers.length;
  }

  /** True once a file opened so far lives on an object store. */
  boolean remote() {
    return remote;
  }

  /** The reader of file {@code i}, opened and checked against the manifest on first use. */
  FileReader file(int i) throws IOException {
    synchronized (readers) {
      if (readers[i] == null) {
        RandomAccessSource source = storage.open(manifest.files().get(i).path());
        readers[i] = open(source, manifest.files().get(i));
        if (source.isRemote()) {
          remote = true;
        }
      }
      return readers[i];
    }
  }

  /** Opens a file's reader and checks it against its manifest entry; closes the source if not. */
  private FileReader open(RandomAccessSource source, Manifest.DataFile f) throws IOException {
    FileReader r = null;
    try {
      if (source.length() != f.byteLength()) {
        throw new CorruptFileException(
            source.name(),
            0,
            "is "
                + source.length()
                + " bytes but the manifest of version "
                + manifest.version()
                + " says "
                + f.byteLength());
      }
      r = FileReader.open(source, true, allocator, stats);
      // First, so that a swapped file is reported as such rather than by a symptom.
      f.checkIdentity(r, manifest.version());
      if (r.rowCount() != f.rowCount()) {
        throw new CorruptFileException(
            source.name(),
            r.byteLength() - 64,
            "has " + r.rowCount() + " rows but the manifest says " + f.rowCount());
      }
      if (!r.arrowSchema().getFields().equals(schema.arrow().getFields())) {
        throw new CorruptFileException(source.name(), 0, "schema differs from the manifest's");
      }
      return r;
    } catch (IOException | RuntimeException e) {
      if (r != null) {
        r.close();
      } else {
        source.close();
      }
      throw e;
    }
  }

  /**
   * Closes every file opened so far (a later {@link #file} opens it again), reporting the first
   * failure after trying them all.
   */
  @Override
  public void close() throws IOException {
    IOException first = null;
    synchronized (readers) {
      for (int i = 0; i < readers.length; i++) {
        if (readers[i] != null) {
          try {
            readers[i].close();
          } catch (IOException e) {
            first = first == null ? e : first;
          }
          readers[i] = null;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
