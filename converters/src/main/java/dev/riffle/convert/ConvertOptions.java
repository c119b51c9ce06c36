package dev.riffle.convert;

import dev.riffle.dataset.write.DatasetOptions;
import java.util.function.LongConsumer;

/**
 * How a converter runs.
 *
 * @param dataset how the dataset version is written; the converter adds its provenance
 * @param threads input files decoded at once (at least 1)
 * @param batchRows most rows in one Arrow batch
 * @param batchBytes a batch is cut once its buffers reach about this size, so that wide rows (long
 *     strings, big lists) keep memory bounded
 * @param progress told the input bytes done as the work advances (may be called from any thread)
 */
public record ConvertOptions(
    DatasetOptions dataset, int threads, int batchRows, long batchBytes, LongConsumer progress) {
  public ConvertOptions {
    if (threads < 1 || batchRows < 1 || batchBytes < 1) {
      throw new IllegalArgumentException("threads, batch rows and batch bytes must be positive");
    }
    progress = progress == null ? n -> {} : progress;
  }

  /**
   * Defaults: one decoding thread per core beyond the writer's (at least one), batches of at most
   * 64Ki rows and 64 MiB.
   */
  public static ConvertOptions defaults() {
    int cores = Runtime.getRuntime().availableProcessors();
    return new ConvertOptions(
        DatasetOptions.defaults(), Math.max(1, cores - 1), 1 << 16, 64L << 20, null);
  }

  public ConvertOptions withDataset(DatasetOptions d) {
    return new ConvertOptions(d, threads, batchRows, batchBytes, progress);
  }

  public ConvertOptions withThreads(int n) {
    return new ConvertOptions(dataset, n, batchRows, batchBytes, progress);
  }

  public ConvertOptions withBatchRows(int n) {
    return new ConvertOptions(dataset, threads, n, batchBytes, progress);
  }

  public ConvertOptions withBatchBytes(long n) {
    return new ConvertOptions(dataset, threads, batchRows, n, progress);
  }

  public ConvertOptions withProgress(LongConsumer p) {
    return new ConvertOptions(dataset, threads, batchRows, batchBytes, p);
  }

  /** This library's version, for the provenance. */
  static String version() {
    String v = ConvertOptions.class.getPackage().getImplementationVersion();
    return v == null ? "0.1.0-SNAPSHOT" : v;
  }
}
