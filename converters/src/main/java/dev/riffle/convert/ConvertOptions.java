package dev.riffle.convert;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import dev.riffle.format.schema.RiffleSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * How a converter runs.
 *
 * @param dataset how the dataset version is written; the converter adds its provenance
 * @param threads input files decoded at once (at least 1)
 * @param batchRows most rows in one Arrow batch
 * @param batchBytes a batch is cut once its buffers reach about this size, so that wide rows (long
 *     strings, big lists) keep memory bounded
 * @param progress told the input bytes done as the work advances (may be called from any thread)
 * @param append add the input to the dataset already there as its next version (the schema must be
 *     the dataset's) instead of creating version 1 of a new one
 * @param categorical top-level string columns to write as categoricals (Parquet and Arrow IPC
 *     input; see {@link Categoricals})
 */
public record ConvertOptions(
    DatasetOptions dataset,
    int threads,
    int batchRows,
    long batchBytes,
    LongConsumer progress,
    boolean append,
    List<String> categorical) {
  public ConvertOptions {
    if (threads < 1 || batchRows < 1 || batchBytes < 1) {
      throw new IllegalArgumentException("threads, batch rows and batch bytes must be positive");
    }
    progress = progress == null ? n -> {} : progress;
    categorical = categorical == null ? List.of() : List.copyOf(categorical);
  }

  /**
   * Defaults: one decoding thread per core beyond the writer's (at least one), batches of at most
   * 64Ki rows and 64 MiB.
   */
  public static ConvertOptions defaults() {
    int cores = Runtime.getRuntime().availableProcessors();
    return new ConvertOptions(
        DatasetOptions.defaults(), Math.max(1, cores - 1), 1 << 16, 64L << 20, null, false, null);
  }

  public ConvertOptions withDataset(DatasetOptions d) {
    return new ConvertOptions(d, threads, batchRows, batchBytes, progress, append, categorical);
  }

  public ConvertOptions withThreads(int n) {
    return new ConvertOptions(dataset, n, batchRows, batchBytes, progress, append, categorical);
  }

  public ConvertOptions withBatchRows(int n) {
    return new ConvertOptions(dataset, threads, n, batchBytes, progress, append, categorical);
  }

  public ConvertOptions withBatchBytes(long n) {
    return new ConvertOptions(dataset, threads, batchRows, n, progress, append, categorical);
  }

  public ConvertOptions withProgress(LongConsumer p) {
    return new ConvertOptions(dataset, threads, batchRows, batchBytes, p, append, categorical);
  }

  public ConvertOptions withAppend(boolean a) {
    return new ConvertOptions(dataset, threads, batchRows, batchBytes, progress, a, categorical);
  }

  /**
   * With {@code columns} (top-level utf8 or large_utf8 columns of the input) written as
   * categoricals: see {@link Categoricals} for their dictionaries.
   */
  public ConvertOptions withCategorical(List<String> columns) {
    return new ConvertOptions(dataset, threads, batchRows, batchBytes, progress, append, columns);
  }

  /**
   * These options for an input of {@code schema}: when appending to a dataset whose column is a
   * categorical of strings and the input's column of that name is a plain string column, that
   * column is made categorical too (continuing the dataset's codes), as if given to {@link
   * #withCategorical}: an append takes the dataset's schema, and a user who converted with {@code
   * --categorical} should not have to repeat it for every batch of new files.
   */
  public ConvertOptions forInput(Schema schema, Storage out) throws IOException {
    if (!append || Dataset.versions(out).isEmpty()) {
      return this;
    }
    RiffleSchema existing =
        ManifestCodec.schemaOf(Dataset.readManifest(out, Dataset.latestVersion(out)), out.uri());
    List<String> columns = new ArrayList<>(categorical);
    for (Field f : schema.getFields()) {
      int i = existing.fieldIndex(f.getName());
      Field values = i < 0 ? null : existing.dictionaryValues(i);
      if (isString(f) && f.getDictionary() == null && values != null && isString(values)) {
        if (!columns.contains(f.getName())) {
          columns.add(f.getName());
        }
      }
    }
    return columns.size() == categorical.size() ? this : withCategorical(columns);
  }

  private static boolean isString(Field f) {
    ArrowType.ArrowTypeID t = f.getType().getTypeID();
    return t == ArrowType.ArrowTypeID.Utf8 || t == ArrowType.ArrowTypeID.LargeUtf8;
  }

  /**
   * The writer of the version a conversion publishes: version 1 of a new dataset, or with {@link
   * #append} the next version of the one there, which fails before anything is written if the
   * schemas differ.
   *
   * @throws InputException naming {@code input} and each differing field, when appending to a
   *     dataset of another schema
   */
  public DatasetWriter writer(
      String input,
      Storage out,
      Schema schema,
      DictionaryProvider dictionaries,
      DatasetOptions options)
      throws IOException {
    if (!append) {
      return DatasetWriter.create(out, schema, dictionaries, options);
    }
    try {
      return DatasetWriter.append(out, schema, dictionaries, options);
    } catch (IllegalArgumentException e) {
      throw new InputException(input, e.getMessage(), e);
    }
  }

  /** This library's version, for the provenance. */
  static String version() {
    String v = ConvertOptions.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }
}
