package dev.riffle.dataset;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Checks a published version against its manifest: every file present, of the right length and
 * SHA-256; with {@code deep}, every page of every file read and its checksum verified. Also lists
 * orphans: data files that no version references (left by failed or racing writers).
 */
public final class DatasetValidator {
  private DatasetValidator() {}

  /**
   * What validation found.
   *
   * @param version the version checked
   * @param problems everything wrong with it (empty if it is intact)
   * @param orphans data files no version references (not a problem of this version)
   * @param notes what was found wrong elsewhere in the dataset (another version's unreadable
   *     manifest, which also leaves the orphans unknown), not a problem of this version
   * @param filesChecked data files checked
   * @param bytesChecked bytes hashed
   */
  public record Report(
      long version,
      List<String> problems,
      List<String> orphans,
      List<String> notes,
      int filesChecked,
      long bytesChecked) {
    public boolean ok() {
      return problems.isEmpty();
    }
  }

  /**
   * Validates a version.
   *
   * @param progress told the bytes hashed so far (may be null)
   */
  public static Report validate(
      Storage storage, long version, boolean deep, BufferAllocator allocator, LongConsumer progress)
      throws IOException {
    List<String> problems = new ArrayList<>();
    Manifest m;
    try {
      m = Dataset.readManifest(storage, version);
    } catch (CorruptFileException | NoSuchFileException e) {
      problems.add(e.getMessage());
      List<String> notes = new ArrayList<>();
      return new Report(version, problems, orphans(storage, notes), notes, 0, 0);
    }
    long hashed = 0;
    int checked = 0;
    for (Manifest.DataFile f : m.files()) {
      String name = storage.uri(f.path());
      if (!storage.exists(f.path())) {
        problems.add(name + ": missing (listed in version " + version + ")");
        continue;
      }
      checked++;
      try (RandomAccessSource source = storage.open(f.path())) {
        long length = source.length();
        if (length != f.byteLength()) {
          problems.add(name + ": " + length + " bytes, the manifest says " + f.byteLength());
          continue;
        }
        String sha = sha256(source, length, hashed, progress);
        hashed += length;
        if (!sha.equals(f.sha256())) {
          problems.add(name + ": SHA-256 " + sha + " does not match the manifest's " + f.sha256());
          continue;
        }
      }
      if (deep) {
        deepCheck(storage, f, m, allocator, problems, name);
      }
    }
    // Another version's damaged manifest says nothing about this one: it is a note, so that a
    // healthy version still validates (the orphans are then unknown, and gc refuses to run).
    List<String> notes = new ArrayList<>();
    List<String> orphans = orphans(storage, notes);
    return new Report(version, problems, orphans, notes, checked, hashed);
  }

  private static void deepCheck(
      Storage storage,
      Manifest.DataFile f,
      Manifest m,
      BufferAllocator allocator,
      List<String> problems,
      String name) {
    try (RandomAccessSource source = storage.open(f.path());
        FileReader reader = FileReader.open(source, false, allocator)) {
      f.checkIdentity(reader, m.version());
      if (reader.rowCount() != f.rowCount()) {
        problems.add(name + ": " + reader.rowCount() + " rows, the manifest says " + f.rowCount());
        return;
      }
      if (!reader
          .arrowSchema()
          .getFields()
          .equals(ManifestCodec.schemaOf(m, name).arrow().getFields())) {
        problems.add(name + ": its schema differs from the manifest's");
        return;
      }
      reader.dictionaries();
      ScanCursor cursor = reader.scan(null, 8192);
      VectorSchemaRoot batch;
      while ((batch = cursor.next()) != null) {
        batch.close();
      }
    } catch (IOException | RuntimeException e) {
      problems.add(e instanceof CorruptFileException ? e.getMessage() : name + ": " + e);
    }
  }

  private static String sha256(
      RandomAccessSource source, long length, long before, LongConsumer progress)
      throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    ByteBuffer buf = ByteBuffer.allocate(8 << 20);
    for (long at = 0; at < length; ) {
      buf.clear();
      buf.limit((int) Math.min(buf.capacity(), length - at));
      source.readFully(at, buf);
      buf.flip();
      digest.update(buf);
      at += buf.limit();
      if (progress != null) {
        progress.accept(before + at);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /**
   * Data files that no version references: names under {@code data/} that match the data file
   * naming scheme (FORMAT.md §11.1; anything else there is left alone). If some manifest cannot be
   * read the answer would be unsafe to act on, so none are reported (and a problem says why).
   */
  public static List<String> orphans(Storage storage, List<String> problems) throws IOException {
    return orphans(storage, problems, () -> {});
  }

  /** A step that may fail with an {@link IOException}. */
  @FunctionalInterface
  public interface Step {
    void run() throws IOException;
  }

  /**
   * As {@link #orphans(Storage, List)}, running {@code afterListing} between listing {@code data/}
   * and reading the manifests (gc checks writers' leases there).
   */
  public static List<String> orphans(Storage storage, List<String> problems, Step afterListing)
      throws IOException {
    return orphans(storage, problems, afterListing, (done, total) -> {});
  }

  /** Told after each manifest read, for progress: {@code done} of {@code total} versions. */
  @FunctionalInterface
  public interface ManifestsRead {
    void manifestsRead(long done, long total);
  }

  /** As {@link #orphans(Storage, List, Step)}, telling {@code progress} of each manifest read. */
  public static List<String> orphans(
      Storage storage, List<String> problems, Step afterListing, ManifestsRead progress)
      throws IOException {
    // List before reading the manifests: a file published in between is then seen as referenced,
    // never as an orphan. Names that are not data file names are not Riffle's (a README).
    List<String> names = new ArrayList<>();
    for (String name : storage.list(DatasetLayout.DATA_DIR)) {
      if (DatasetLayout.isDataFileName(name)) {
        names.add(name);
      }
    }
    afterListing.run();
    Set<String> referenced = new HashSet<>();
    List<Long> versions = Dataset.versions(storage);
    long read = 0;
    for (long v : versions) {
      try {
        for (Manifest.DataFile f : Dataset.readManifest(storage, v).files()) {
          referenced.add(f.path());
        }
      } catch (CorruptFileException | NoSuchFileException e) {
        problems.add("cannot tell orphans apart: " + e.getMessage());
        return List.of();
      }
      progress.manifestsRead(++read, versions.size());
    }
    List<String> orphans = new ArrayList<>();
    for (String name : names) {
      String path = DatasetLayout.DATA_DIR + "/" + name;
      if (!referenced.contains(path)) {
        orphans.add(path);
      }
    }
    return orphans;
  }
}
