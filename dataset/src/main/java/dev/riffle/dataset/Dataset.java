package dev.riffle.dataset;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import dev.riffle.format.schema.RiffleSchema;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * One version of a dataset, opened for reading: its files behind one space of global row ids (the
 * rows of file 0, then of file 1, ...), with takes in any order across files, views of splits and
 * subsets, and deleted rows left out everywhere. Files are opened on first use. Thread-safe.
 */
public final class Dataset implements AutoCloseable {
  private final Storage storage;
  private final BufferAllocator allocator;
  private final Manifest manifest;
  private final String manifestName;
  private final RiffleSchema schema;
  private final long[] firstRows;
  private final FileReader[] readers;
  private final Roaring64Bitmap deletions;
  private final ReadStats stats = new ReadStats();
  private DictionaryUnion dictionaries;
  // Set once a file turns out to live on an object store: each take then costs a round trip, so
  // the per-file takes of one dataset take run side by side instead of one after another.
  private volatile boolean remote;
  private ExecutorService takePool;

  /** Threads for the per-file parts of one take on remote files: enough to overlap round trips. */
  static final int REMOTE_TAKE_THREADS = 16;

  private Dataset(Storage storage, BufferAllocator allocator, Manifest manifest, String name)
      throws CorruptFileException {
    this.storage = storage;
    this.allocator = allocator;
    this.manifest = manifest;
    this.manifestName = name;
    this.schema = ManifestCodec.schemaOf(manifest, name);
    this.firstRows = manifest.files().stream().mapToLong(Manifest.DataFile::firstRow).toArray();
    this.readers = new FileReader[manifest.files().size()];
    this.deletions =
        manifest.deletions() == null
            ? new Roaring64Bitmap()
            : ManifestCodec.rowSet(manifest.deletions(), name, "deletions");
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
    return readers.length;
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
    if (!r.isEmpty() && (r.first() < 0 || r.last() >= totalRows())) {
      throw new IllegalArgumentException("subset names rows outside [0, " + totalRows() + ")");
    }
    return new DatasetView(this, r, "subset");
  }

  /** The reader of file {@code i}, opened and checked against the manifest on first use. */
  public FileReader file(int i) throws IOException {
    synchronized (readers) {
      if (readers[i] == null) {
        Manifest.DataFile f = manifest.files().get(i);
        RandomAccessSource source = storage.open(f.path());
        FileReader r = null;
        try {
          if (source.length() != f.byteLength()) {
            throw new CorruptFileException(
                source.name(),
                0,
                "is "
                    + source.length()
                    + " bytes but the manifest of version "
                    + version()
                    + " says "
                    + f.byteLength());
          }
          r = FileReader.open(source, true, allocator, stats);
          if (r.rowCount() != f.rowCount()) {
            throw new CorruptFileException(
                source.name(),
                r.byteLength() - 64,
                "has " + r.rowCount() + " rows but the manifest says " + f.rowCount());
          }
          if (!r.arrowSchema().getFields().equals(schema.arrow().getFields())) {
            throw new CorruptFileException(source.name(), 0, "schema differs from the manifest's");
          }
        } catch (IOException | RuntimeException e) {
          if (r != null) {
            r.close();
          } else {
            source.close();
          }
          throw e;
        }
        readers[i] = r;
        if (source.isRemote()) {
          remote = true;
        }
      }
      return readers[i];
    }
  }

  /**
   * The data file (index into {@link Manifest#files()}) holding global row {@code row}, which must
   * be in [0, {@link #totalRows()}).
   */
  public int fileOf(long row) {
    int i = Arrays.binarySearch(firstRows, row);
    if (i >= 0) {
      // Empty files share a first row with the next one: take the last file starting there.
      while (i + 1 < firstRows.length && firstRows[i + 1] == row) {
        i++;
      }
      return i;
    }
    return -i - 2;
  }

  /**
   * The dictionaries of categorical fields for the whole dataset (codes in every returned batch
   * refer to these). Owned by the dataset.
   */
  public DictionaryProvider dictionaries() throws IOException {
    return union().provider();
  }

  private DictionaryUnion union() throws IOException {
    synchronized (readers) {
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
    int n = rows.length;
    int[] fileOf = new int[n];
    int[] counts = new int[readers.length];
    for (int k = 0; k < n; k++) {
      fileOf[k] = fileOf(rows[k]);
      counts[fileOf[k]]++;
    }
    boolean categorical = hasDictionary(names);
    // Where each output row comes from: a part (one take per file) and a row of it.
    int[] partOf = new int[n];
    int[] rowOf = new int[n];
    List<Integer> partFiles = new ArrayList<>();
    List<long[]> partRows = new ArrayList<>();
    for (int i = 0; i < readers.length; i++) {
      if (counts[i] == 0) {
        continue;
      }
      long[] local = new long[counts[i]];
      int c = 0;
      for (int k = 0; k < n; k++) {
        if (fileOf[k] == i) {
          partOf[k] = partFiles.size();
          rowOf[k] = c;
          local[c++] = rows[k] - firstRows[i];
        }
      }
      partFiles.add(i);
      partRows.add(local);
    }
    List<VectorSchemaRoot> parts = new ArrayList<>();
    VectorSchemaRoot out = null;
    try {
      takeParts(partFiles, partRows, names, parts);
      if (categorical) {
        for (int p = 0; p < parts.size(); p++) {
          remapCodes(parts.get(p), partFiles.get(p));
        }
      }
      if (parts.size() == 1) {
        // Every row from one file: its batch is already in the requested order.
        out = parts.remove(0);
        return out;
      }
      out = emptyBatch(names, n);
      for (FieldVector target : out.getFieldVectors()) {
        FieldVector[] sources = new FieldVector[parts.size()];
        for (int p = 0; p < sources.length; p++) {
          sources[p] = parts.get(p).getVector(target.getName());
        }
        // In output order: variable-width and list vectors must be filled front to back.
        for (int k = 0; k < n; k++) {
          target.copyFromSafe(rowOf[k], k, sources[partOf[k]]);
        }
      }
      out.setRowCount(n);
      return out;
    } catch (IOException | RuntimeException e) {
      if (out != null) {
        out.close();
      }
      throw e;
    } finally {
      parts.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * Takes each file's rows into {@code parts}, in part order; on failure, {@code parts} holds what
   * to close.
   */
  private void takeParts(
      List<Integer> files, List<long[]> rows, List<String> names, List<VectorSchemaRoot> parts)
      throws IOException {
    int m = files.size();
    if (m == 0) {
      return;
    }
    FileReader first = file(files.get(0));
    if (m == 1 || !remote) {
      parts.add(first.take(rows.get(0), names));
      for (int p = 1; p < m; p++) {
        parts.add(file(files.get(p)).take(rows.get(p), names));
      }
      return;
    }
    List<Future<VectorSchemaRoot>> futures = new ArrayList<>(m);
    ExecutorService pool = takePool();
    for (int p = 0; p < m; p++) {
      int file = files.get(p);
      long[] local = rows.get(p);
      futures.add(pool.submit(() -> file(file).take(local, names)));
    }
    // Wait for every part, also after a failure, so that no take still runs (and allocates)
    // once this one has returned; parts that did succeed go to the caller to close.
    Throwable failure = null;
    for (Future<VectorSchemaRoot> f : futures) {
      boolean interrupted = false;
      while (true) {
        try {
          VectorSchemaRoot part = f.get();
          parts.add(part);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          failure = failure == null ? e.getCause() : failure;
          break;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof RuntimeException re) {
      throw re;
    }
    if (failure instanceof Error err) {
      throw err;
    }
    if (failure != null) {
      throw new IOException(failure);
    }
  }

  private ExecutorService takePool() {
    synchronized (readers) {
      if (takePool == null) {
        ThreadPoolExecutor pool =
            new ThreadPoolExecutor(
                REMOTE_TAKE_THREADS,
                REMOTE_TAKE_THREADS,
                30,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                r -> {
                  Thread t = new Thread(r, "riffle-dataset-take");
                  t.setDaemon(true);
                  return t;
                });
        pool.allowCoreThreadTimeOut(true);
        takePool = pool;
      }
      return takePool;
    }
  }

  private void remapCodes(VectorSchemaRoot part, int file) throws IOException {
    for (FieldVector v : part.getFieldVectors()) {
      if (v.getField().getDictionary() == null) {
        continue;
      }
      int[] map = union().map(v.getField().getDictionary().getId(), file);
      if (map == null) {
        continue;
      }
      BaseIntVector codes = (BaseIntVector) v;
      for (int j = 0; j < v.getValueCount(); j++) {
        if (!v.isNull(j)) {
          codes.setWithPossibleTruncate(j, map[(int) codes.getValueAsLong(j)]);
        }
      }
    }
  }

  private boolean hasDictionary(List<String> names) {
    for (String name : names) {
      if (schema.isDictionary(schema.fieldIndex(name))) {
        return true;
      }
    }
    return false;
  }

  private VectorSchemaRoot emptyBatch(List<String> names, int capacity) {
    List<FieldVector> vectors = new ArrayList<>();
    for (String name : names) {
      FieldVector v = schema.fields().get(schema.fieldIndex(name)).createVector(allocator);
      v.setInitialCapacity(Math.max(1, capacity));
      v.allocateNew();
      vectors.add(v);
    }
    return new VectorSchemaRoot(vectors);
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
    IOException first = null;
    synchronized (readers) {
      if (takePool != null) {
        // Takes return only after all their parts finished, so nothing is queued here.
        takePool.shutdown();
        takePool = null;
      }
      if (dictionaries != null) {
        dictionaries.close();
        dictionaries = null;
      }
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
