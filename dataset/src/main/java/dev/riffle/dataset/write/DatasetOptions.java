package dev.riffle.dataset.write;

import dev.riffle.dataset.Manifest;
import dev.riffle.format.write.WriterOptions;
import java.util.Map;

/**
 * How a {@link DatasetWriter} writes and describes a version.
 *
 * @param targetFileBytes a data file is closed and a new one started after the batch during which
 *     the bytes it has written reach this size (default 512 MiB: large enough for sequential reads,
 *     small enough to stage in parallel); pages still buffered are not counted, so files end a page
 *     or so past it
 * @param targetFileRows if positive, a data file also ends after exactly this many rows (batches
 *     are split to make it exact); 0 for no row limit
 * @param file the layout of each file
 * @param provenance what produced the data (may be null)
 * @param license an SPDX identifier or text (may be null; an append keeps the previous one)
 * @param citation how to cite (may be null; an append keeps the previous one)
 * @param metadata free-form key-value pairs, merged over the previous version's
 */
public record DatasetOptions(
    long targetFileBytes,
    long targetFileRows,
    WriterOptions file,
    Manifest.Provenance provenance,
    String license,
    Manifest.Citation citation,
    Map<String, String> metadata) {
  public static final long DEFAULT_TARGET_FILE_BYTES = 512L << 20;

  public DatasetOptions {
    if (targetFileBytes < 1) {
      throw new IllegalArgumentException("target file size must be positive");
    }
    if (targetFileRows < 0) {
      throw new IllegalArgumentException("target rows per file must not be negative");
    }
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }

  public static DatasetOptions defaults() {
    return new DatasetOptions(
        DEFAULT_TARGET_FILE_BYTES, 0, WriterOptions.defaults(), null, null, null, Map.of());
  }

  public DatasetOptions withTargetFileBytes(long bytes) {
    return new DatasetOptions(bytes, targetFileRows, file, provenance, license, citation, metadata);
  }

  /** Ends each data file after exactly {@code rows} rows (0: no row limit). */
  public DatasetOptions withTargetFileRows(long rows) {
    return new DatasetOptions(targetFileBytes, rows, file, provenance, license, citation, metadata);
  }

  public DatasetOptions withFileOptions(WriterOptions options) {
    return new DatasetOptions(
        targetFileBytes, targetFileRows, options, provenance, license, citation, metadata);
  }

  public DatasetOptions withProvenance(Manifest.Provenance p) {
    return new DatasetOptions(
        targetFileBytes, targetFileRows, file, p, license, citation, metadata);
  }

  public DatasetOptions withLicense(String l) {
    return new DatasetOptions(
        targetFileBytes, targetFileRows, file, provenance, l, citation, metadata);
  }

  public DatasetOptions withCitation(Manifest.Citation c) {
    return new DatasetOptions(
        targetFileBytes, targetFileRows, file, provenance, license, c, metadata);
  }

  public DatasetOptions withMetadata(Map<String, String> m) {
    return new DatasetOptions(
        targetFileBytes, targetFileRows, file, provenance, license, citation, m);
  }
}
