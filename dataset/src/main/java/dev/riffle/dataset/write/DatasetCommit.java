package dev.riffle.dataset.write;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.write.FileWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Publishes data files written by several {@link DatasetWriter#forFiles} writers (the tasks of a
 * distributed job) as one new version, from one place (the job's driver). The files get their
 * global rows in the order given, so a caller that sorts them by task gets the same row ids on
 * every run.
 */
public final class DatasetCommit {
  private DatasetCommit() {}

  /** What the new version holds. */
  public enum Mode {
    /** Version 1 of a new dataset; fails if one exists. */
    CREATE,
    /** The latest version's rows, files, splits and deletions, then the new files. */
    APPEND,
    /**
     * Only the new files, under a possibly new schema, as the latest version + 1 (or version 1):
     * older versions and their files stay readable. Splits and deletions, which name rows of the
     * old files, are dropped; license, citation and metadata are kept unless the options replace
     * them.
     */
    OVERWRITE
  }

  /**
   * Publishes a version made of {@code files}.
   *
   * @param schema the schema every file was written with
   * @param dictionaries the dictionaries the files were written with (null if none)
   * @param options the options the files were written with (the file layout decides the stored
   *     schema) and the version's provenance, license, citation and metadata
   * @param files the files in global row order; their {@code firstRow}s are reassigned
   * @return the published manifest
   * @throws FileAlreadyExistsException for {@link Mode#CREATE} if a dataset exists there
   * @throws java.nio.file.NoSuchFileException for {@link Mode#APPEND} if none does
   * @throws IllegalArgumentException for {@link Mode#APPEND} if the schema differs, naming the
   *     fields
   * @throws ConcurrentPublishException if another writer published that version first
   */
  public static Manifest publish(
      Storage storage,
      Mode mode,
      Schema schema,
      DictionaryProvider dictionaries,
      DatasetOptions options,
      List<Manifest.DataFile> files)
      throws IOException {
    RiffleSchema stored;
    try (FileWriter probe =
        FileWriter.create(OutputStream.nullOutputStream(), schema, dictionaries, options.file())) {
      stored = probe.schema();
    }
    Manifest base = null;
    if (mode == Mode.CREATE) {
      List<Long> versions = Dataset.versions(storage);
      if (!versions.isEmpty()) {
        throw new FileAlreadyExistsException(
            storage.uri(),
            null,
            "a dataset already exists there (latest version "
                + versions.get(versions.size() - 1)
                + ")");
      }
    } else if (mode == Mode.APPEND || !Dataset.versions(storage).isEmpty()) {
      base = Dataset.readManifest(storage, Dataset.latestVersion(storage));
    }
    boolean keepRows = mode == Mode.APPEND;
    if (keepRows) {
      List<String> diff =
          SchemaDifferences.of(ManifestCodec.schemaOf(base, storage.uri()), schema, dictionaries);
      if (!diff.isEmpty()) {
        throw new IllegalArgumentException(
            "cannot append to "
                + storage.uri()
                + " version "
                + base.version()
                + ": the schema differs in "
                + String.join("; ", diff));
      }
    }
    List<Manifest.DataFile> all = new ArrayList<>();
    long next = 0;
    if (keepRows) {
      all.addAll(base.files());
      next = base.totalRows();
    }
    for (Manifest.DataFile f : files) {
      all.add(f.withFirstRow(next));
      next += f.rowCount();
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    if (base != null) {
      metadata.putAll(base.metadata());
    }
    metadata.putAll(options.metadata());
    Manifest m =
        new Manifest(
            Manifest.MANIFEST_VERSION,
            base == null ? UUID.randomUUID().toString() : base.datasetId(),
            base == null ? 1 : base.version() + 1,
            base == null ? null : base.version(),
            Publisher.now(),
            keepRows ? base.schema() : ManifestCodec.encodeSchema(stored),
            all,
            options.provenance() != null || !keepRows ? options.provenance() : base.provenance(),
            options.license() != null || base == null ? options.license() : base.license(),
            options.citation() != null || base == null ? options.citation() : base.citation(),
            metadata,
            keepRows ? base.splits() : Map.of(),
            keepRows ? base.deletions() : null);
    Publisher.checkFiles(storage, m.version(), files);
    try {
      return Publisher.publish(storage, m);
    } catch (ConcurrentPublishException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw PublishOutcomeUnknownException.of(m.version(), storage.uri(), e);
    }
  }

  /**
   * Deletes files that will not be published (best effort: {@code riffle gc} finds the rest). Never
   * call it after {@link #publish} threw {@link PublishOutcomeUnknownException}: the version may
   * exist and name these files.
   */
  public static void discard(Storage storage, List<Manifest.DataFile> files) {
    for (Manifest.DataFile f : files) {
      try {
        storage.delete(f.path());
      } catch (IOException e) {
        // Left as an orphan for `riffle gc`.
      }
    }
  }
}
