package dev.riffle.dataset.write;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.SharedDictionaries;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.NoSuchFileException;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes a new version of a dataset: the first one ({@link #create}) or one that adds rows to the
 * latest ({@link #append}). Rows go into data files under fresh names, rolled at a target size,
 * each hashed (SHA-256) while it is written; {@link #publish()} then creates the version's manifest
 * if no other writer created it first. Until then nothing is visible, and a failure or {@link
 * #close()} without publishing deletes the files this writer wrote.
 *
 * <p>From before its first data file until it has published (or deleted its files) the writer holds
 * a {@link WriterLease} that names its files, which {@code riffle gc} honours. Each file is durable
 * when closed ({@link Storage#create}); before publishing, the writer checks that its lease was
 * held throughout and that each of its files is there with its length, and publishes nothing
 * otherwise.
 */
public final class DatasetWriter implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Storage storage;
  private final Schema schema;
  private final DictionaryProvider dictionaries;
  private final DatasetOptions options;
  private final Manifest base;
  private final List<Manifest.DataFile> files = new ArrayList<>();
  private final List<String> written = new ArrayList<>();
  private RiffleSchema storedSchema;
  private SharedDictionaries dictionaryState;
  private FileWriter current;
  private String currentPath;
  private DigestOutputStream currentDigest;
  private CountingStream currentCount;
  private FooterCapture currentFooter;
  private OutputStream currentStream;
  private long nextRow;
  private boolean published;
  private boolean filesOnly;
  private String namePrefix = "";
  private boolean handedOver;
  private Manifest.Provenance provenance;
  private WriterLease lease;

  /**
   * Test hook: a path; {@link #publish()} creates that file, then waits forever, between closing
   * its last data file and publishing, so that a test can kill the process at that point.
   */
  static final String PAUSE_BEFORE_PUBLISH = "riffle.test.pauseBeforePublish";

  private DatasetWriter(
      Storage storage,
      Schema schema,
      DictionaryProvider dictionaries,
      DatasetOptions options,
      Manifest base) {
    this.storage = storage;
    this.schema = schema;
    this.dictionaries = dictionaries;
    this.options = options;
    this.base = base;
    if (base != null) {
      files.addAll(base.files());
      nextRow = base.totalRows();
    }
  }

  /**
   * Starts version 1 of a new dataset.
   *
   * @throws java.nio.file.FileAlreadyExistsException if a dataset already exists there
   */
  public static DatasetWriter create(
      Storage storage, Schema schema, DictionaryProvider dictionaries, DatasetOptions options)
      throws IOException {
    List<Long> versions = Dataset.versions(storage);
    if (!versions.isEmpty()) {
      throw new java.nio.file.FileAlreadyExistsException(
          storage.uri(),
          null,
          "a dataset already"
              + " exists there (latest version "
              + versions.get(versions.size() - 1)
              + "); append"
              + " to it or choose another location");
    }
    DatasetWriter w = new DatasetWriter(storage, schema, dictionaries, options, null);
    w.checkSchema();
    return w;
  }

  /**
   * Starts a version that adds rows to the latest one, keeping its files, splits and deletions.
   *
   * @throws IllegalArgumentException if the schema differs, naming the fields that differ
   * @throws NoSuchFileException if there is no dataset there
   */
  public static DatasetWriter append(
      Storage storage, Schema schema, DictionaryProvider dictionaries, DatasetOptions options)
      throws IOException {
    Manifest latest = Dataset.readManifest(storage, Dataset.latestVersion(storage));
    RiffleSchema existing = ManifestCodec.schemaOf(latest, storage.uri());
    List<String> diff = SchemaDifferences.of(existing, schema, dictionaries);
    if (!diff.isEmpty()) {
      throw new IllegalArgumentException(
          "cannot append to "
              + storage.uri()
              + " version "
              + latest.version()
              + ": the schema differs in "
              + String.join("; ", diff));
    }
    DatasetWriter w = new DatasetWriter(storage, schema, dictionaries, options, latest);
    w.checkSchema();
    return w;
  }

  /**
   * Starts a writer of data files only, for jobs in which several writers (one per Spark task, say)
   * write files that one coordinator then publishes as a single version with {@link
   * DatasetCommit#publish}. Nothing at the location is read or checked; {@link #finishFiles()}
   * hands the files over instead of publishing them.
   *
   * @param namePrefix starts the name of every file written (before the random part), so that a
   *     coordinator can find the files of a job whose tasks it did not hear from: letters, digits,
   *     '-', '_' and '.', starting with a letter or digit, or empty
   */
  public static DatasetWriter forFiles(
      Storage storage,
      Schema schema,
      DictionaryProvider dictionaries,
      DatasetOptions options,
      String namePrefix)
      throws IOException {
    if (!namePrefix.isEmpty() && !namePrefix.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
      throw new IllegalArgumentException("not a data file name prefix: '" + namePrefix + "'");
    }
    DatasetWriter w = new DatasetWriter(storage, schema, dictionaries, options, null);
    w.filesOnly = true;
    w.namePrefix = namePrefix;
    w.checkSchema();
    return w;
  }

  /**
   * Finishes the last file of a {@link #forFiles} writer and hands over the files it wrote, in
   * order, with {@code firstRow} counted from 0 within this writer. They are not published and no
   * longer deleted by {@link #close()}: the caller publishes them ({@link DatasetCommit#publish})
   * or deletes them ({@link DatasetCommit#discard}).
   */
  public List<Manifest.DataFile> finishFiles() throws IOException {
    if (!filesOnly) {
      throw new IllegalStateException("only a forFiles writer hands over its files");
    }
    if (handedOver) {
      throw new IllegalStateException("files already handed over");
    }
    try {
      if (current != null) {
        finishFile();
      }
      if (lease != null) {
        lease.check();
      }
      Publisher.checkFiles(storage, 0, files);
    } catch (IOException | RuntimeException e) {
      abort();
      throw e;
    }
    handedOver = true;
    // From here the caller protects the files (DatasetCommit publishes them, e.g. a job driver
    // holding a lease with their name prefix); gc's grace period covers the hand-over.
    releaseLease();
    return List.copyOf(files);
  }

  /** Fails before writing anything if the schema cannot be stored. */
  private void checkSchema() throws IOException {
    try (FileWriter probe =
        FileWriter.create(OutputStream.nullOutputStream(), schema, dictionaries, options.file())) {
      storedSchema = probe.schema();
      if (dictionaries != null) {
        // The first file's dictionaries start with the ones given here, in their order, unused
        // values included: categories keep their list and order (anndata's, Arrow's ordered ones).
        SharedDictionaries declared = probe.dictionaryState();
        declared.declare(schema, dictionaries);
        dictionaryState = declared;
      }
    }
  }

  /**
   * Appends a batch; starts a new data file when the current one reached the target size (or, with
   * a row target, exactly at it, splitting the batch).
   */
  public void write(VectorSchemaRoot batch) throws IOException {
    if (published || handedOver) {
      throw new IllegalStateException("already published");
    }
    try {
      int at = 0;
      int n = batch.getRowCount();
      do {
        if (current == null) {
          startFile();
        }
        int take = n - at;
        if (options.targetFileRows() > 0) {
          take = (int) Math.min(take, options.targetFileRows() - current.rowCount());
        }
        if (at == 0 && take == n) {
          current.write(batch);
        } else {
          try (VectorSchemaRoot part = batch.slice(at, take)) {
            current.write(part);
          }
        }
        at += take;
        boolean rowsDone =
            options.targetFileRows() > 0 && current.rowCount() >= options.targetFileRows();
        if (rowsDone || current.bytesWritten() >= options.targetFileBytes()) {
          finishFile();
        }
      } while (at < n);
    } catch (IOException | RuntimeException e) {
      abort();
      throw e;
    }
  }

  private void startFile() throws IOException {
    byte[] id = new byte[12];
    RANDOM.nextBytes(id);
    currentPath =
        DatasetLayout.DATA_DIR
            + "/"
            + namePrefix
            + HexFormat.of().formatHex(id)
            + DatasetLayout.DATA_SUFFIX;
    if (lease == null) {
      lease = WriterLease.acquire(storage, purpose());
    }
    // The lease names the file before it exists, so gc never sees it unclaimed.
    lease.addFile(currentPath);
    written.add(currentPath);
    currentStream = storage.create(currentPath);
    currentFooter = new FooterCapture(currentStream);
    currentCount = new CountingStream(currentFooter);
    currentDigest = new DigestOutputStream(currentCount, sha256());
    current =
        FileWriter.create(
            new java.io.BufferedOutputStream(currentDigest, 1 << 20) {
              @Override
              public void close() throws IOException {
                flush();
              }
            },
            FooterCapture.named(schema, currentPath),
            dictionaries,
            options.file(),
            dictionaryState);
  }

  private void finishFile() throws IOException {
    current.finish();
    dictionaryState = current.dictionaryState();
    long rows = current.rowCount();
    current.close();
    current = null;
    currentDigest.flush();
    currentStream.close();
    String sha = HexFormat.of().formatHex(currentDigest.getMessageDigest().digest());
    String footerCrc = currentFooter.footerCrcHex(storage.uri(currentPath));
    files.add(
        new Manifest.DataFile(currentPath, currentCount.count, sha, rows, nextRow, footerCrc));
    nextRow += rows;
  }

  /** What writes, for the lease: the provenance's tool, or this class. */
  private String purpose() {
    Manifest.Provenance p = provenance != null ? provenance : options.provenance();
    return p != null && p.tool() != null ? p.tool() : "DatasetWriter";
  }

  /**
   * Checks, after the last file is closed and before anything is published, that this writer's
   * lease was held throughout and that every file it wrote is there with its length: a version must
   * never name a file that gc (forced, or after this writer was suspended past its lease) deleted.
   */
  private void checkBeforePublish(long version) throws IOException {
    pauseForTests();
    if (lease != null) {
      lease.check();
    }
    int first = base == null ? 0 : base.files().size();
    Publisher.checkFiles(storage, version, files.subList(first, files.size()));
  }

  private static void pauseForTests() throws IOException {
    String marker = System.getProperty(PAUSE_BEFORE_PUBLISH);
    if (marker == null) {
      return;
    }
    java.nio.file.Files.write(java.nio.file.Path.of(marker), new byte[0]);
    try {
      Thread.sleep(Long.MAX_VALUE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while paused before publishing");
    }
  }

  private void releaseLease() {
    if (lease != null) {
      lease.close();
      lease = null;
    }
  }

  /**
   * Sets the provenance to publish, replacing the options' (e.g. once the inputs' SHA-256 are
   * known, which converters compute while they read).
   */
  public void setProvenance(Manifest.Provenance provenance) {
    this.provenance = provenance;
  }

  /**
   * Finishes the last file and publishes the version.
   *
   * @return the published manifest
   * @throws ConcurrentPublishException if another writer published that version first
   */
  public Manifest publish() throws IOException {
    if (published) {
      throw new IllegalStateException("already published");
    }
    if (filesOnly) {
      throw new IllegalStateException("a forFiles writer hands its files over with finishFiles");
    }
    try {
      if (current != null) {
        finishFile();
      }
      long version = base == null ? 1 : base.version() + 1;
      checkBeforePublish(version);
      Map<String, String> metadata = new LinkedHashMap<>();
      if (base != null) {
        metadata.putAll(base.metadata());
      }
      metadata.putAll(options.metadata());
      Manifest m =
          new Manifest(
              Manifest.MANIFEST_VERSION,
              base == null ? UUID.randomUUID().toString() : base.datasetId(),
              version,
              base == null ? null : base.version(),
              Publisher.now(),
              base == null ? ManifestCodec.encodeSchema(storedSchema) : base.schema(),
              files,
              provenance != null
                  ? provenance
                  : options.provenance() != null
                      ? options.provenance()
                      : base == null ? null : base.provenance(),
              options.license() != null ? options.license() : base == null ? null : base.license(),
              options.citation() != null
                  ? options.citation()
                  : base == null ? null : base.citation(),
              metadata,
              base == null ? Map.of() : base.splits(),
              base == null ? null : base.deletions());
      Manifest done;
      try {
        done = Publisher.publish(storage, m);
      } catch (ConcurrentPublishException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        // Not a lost race, so the manifest may exist all the same (its create reached the store
        // and the answer was lost): its files must stay. gc removes them if it does not.
        publishOutcomeUnknown = true;
        throw PublishOutcomeUnknownException.of(m.version(), storage.uri(), e);
      }
      published = true;
      releaseLease();
      return done;
    } catch (IOException | RuntimeException e) {
      abort();
      throw e;
    }
  }

  /**
   * Set when publishing failed other than by losing the race: whether the manifest was created is
   * not known, so {@link #abort} leaves the data files to gc, which keeps them if it was.
   */
  private boolean publishOutcomeUnknown;

  /** Removes every data file this writer wrote (best effort: gc finds what is left). */
  private void abort() {
    try {
      if (current != null) {
        current.close();
        currentStream.close();
      }
    } catch (IOException | RuntimeException e) {
      // The files are deleted below; there is nothing more to save.
    }
    current = null;
    for (String path : publishOutcomeUnknown ? List.<String>of() : written) {
      try {
        storage.delete(path);
      } catch (IOException e) {
        // Left as an orphan for `riffle gc`, with the rest: a delete that gave up has waited out
        // the retry policy once, and the server that failed it would fail the others alike.
        break;
      }
    }
    written.clear();
    // After the files: a lease that outlives a failed delete still names them for gc.
    releaseLease();
  }

  /**
   * Discards an unpublished version; a no-op after {@link #publish()} or {@link #finishFiles()}.
   */
  @Override
  public void close() {
    if (!published && !handedOver) {
      abort();
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** Counts the bytes that reach the storage stream. */
  private static final class CountingStream extends FilterOutputStream {
    long count;

    CountingStream(OutputStream out) {
      super(Objects.requireNonNull(out));
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
