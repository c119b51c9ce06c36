package dev.riffle.spark;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.schema.RiffleSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * What the driver knows of the version being read: its manifest, schema and the rows of the view
 * (all live rows, or a split's), read once when the query is planned. A missing dataset, version or
 * split fails here, naming it.
 *
 * @param rows the global rows to read, or null for every row (no split and no deletions)
 */
record DatasetSnapshot(
    RiffleOptions options, Manifest manifest, RiffleSchema schema, Roaring64Bitmap rows) {

  static DatasetSnapshot load(RiffleOptions o) {
    try (Storage storage = Storages.open(o.location());
        RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(storage, version(storage, o), allocator)) {
      // Opening a dataset reads its manifest only; data files are opened by the tasks.
      Roaring64Bitmap rows = null;
      if (o.split() != null) {
        try {
          rows = ds.split(o.split()).rows();
        } catch (IllegalArgumentException e) {
          throw AnalysisErrors.of(o.location() + ": " + e.getMessage(), e);
        }
      } else if (!ds.deletions().isEmpty()) {
        DatasetView all = ds.all();
        rows = all.rows();
      }
      return new DatasetSnapshot(o, ds.manifest(), ds.schema(), rows);
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /**
   * The version the options name: {@code version}, the last published at or before {@code
   * timestampAsOf}, or the latest. A version that does not exist is the user's error, not an I/O
   * one.
   */
  private static long version(Storage storage, RiffleOptions o) throws IOException {
    if (o.version() < 0 && o.timestampAsOf() == null) {
      return Dataset.latestVersion(storage);
    }
    List<Long> versions = Dataset.versions(storage);
    if (versions.isEmpty()) {
      Dataset.latestVersion(storage); // throws, naming the location
    }
    if (o.version() > 0) {
      if (!versions.contains(o.version())) {
        throw AnalysisErrors.of(
            o.location()
                + ": version "
                + o.version()
                + " does not exist; versions are "
                + versions);
      }
      return o.version();
    }
    Instant at = instant(o.timestampAsOf());
    String first = null;
    for (int i = versions.size() - 1; i >= 0; i--) {
      Manifest m = Dataset.readManifest(storage, versions.get(i));
      Instant created = Instant.parse(m.createdAt());
      if (!created.isAfter(at)) {
        return versions.get(i);
      }
      first = m.createdAt();
    }
    throw AnalysisErrors.of(
        o.location()
            + ": no version was published at or before timestampAsOf "
            + o.timestampAsOf()
            + " ("
            + at
            + "); the first, version "
            + versions.get(0)
            + ", was published at "
            + first);
  }

  /**
   * A point in time as Spark users write it: ISO-8601 with an offset or Z, or a local date and time
   * ({@code 2026-12-02 10:15:00}, {@code 2026-12-02T10:15}, {@code 2026-12-02}) in the session's
   * time zone, as Spark's own {@code TIMESTAMP AS OF} reads it.
   */
  static Instant instant(String text) {
    String t = text.trim();
    try {
      return OffsetDateTime.parse(t.replace(' ', 'T')).toInstant();
    } catch (DateTimeParseException e) {
      // no offset: a local time
    }
    ZoneId zone = ZoneId.of(SQLConf.get().sessionLocalTimeZone());
    try {
      return LocalDateTime.parse(t.replace(' ', 'T')).atZone(zone).toInstant();
    } catch (DateTimeParseException e) {
      // a date alone
    }
    try {
      return LocalDate.parse(t).atStartOfDay(zone).toInstant();
    } catch (DateTimeParseException e) {
      throw AnalysisErrors.of(
          "riffle option timestampAsOf must be a timestamp such as 2026-12-02 10:15:00 or"
              + " 2026-12-02T10:15:00Z, not '"
              + text
              + "'");
    }
  }

  StructType sparkSchema() {
    return SparkTypes.toSpark(schema);
  }
}
