package dev.riffle.spark;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.schema.RiffleSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.memory.RootAllocator;
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
        Dataset ds =
            o.version() > 0
                ? Dataset.open(storage, o.version(), allocator)
                : Dataset.open(storage, allocator)) {
      // Opening a dataset reads its manifest only; data files are opened by the tasks.
      Roaring64Bitmap rows = null;
      if (o.split() != null) {
        try {
          rows = ds.split(o.split()).rows();
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(o.location() + ": " + e.getMessage(), e);
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

  StructType sparkSchema() {
    return SparkTypes.toSpark(schema);
  }
}
