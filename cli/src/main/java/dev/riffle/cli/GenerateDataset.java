package dev.riffle.cli;

import dev.riffle.datagen.Batches;
import dev.riffle.datagen.SyntheticData;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The dataset half of {@code riffle generate}: publishes the synthetic rows as a new version
 * (version 1, or with {@code append} the latest + 1) through a {@link DatasetWriter}.
 *
 * <p>{@code --files K}: the writer rolls to a new data file only on size: after a batch, once the
 * bytes it has flushed to the current file reach the target. Flushed bytes grow in steps of whole
 * pages (1 MiB by default), so a file can only end at a batch right after a page flush. The target
 * is therefore chosen from a probe: the first rows, generated with the same batches and layout into
 * a file writer on a null stream, recording the flushed bytes after each batch. Each batch where
 * they grew is a possible end of file 1; the one whose row count, repeated, gives the number of
 * files closest to K (the fewer, larger files on a tie) sets the target, assuming the later files
 * fill like the first. Batches are kept to 1/{@value #BATCHES_PER_FILE} of a file's rows so that
 * there are such points near every row count. When the probe reaches {@value #PROBE_BYTES} bytes
 * before ceil(N/K) rows (files larger than that), the target is extrapolated from its bytes per
 * row; a page more or less is then a small part of a file. Files smaller than a few pages cannot be
 * placed well: K then comes out lower.
 */
final class GenerateDataset {
  private GenerateDataset() {}

  /** Largest probe, in bytes of the probe file: enough for a stable average row size. */
  static final long PROBE_BYTES = 32L << 20;

  /** With {@code --files}, batches hold at most this fraction of a file's rows. */
  static final int BATCHES_PER_FILE = 32;

  /** What was published: the manifest and the data files this run added. */
  record Result(Manifest manifest, List<Manifest.DataFile> newFiles) {
    long newBytes() {
      return newFiles.stream().mapToLong(Manifest.DataFile::byteLength).sum();
    }
  }

  /**
   * Writes and publishes the rows.
   *
   * @param files the number of data files to aim at, or null for the writer's default target size
   */
  static Result write(
      Storage storage,
      SyntheticData data,
      WriterOptions fileOptions,
      long rows,
      long seed,
      Integer files,
      boolean append,
      Map<String, String> metadata,
      String tool,
      BufferAllocator allocator,
      Progress progress)
      throws IOException {
    if (append) {
      requireSameGenes(storage, metadata);
    }
    long target = DatasetOptions.DEFAULT_TARGET_FILE_BYTES;
    int batchRows = data.batchRows();
    if (files != null && files == 1) {
      target = Long.MAX_VALUE;
    } else if (files != null && rows > 0) {
      long rowsPerFile = (rows + files - 1) / files;
      batchRows = (int) Math.max(1, Math.min(batchRows, rowsPerFile / BATCHES_PER_FILE));
      target = targetFor(data, fileOptions, rows, seed, files, batchRows, allocator);
    }
    DatasetOptions options =
        DatasetOptions.defaults()
            .withTargetFileBytes(target)
            .withFileOptions(fileOptions)
            .withProvenance(new Manifest.Provenance(tool, toolVersion(), List.of()))
            .withMetadata(metadata);
    Manifest m;
    try (DatasetWriter writer =
        append
            ? DatasetWriter.append(storage, data.schema(), data.dictionaries(), options)
            : DatasetWriter.create(storage, data.schema(), data.dictionaries(), options)) {
      Batches.generate(
          data,
          allocator,
          rows,
          seed,
          batchRows,
          batch -> {
            writer.write(batch);
            return true;
          },
          progress::update);
      m = writer.publish();
    }
    int before =
        m.parentVersion() == null
            ? 0
            : Dataset.readManifest(storage, m.parentVersion()).files().size();
    return new Result(m, m.files().subList(before, m.files().size()));
  }

  /**
   * Refuses to append cells of another gene count than the latest version's (its metadata {@code
   * genes}): the schema is the same, but the new rows' indices would address other genes, as {@code
   * convert h5ad --append} refuses other genes.
   */
  private static void requireSameGenes(Storage storage, Map<String, String> metadata)
      throws IOException {
    String genes = metadata.get("genes");
    if (genes == null) {
      return;
    }
    Manifest latest = Dataset.readManifest(storage, Dataset.latestVersion(storage));
    String had = latest.metadata().get("genes");
    if (had != null && !had.equals(genes)) {
      throw new IllegalArgumentException(
          "cannot append to "
              + storage.uri()
              + ": its cells have "
              + had
              + " genes (version "
              + latest.version()
              + "), not --genes "
              + genes);
    }
  }

  /** The target file size for about {@code files} files (see the class comment). */
  static long targetFor(
      SyntheticData data,
      WriterOptions options,
      long rows,
      long seed,
      int files,
      int batchRows,
      BufferAllocator allocator)
      throws IOException {
    double ideal = (double) rows / files;
    // Batch ends where the flushed bytes grew: (rows so far, flushed bytes before, after).
    List<long[]> ends = new ArrayList<>();
    long[] last = new long[2];
    long finished;
    try (FileWriter probe =
        FileWriter.create(
            OutputStream.nullOutputStream(), data.schema(), data.dictionaries(), options)) {
      last[1] = probe.bytesWritten();
      Batches.generate(
          data,
          allocator,
          rows,
          seed,
          batchRows,
          batch -> {
            probe.write(batch);
            long done = last[0] + batch.getRowCount();
            long flushed = probe.bytesWritten();
            boolean grew = flushed > last[1];
            if (grew) {
              ends.add(new long[] {done, last[1], flushed});
            }
            last[0] = done;
            last[1] = flushed;
            // Later ends give still fewer files, never a count closer to K.
            return !(grew && done >= ideal) && flushed < PROBE_BYTES;
          },
          null);
      finished = probe.finish();
    }
    if (last[0] < ideal && last[0] < rows) {
      // Files larger than the probe: extrapolate its bytes per row, pages still buffered included,
      // so that files end a little after ceil(N/K) rows rather than before (which would leave a
      // tiny extra file); a page more or less is then a small part of a file.
      return Math.max(1, (long) Math.ceil((double) finished * ideal / last[0]));
    }
    long target = Long.MAX_VALUE;
    long bestDistance = files - 1;
    for (long[] end : ends) {
      long predicted = (rows + end[0] - 1) / end[0];
      long distance = Math.abs(predicted - files);
      if (distance < bestDistance || (distance == bestDistance && predicted < files)) {
        bestDistance = distance;
        // Halfway between the flushes: later files, with other rows, flush at slightly other
        // sizes, and should still end at the same flush.
        target = end[1] + (end[2] - end[1] + 1) / 2;
      }
    }
    return target;
  }

  /** The version of the riffle jar, or "dev" when run from classes. */
  static String toolVersion() {
    String v = GenerateDataset.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
