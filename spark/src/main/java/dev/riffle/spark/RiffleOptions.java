package dev.riffle.spark;

import dev.riffle.dataset.write.DatasetCommit;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.format.write.WriterOptions;
import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.TableCatalog;

/**
 * The options of {@code spark.read/df.write .format("riffle")}, parsed once on the driver. Keys are
 * case-insensitive, as Spark passes them. An option Riffle does not know, or one of writes given to
 * a read (and the other way round), is refused naming it and the nearest valid one: ignored, a typo
 * such as {@code verison} would silently read another version.
 *
 * @param location the dataset's canonical URI ({@code path}, given to load/save)
 * @param version the version to read ({@code version}, or {@code versionAsOf} as Delta and Iceberg
 *     name it), or -1 for the latest
 * @param timestampAsOf the version to read is the last one published at or before this time ({@code
 *     timestampAsOf}: ISO-8601, or {@code yyyy-MM-dd[ HH:mm:ss[.f]]} in the session's time zone),
 *     or null
 * @param split the split to read ({@code split}), or null for all live rows
 * @param rowsPerPartition rows per input partition ({@code rowsPerPartition}); 0 splits each file
 *     so that a partition holds about {@code spark.sql.files.maxPartitionBytes} of it
 * @param batchRows rows per columnar batch ({@code batchRows}, default 4096)
 * @param driverRows a {@code _row_id} lookup of at most this many rows is read on the driver,
 *     without a Spark job ({@code driverRows}, default 4096; 0: always a job)
 * @param targetFileBytes a written data file ends after about this many bytes ({@code
 *     targetFileBytes}, default 512 MiB)
 * @param targetFileRows ... or after exactly this many rows ({@code targetFileRows}, 0: no limit)
 * @param pageBytes page size of written files ({@code pageBytes})
 * @param zstdLevel zstd level of written files ({@code zstdLevel}; 0 turns compression off)
 * @param license the license recorded in a written version ({@code license})
 * @param vectorFloat32 ML vectors are written as float32 ({@code vectorFloat32}, default false:
 *     float64, Spark's own values)
 * @param commit the commit mode of a write, set by {@link RiffleDataSource} only
 */
record RiffleOptions(
    String location,
    long version,
    String timestampAsOf,
    String split,
    long rowsPerPartition,
    int batchRows,
    long driverRows,
    long targetFileBytes,
    long targetFileRows,
    int pageBytes,
    int zstdLevel,
    String license,
    boolean vectorFloat32,
    DatasetCommit.Mode commit)
    implements Serializable {

  /** The internal option that carries the commit mode from the V1 entry point to the V2 write. */
  static final String COMMIT = "__riffle_commit";

  /**
   * Rows a {@code _row_id} lookup reads on the driver by default: a few thousand rows are
   * milliseconds of takes, against the second or so that scheduling a job costs.
   */
  static final long DEFAULT_DRIVER_ROWS = 4096;

  /** Options of reads, as a user spells them. */
  static final List<String> READ_KEYS =
      List.of(
          "path",
          "version",
          "versionAsOf",
          "timestampAsOf",
          "split",
          "rowsPerPartition",
          "batchRows",
          "driverRows");

  /** Options of writes, as a user spells them. */
  static final List<String> WRITE_KEYS =
      List.of(
          "path",
          "targetFileBytes",
          "targetFileRows",
          "pageBytes",
          "zstdLevel",
          "license",
          "vectorFloat32",
          "batchRows");

  /**
   * Parses the options of a read, or of a write if they carry the commit mode ({@link #COMMIT}).
   *
   * @throws org.apache.spark.sql.AnalysisException for an unknown or misplaced option
   */
  static RiffleOptions parse(Map<String, String> options) {
    Map<String, String> o = new java.util.HashMap<>();
    options.forEach((k, v) -> o.put(k.toLowerCase(Locale.ROOT), v));
    return parse(o, o.containsKey(COMMIT.toLowerCase(Locale.ROOT)));
  }

  /** Parses the options of a write, which need not carry the commit mode yet. */
  static RiffleOptions parseWrite(Map<String, String> options) {
    Map<String, String> o = new java.util.HashMap<>();
    options.forEach((k, v) -> o.put(k.toLowerCase(Locale.ROOT), v));
    return parse(o, true);
  }

  private static RiffleOptions parse(Map<String, String> o, boolean write) {
    checkKeys(o, write);
    String commit = o.get(COMMIT.toLowerCase(Locale.ROOT));
    long version = number(o, "version", -1, 1);
    long asOf = number(o, "versionAsOf", -1, 1);
    if (version > 0 && asOf > 0 && version != asOf) {
      throw AnalysisErrors.of(
          "riffle options version ("
              + version
              + ") and versionAsOf ("
              + asOf
              + ") name different versions; give one");
    }
    String timestamp = o.get("timestampasof");
    if (timestamp != null && (version > 0 || asOf > 0)) {
      throw AnalysisErrors.of(
          "riffle options timestampAsOf and version (or versionAsOf) both name a version; give one");
    }
    return new RiffleOptions(
        Storages.canonical(location(o)),
        Math.max(version, asOf),
        timestamp,
        o.get("split"),
        number(o, "rowsPerPartition", 0, 1),
        intNumber(o, "batchRows", 4096, 1),
        number(o, "driverRows", DEFAULT_DRIVER_ROWS, 0),
        number(o, "targetFileBytes", DatasetOptions.DEFAULT_TARGET_FILE_BYTES, 1),
        number(o, "targetFileRows", 0, 1),
        intNumber(o, "pageBytes", WriterOptions.DEFAULT_PAGE_BYTES, 4096),
        intNumber(o, "zstdLevel", WriterOptions.DEFAULT_ZSTD_LEVEL, 0),
        o.get("license"),
        bool(o, "vectorFloat32"),
        commit == null ? null : DatasetCommit.Mode.valueOf(commit));
  }

  /** These options with another commit mode. */
  RiffleOptions withCommit(DatasetCommit.Mode mode) {
    return new RiffleOptions(
        location,
        version,
        timestampAsOf,
        split,
        rowsPerPartition,
        batchRows,
        driverRows,
        targetFileBytes,
        targetFileRows,
        pageBytes,
        zstdLevel,
        license,
        vectorFloat32,
        mode);
  }

  /** The one dataset location of a load or save. */
  private static String location(Map<String, String> o) {
    String paths = o.get("paths");
    if (paths != null && o.get("path") == null) {
      // Spark passes several paths of load(a, b, ...) as a JSON array under "paths".
      throw AnalysisErrors.of(
          "riffle reads one dataset location, not several: " + paths + "; load each on its own");
    }
    return o.get("path");
  }

  /** The reserved properties of a catalog table, which reach the source with its options. */
  private static final java.util.Set<String> CATALOG_KEYS =
      java.util.Set.of(
          TableCatalog.PROP_LOCATION,
          TableCatalog.PROP_PROVIDER,
          TableCatalog.PROP_OWNER,
          TableCatalog.PROP_COMMENT,
          TableCatalog.PROP_EXTERNAL,
          TableCatalog.PROP_IS_MANAGED_LOCATION,
          "collation");

  /** Refuses a key that is not an option of this side, naming the nearest valid one. */
  private static void checkKeys(Map<String, String> o, boolean write) {
    List<String> valid = write ? WRITE_KEYS : READ_KEYS;
    List<String> other = write ? READ_KEYS : WRITE_KEYS;
    for (String key : new java.util.TreeSet<>(o.keySet())) {
      if (key.startsWith("__")
          || key.equals("paths")
          || CATALOG_KEYS.contains(key)
          || find(valid, key) != null) {
        // Internal keys (the commit mode, Spark's own with two underscores), and what a catalog
        // table passes along with its options.
        continue;
      }
      String misplaced = find(other, key);
      if (misplaced != null) {
        throw AnalysisErrors.of(
            "riffle option "
                + misplaced
                + " applies to "
                + (write ? "reads" : "writes")
                + ", not to "
                + (write ? "writes" : "reads")
                + "; "
                + (write ? "write" : "read")
                + " options are "
                + valid);
      }
      throw AnalysisErrors.of(
          "unknown riffle option '"
              + key
              + "'"
              + nearest(key, valid)
              + "; "
              + (write ? "write" : "read")
              + " options are "
              + valid);
    }
  }

  private static String find(List<String> keys, String lower) {
    for (String k : keys) {
      if (k.toLowerCase(Locale.ROOT).equals(lower)) {
        return k;
      }
    }
    return null;
  }

  /** ", did you mean 'x'?" for the closest key within a few edits, else "". */
  static String nearest(String key, List<String> valid) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : valid) {
      int d = distance(key, k.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(2, key.length() / 3)
        ? "; did you mean '" + best + "'?"
        : "";
  }

  /** Levenshtein distance, with a swap of two neighbours counting one edit. */
  private static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  private static long number(Map<String, String> o, String key, long absent, long min) {
    String v = o.get(key.toLowerCase(Locale.ROOT));
    if (v == null) {
      return absent;
    }
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw AnalysisErrors.of("riffle option " + key + " must be a number, not '" + v + "'");
    }
    if (n < min) {
      throw AnalysisErrors.of("riffle option " + key + " must be at least " + min + ", not " + v);
    }
    return n;
  }

  private static boolean bool(Map<String, String> o, String key) {
    String v = o.get(key.toLowerCase(Locale.ROOT));
    if (v == null) {
      return false;
    }
    if (!v.trim().equalsIgnoreCase("true") && !v.trim().equalsIgnoreCase("false")) {
      throw AnalysisErrors.of("riffle option " + key + " must be true or false, not '" + v + "'");
    }
    return v.trim().equalsIgnoreCase("true");
  }

  private static int intNumber(Map<String, String> o, String key, int absent, int min) {
    long n = number(o, key, absent, min);
    if (n > Integer.MAX_VALUE) {
      throw AnalysisErrors.of(
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
