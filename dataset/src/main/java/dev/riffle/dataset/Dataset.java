package dev.riffle.dataset;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.schema.RiffleSchema;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * One version of a dataset, opened for reading: its files behind one space of global row ids (the
 * rows of file 0, then of file 1, ...), with takes in any order across files, views of splits and
 * subsets, and deleted rows left out everywhere. Files are opened on first use. Thread-safe.
 *
 * <p>The parts have homes of their own: {@link FileCatalog} opens and checks the files, {@link
 * RowRouter} maps global row ids to files, {@link CrossFileTake} runs a take's per-file parts and
 * stitches them, and {@link DictionaryUnion} gives categorical codes one meaning across files.
 */
public final class Dataset implements AutoCloseable {
  private final Storage storage;
  private final BufferAllocator allocator;
  private final Manifest manifest;
  private final String manifestName;
  private final RiffleSchema schema;
  private final Roaring64Bitmap deletions;
  private final ReadStats stats = new ReadStats();
  private final FileCatalog files;
  private final RowRouter router;
  private final CrossFileTake takes;
  private final Object dictionaryLock = new Object();
  private DictionaryUnion dictionaries;

  private Dataset(Storage storage, BufferAllocator allocator, Manifest manifest, String name)
      throws CorruptFileException {
    this.storage = storage;
    this.allocator = allocator;
    this.manifest = manifest;
    this.manifestName = name;
    this.schema = ManifestCodec.schemaOf(manifest, name);
    this.deletions =
        manifest.deletions() == null
            ? new Roaring64Bitmap()
            : ManifestCodec.rowSet(manifest.deletions(), name, "deletions");
    this.files = new FileCatalog(storage, allocator, manifest, schema, stats);
    this.router = new RowRouter(manifest.files());
    this.takes = new CrossFileTake(files, schema, allocator);
  }

  /** The published versions, ascending. */
  public static List<Long> versions(Storage storage) throws IOException {
    List<Long> versions = new ArrayList<>();
    for (String name : storage.list(DatasetLayout.VERSIONS_DIR)) {
      long v = DatasetLayout.versionOf(name);
      if (v > 0) {
        versions.add(v);
      }
    }
    versions.sort(null);
    return versions;
  }

  /**
   * The latest version.
   *
   * @throws NoSuchFileException if nothing was ever published there
   */
  public static long latestVersion(Storage storage) throws IOException {
    List<Long> v = versions(storage);
    if (v.isEmpty()) {
      throw new NoSuchFileException(
          storage.uri(),
          null,
          "no Riffle dataset there (no "
              + DatasetLayout.VERSIONS_DIR
              + "/*"
              + DatasetLayout.MANIFEST_SUFFIX
              + ")");
    }
    return v.get(v.size() - 1);
  }

  /** Reads and checks the manifest of a version. */
  public static Manifest readManifest(Storage storage, long version) throws IOException {
    String path = Manifest.path(version);
    String name = storage.uri(path);
    if (!storage.exists(path)) {
      throw new NoSuchFileException(
          name,
          null,
          "version " + version + " does not exist; versions" + " are " + versions(storage));
    }
    long length = storage.length(path);
    if (length > DatasetLayout.MAX_MANIFEST_BYTES) {
      throw new CorruptFileException(name, 0, "manifest of " + length + " bytes is too large");
    }
    return ManifestCodec.read(storage.readAll(path), name, version);
  }

  /** Opens the latest version. */
  public static Dataset open(Storage storage, BufferAllocator allocator) throws IOException {
    return open(storage, latestVersion(storage), allocator);
  }

  /** Opens a given version. */
  public static Dataset open(Storage storage, long version, BufferAllocator allocator)
      throws IOException {
    Manifest m = readManifest(storage, version);
    return new Dataset(storage, allocator, m, storage.uri(Manifest.path(version)));
  }

  public Manifest manifest() {
    return manifest;
  }

  public long version() {
    return manifest.version();
  }

  public Storage storage() {
    return storage;
  }

  public RiffleSchema schema() {
    return schema;
  }

  /** The Arrow schema of what takes and scans return. */
  public org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    return schema.arrow();
  }

  public int fileCount() {
    return files.count();
  }

  /** Size of the global row id space (deleted rows included). */
  public long totalRows() {
    return manifest.totalRows();
  }

  /** Rows that are not deleted. */
  public long rowCount() {
    return totalRows() - deletions.getLongCardinality();
  }

  /** The deleted global row ids (a copy). */
  public Roaring64Bitmap deletions() {
    return deletions.clone();
  }

  /** Counters of every read of every file of this dataset. */
  public ReadStats stats() {
    return stats;
  }

  /** The rows that are not deleted, as a view. */
  public DatasetView all() {
    Roaring64Bitmap live = RowSets.range(totalRows());
    live.andNot(deletions);
    return new DatasetView(this, live, "all");
  }

  /** The names of the splits. */
  public Set<String> splitNames() {
    return new TreeSet<>(manifest.splits().keySet());
  }

  /**
   * A named split, without deleted rows.
   *
   * @throws IllegalArgumentException if there is no such split
   */
  public DatasetView split(String name) throws CorruptFileException {
    String encoded = manifest.splits().get(name);
    if (encoded == null) {
      throw new IllegalArgumentException(
          "no split '" + name + "' in version " + version() + "; splits are " + splitNames());
    }
    Roaring64Bitmap rows = ManifestCodec.rowSet(encoded, manifestName, "split " + name);
    rows.andNot(deletions);
    return new DatasetView(this, rows, name);
  }

  /** Any subset of global row ids, without deleted rows. */
  public DatasetView view(Roaring64Bitmap rows) {
    Roaring64Bitmap r = rows.clone();
    r.andNot(deletions);
    // Unsigned, as the bitmap orders ids: an id of 2^63 or more is its largest.
    if (!r.isEmpty() && Long.compareUnsigned(r.last(), totalRows()) >= 0) {
      throw new IllegalArgumentException("subset names rows outside [0, " + totalRows() + ")");
    }
    return new DatasetView(this, r, "subset");
  }

  /** The reader of file {@code i}, opened and checked against the manifest on first use. */
  public FileReader file(int i) throws IOException {
    return files.file(i);
  }

  /**
   * The data file (index into {@link Manifest#files()}) holding global row {@code row}, which must
   * be in [0, {@link #totalRows()}).
   */
  public int fileOf(long row) {
    return router.fileOf(row);
  }

  /**
   * The dictionaries of categorical fields for the whole dataset (codes in every returned batch
   * refer to these). Owned by the dataset.
   */
  public DictionaryProvider dictionaries() throws IOException {
    return union().provider();
  }

  private DictionaryUnion union() throws IOException {
    synchronized (dictionaryLock) {
      if (dictionaries == null) {
        dictionaries = DictionaryUnion.build(this, allocator);
      }
      return dictionaries;
    }
  }

  /**
   * Rows by global id, in the given order (duplicates allowed), as one batch the caller closes.
   *
   * @param fields top-level field names, or null for all
   * @throws IllegalArgumentException for an unknown field, or a row that is out of range or deleted
   */
  public VectorSchemaRoot take(long[] rows, List<String> fields) throws IOException {
    List<String> names = resolve(fields);
    long total = totalRows();
    for (long r : rows) {
      if (r < 0 || r >= total) {
        throw new IllegalArgumentException(
            "row " + r + " is out of range: version " + version() + " has rows [0, " + total + ")");
      }
      if (deletions.contains(r)) {
        throw new IllegalArgumentException("row " + r + " is deleted in version " + version());
      }
    }
    return takes.take(router.route(rows), names, remapFor(names));
  }

  /**
   * What rewrites a part read from one file into the dataset's dictionary codes, or null if none of
   * the fields is categorical.
   */
  CrossFileTake.Remap remapFor(List<String> names) {
    return hasDictionary(names) ? (part, file) -> union().remap(part, file) : null;
  }

  private boolean hasDictionary(List<String> names) {
    for (String name : names) {
      if (schema.isDictionary(schema.fieldIndex(name))) {
        return true;
      }
    }
    return false;
  }

  List<String> resolve(List<String> fields) {
    List<String> names = new ArrayList<>();
    if (fields == null || fields.isEmpty()) {
      for (Field f : schema.fields()) {
        names.add(f.getName());
      }
      return names;
    }
    Set<String> seen = new HashSet<>();
    for (String f : fields) {
      if (schema.fieldIndex(f) < 0) {
        List<String> all = new ArrayList<>();
        schema.fields().forEach(x -> all.add(x.getName()));
        throw new IllegalArgumentException(
            "no column '" + f + "' in " + storage.uri() + "; columns are " + all);
      }
      if (!seen.add(f)) {
        throw new IllegalArgumentException("column '" + f + "' requested twice");
      }
      names.add(f);
    }
    return names;
  }

  @Override
  public void close() throws IOException {
    takes.close();
    synchronized (dictionaryLock) {
      if (dictionaries != null) {
        dictionaries.close();
        dictionaries = null;
      }
    }
    files.close();
  }
}
