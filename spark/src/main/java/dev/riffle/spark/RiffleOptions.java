package dev.riffle.spark;

import dev.riffle.dataset.write.DatasetCommit;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.format.write.WriterOptions;
import java.io.Serializable;
import java.util.Locale;
import java.util.Map;

/**
 * The options of {@code spark.read/df.write .format("riffle")}, parsed once on the driver. Keys are
 * case-insensitive, as Spark passes them.
 *
 * @param location the dataset's canonical URI ({@code path}, given to load/save)
 * @param version the version to read ({@code version}), or -1 for the latest
 * @param split the split to read ({@code split}), or null for all live rows
 * @param rowsPerPartition rows per input partition ({@code rowsPerPartition}); 0 splits each file
 *     so that a partition holds about {@code spark.sql.files.maxPartitionBytes} of it
 * @param batchRows rows per columnar batch ({@code batchRows}, default 4096)
 * @param targetFileBytes a written data file ends after about this many bytes ({@code
 *     targetFileBytes}, default 512 MiB)
 * @param targetFileRows ... or after exactly this many rows ({@code targetFileRows}, 0: no limit)
 * @param pageBytes page size of written files ({@code pageBytes})
 * @param zstdLevel zstd level of written files ({@code zstdLevel}; 0 turns compression off)
 * @param license the license recorded in a written version ({@code license})
 * @param commit the commit mode of a write, set by {@link RiffleDataSource} only
 */
record RiffleOptions(
    String location,
    long version,
    String split,
    long rowsPerPartition,
    int batchRows,
    long targetFileBytes,
    long targetFileRows,
    int pageBytes,
    int zstdLevel,
    String license,
    DatasetCommit.Mode commit)
    implements Serializable {

  /** The internal option that carries the commit mode from the V1 entry point to the V2 write. */
  static final String COMMIT = "__riffle_commit";

  static RiffleOptions parse(Map<String, String> options) {
    Map<String, String> o = new java.util.HashMap<>();
    options.forEach((k, v) -> o.put(k.toLowerCase(Locale.ROOT), v));
    String commit = o.get(COMMIT);
    return new RiffleOptions(
        Storages.canonical(o.get("path")),
        number(o, "version", -1, 1),
        o.get("split"),
        number(o, "rowsperpartition", 0, 1),
        intNumber(o, "batchrows", 4096, 1),
        number(o, "targetfilebytes", DatasetOptions.DEFAULT_TARGET_FILE_BYTES, 1),
        number(o, "targetfilerows", 0, 1),
        intNumber(o, "pagebytes", WriterOptions.DEFAULT_PAGE_BYTES, 4096),
        intNumber(o, "zstdlevel", WriterOptions.DEFAULT_ZSTD_LEVEL, 0),
        o.get("license"),
        commit == null ? null : DatasetCommit.Mode.valueOf(commit));
  }

  private static long number(Map<String, String> o, String key, long absent, long min) {
    String v = o.get(key);
    if (v == null) {
      return absent;
    }
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "riffle option " + key + " must be a number, not '" + v + "'");
    }
    if (n < min) {
      throw new IllegalArgumentException(
          "riffle option " + key + " must be at least " + min + ", not " + v);
    }
    return n;
  }

  private static int intNumber(Map<String, String> o, String key, int absent, int min) {
    long n = number(o, key, absent, min);
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "riffle option " + key + " must be at most " + Integer.MAX_VALUE + ", not " + n);
    }
    return (int) n;
  }

  /** How written files are laid out and what the version records. */
  DatasetOptions datasetOptions() {
    DatasetOptions d =
        DatasetOptions.defaults()
            .withTargetFileBytes(targetFileBytes)
            .withTargetFileRows(targetFileRows)
            .withFileOptions(
                WriterOptions.defaults().withPageBytes(pageBytes).withZstdLevel(zstdLevel));
    return license == null ? d : d.withLicense(license);
  }
}
