package dev.riffle.dataset;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.read.FileReader;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One published version of a dataset (FORMAT.md §11): which files hold its rows, their sizes and
 * SHA-256, the schema, provenance, license and citation, named splits and deleted rows. A manifest
 * is immutable once published; a new version is a new manifest that names its parent.
 *
 * @param manifestVersion the version of this document's format ({@link #MANIFEST_VERSION})
 * @param datasetId a random id given at version 1 and kept by every later version
 * @param version this version's number, from 1
 * @param parentVersion the version this one was derived from, null for version 1
 * @param createdAt when it was published, ISO-8601 UTC
 * @param schema the schema block of FORMAT.md §6, base64; every file's schema has these fields
 * @param files the data files in global row order
 * @param provenance what produced the data
 * @param license an SPDX identifier or free text, may be null
 * @param citation how to cite the dataset, may be null
 * @param metadata free-form key-value pairs
 * @param splits named subsets: base64 of a portable 64-bit Roaring bitmap of global row ids
 * @param deletions deleted global row ids, same encoding, or null for none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Manifest(
    int manifestVersion,
    String datasetId,
    long version,
    Long parentVersion,
    String createdAt,
    String schema,
    List<DataFile> files,
    Provenance provenance,
    String license,
    Citation citation,
    Map<String, String> metadata,
    Map<String, String> splits,
    String deletions) {

  /** The manifest document format this code writes and reads. */
  public static final int MANIFEST_VERSION = 1;

  public Manifest {
    files = files == null ? List.of() : List.copyOf(files);
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    splits = splits == null ? Map.of() : Map.copyOf(splits);
  }

  /**
   * A data file of the version.
   *
   * @param path relative to the dataset root, e.g. {@code data/3f2a....riffle}
   * @param byteLength its length
   * @param sha256 lower-case hex SHA-256 of its bytes
   * @param rowCount its rows
   * @param firstRow the global id of its first row (the sum of the rows of the files before it)
   * @param footerCrc32c the file's footer CRC32C (footer bytes 52–55) as 8 lower-case hex digits,
   *     which tells it from the dataset's other files without reading its pages (the writer records
   *     each file's name in its schema metadata, so no two footers are alike); null in manifests
   *     written before the field existed (the file's identity is then not checked)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DataFile(
      String path,
      long byteLength,
      String sha256,
      long rowCount,
      long firstRow,
      String footerCrc32c) {

    /** The same file at another global first row (files keep their identity across versions). */
    public DataFile withFirstRow(long first) {
      return new DataFile(path, byteLength, sha256, rowCount, first, footerCrc32c);
    }

    /** A CRC32C as manifests write it: 8 lower-case hex digits. */
    public static String crcHex(int crc) {
      return String.format(Locale.ROOT, "%08x", crc);
    }

    /**
     * Checks that a file opened for this entry is the file the manifest names: its footer CRC32C,
     * read when it opened, equals the recorded one. A file swapped with another of equal length and
     * row count, or replaced by another, is told apart this way at no cost. Does nothing if the
     * manifest recorded no footer CRC.
     *
     * @param version the version whose manifest this entry is from, for the message
     * @throws CorruptFileException if the CRCs differ, naming the file, the offset of its footer
     *     CRC and both values
     */
    public void checkIdentity(FileReader file, long version) throws CorruptFileException {
      if (footerCrc32c == null) {
        return;
      }
      String actual = crcHex(file.footerCrc32c());
      if (!footerCrc32c.equals(actual)) {
        throw new CorruptFileException(
            file.name(),
            file.byteLength() - FooterLayout.FOOTER_BYTES + FooterLayout.FOOTER_CRC,
            path
                + " is not the file version "
                + version
                + " names (footer CRC 0x"
                + actual
                + ", manifest says 0x"
                + footerCrc32c
                + "): files were swapped or replaced");
      }
    }
  }

  /**
   * What produced the data.
   *
   * @param tool e.g. "riffle convert parquet"
   * @param toolVersion the tool's version
   * @param sources the inputs, with their sizes and hashes
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Provenance(String tool, String toolVersion, List<Source> sources) {
    public Provenance {
      sources = sources == null ? List.of() : List.copyOf(sources);
    }
  }

  /** An input of the data: where it came from, its length and SHA-256 (either may be unknown). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Source(String uri, Long byteLength, String sha256) {}

  /** How to cite the dataset. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Citation(String title, List<String> authors, String doi) {
    public Citation {
      authors = authors == null ? List.of() : List.copyOf(authors);
    }
  }

  /** Total rows of the files, deleted ones included: the size of the global row id space. */
  public long totalRows() {
    return files.isEmpty()
        ? 0
        : files.get(files.size() - 1).firstRow() + files.get(files.size() - 1).rowCount();
  }

  /** The path of version {@code v}'s manifest, relative to the dataset root. */
  public static String path(long version) {
    return DatasetLayout.VERSIONS_DIR
        + "/"
        + String.format(Locale.ROOT, "%020d", version)
        + DatasetLayout.MANIFEST_SUFFIX;
  }
}
