package dev.riffle.cli;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.RecyclingAllocator;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.lazy.LazyStorage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/**
 * A dataset version opened for reading, with its storage and the allocator that owns its memory,
 * closed together in the right order (dataset, then allocator, then storage), like {@link
 * OpenedFile} for a single file.
 */
final class OpenedDataset implements AutoCloseable {
  private final Storage storage;
  private final BufferAllocator allocator;
  private final Dataset dataset;

  private OpenedDataset(Storage storage, BufferAllocator allocator, Dataset dataset) {
    this.storage = storage;
    this.allocator = allocator;
    this.dataset = dataset;
  }

  /**
   * Opens the version a location names (the latest without {@code @version}).
   *
   * @param command the command, for the message when the location is a single file
   */
  static OpenedDataset open(Locations.Location loc, String command) throws IOException {
    return open(loc, command, false, 0);
  }

  /**
   * As {@link #open(Locations.Location, String)}; {@code direct} reads local files with O_DIRECT,
   * and up to {@code keepBytes} of freed large buffers are kept for the next takes (see {@link
   * RecyclingAllocator}: what a loader that takes and frees big fetches wants).
   */
  static OpenedDataset open(Locations.Location loc, String command, boolean direct, long keepBytes)
      throws IOException {
    StagedRun.checkComplete(loc);
    Storage storage = lazy(Locations.openDataset(loc, command, direct));
    BufferAllocator allocator = null;
    try {
      long version = Locations.version(storage, loc);
      allocator = keepBytes > 0 ? RecyclingAllocator.create(keepBytes) : new RootAllocator();
      return new OpenedDataset(storage, allocator, Dataset.open(storage, version, allocator));
    } catch (IOException | RuntimeException e) {
      if (allocator != null) {
        allocator.close();
      }
      storage.close();
      throw e;
    }
  }

  /**
   * Where lazy reads keep their chunks: {@code RIFFLE_LAZY_CACHE} (or the system property {@code
   * riffle.lazyCache}). When set, reads of an object-store dataset (s3a:, hdfs:) go through a local
   * checksummed chunk cache instead of straight to the store, without staging the snapshot.
   */
  static String lazyCacheDir() {
    return System.getProperty("riffle.lazyCache", System.getenv("RIFFLE_LAZY_CACHE"));
  }

  private static Storage lazy(Storage storage) throws IOException {
    String dir = lazyCacheDir();
    if (dir == null || dir.isBlank() || !(storage instanceof HadoopStorage)) {
      return storage;
    }
    try {
      return new LazyStorage((HadoopStorage) storage, java.nio.file.Path.of(dir));
    } catch (IOException | RuntimeException e) {
      storage.close();
      throw e;
    }
  }

  /**
   * Checks requested columns against the schema, with the dataset's URI in the message.
   *
   * @throws IllegalArgumentException for an unknown or repeated column
   */
  void checkColumns(List<String> columns) {
    if (columns == null) {
      return;
    }
    RiffleSchema schema = dataset.schema();
    Set<String> seen = new HashSet<>();
    for (String c : columns) {
      if (schema.fieldIndex(c) < 0) {
        List<String> all = new ArrayList<>();
        schema.fields().forEach(f -> all.add(f.getName()));
        throw new IllegalArgumentException(
            "no column '" + c + "' in " + storage.uri() + "; columns are " + all);
      }
      if (!seen.add(c)) {
        throw new IllegalArgumentException("column '" + c + "' requested twice");
      }
    }
  }

  /**
   * The dictionaries for printing {@code columns} (null for all), or null if none of them is
   * dictionary-encoded: building them opens every data file, which a take of a few rows of a large
   * dataset should not pay for nothing.
   */
  DictionaryProvider dictionariesFor(List<String> columns) throws IOException {
    RiffleSchema schema = dataset.schema();
    for (int f = 0; f < schema.fields().size(); f++) {
      boolean selected = columns == null || columns.contains(schema.fields().get(f).getName());
      if (selected && schema.isDictionary(f)) {
        return dataset.dictionaries();
      }
    }
    return null;
  }

  /**
   * The data files holding some of {@code rows} (global ids; ids out of range are ignored, the take
   * reports them).
   */
  SortedSet<Integer> filesOf(long[] rows) {
    SortedSet<Integer> touched = new TreeSet<>();
    for (long row : rows) {
      if (row >= 0 && row < dataset.totalRows()) {
        touched.add(dataset.fileOf(row));
      }
    }
    return touched;
  }

  Dataset dataset() {
    return dataset;
  }

  Storage storage() {
    return storage;
  }

  @Override
  public void close() throws IOException {
    try {
      try {
        dataset.close();
      } finally {
        allocator.close();
      }
    } finally {
      storage.close();
    }
  }
}
