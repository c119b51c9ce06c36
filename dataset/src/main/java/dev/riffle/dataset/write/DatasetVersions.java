package dev.riffle.dataset.write;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.RowSets;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.roaringbitmap.longlong.LongIterator;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * New versions that change no data: set a split, delete rows. Each publishes the latest version +
 * 1, with the same files, and fails with {@link ConcurrentPublishException} if another writer got
 * there first.
 */
public final class DatasetVersions {
  private DatasetVersions() {}

  /**
   * Adds or replaces split {@code name}.
   *
   * @throws IllegalArgumentException if the rows fall outside the dataset
   */
  public static Manifest setSplit(Storage storage, String name, Roaring64Bitmap rows)
      throws IOException {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a split needs a name");
    }
    Manifest base = latest(storage);
    checkRows(rows, base);
    Map<String, String> splits = new LinkedHashMap<>(base.splits());
    splits.put(name, RowSets.encode(rows));
    return Publisher.publish(storage, next(base, splits, base.deletions()));
  }

  /**
   * Assigns each live row of the latest version to split {@code name} with probability {@code
   * fraction}, by a hash of (seed, row) — the same rows for the same seed on any machine — and, if
   * {@code restName} is given, the other live rows to that split.
   */
  public static Manifest randomSplit(
      Storage storage, String name, double fraction, long seed, String restName)
      throws IOException {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction must be in [0, 1], not " + fraction);
    }
    Manifest base = latest(storage);
    Roaring64Bitmap live = RowSets.range(base.totalRows());
    if (base.deletions() != null) {
      live.andNot(RowSets.decode(base.deletions()));
    }
    Roaring64Bitmap chosen = new Roaring64Bitmap();
    Roaring64Bitmap rest = new Roaring64Bitmap();
    LongIterator it = live.getLongIterator();
    while (it.hasNext()) {
      long row = it.next();
      // The top 53 bits of a SplitMix64 hash as a uniform double in [0, 1).
      double u = (mix(seed ^ mix(row)) >>> 11) * 0x1.0p-53;
      (u < fraction ? chosen : rest).addLong(row);
    }
    Map<String, String> splits = new LinkedHashMap<>(base.splits());
    splits.put(name, RowSets.encode(chosen));
    if (restName != null) {
      if (restName.equals(name)) {
        throw new IllegalArgumentException("the split and the rest need different names");
      }
      splits.put(restName, RowSets.encode(rest));
    }
    return Publisher.publish(storage, next(base, splits, base.deletions()));
  }

  /** Marks rows deleted (in addition to those deleted before). */
  public static Manifest deleteRows(Storage storage, Roaring64Bitmap rows) throws IOException {
    Manifest base = latest(storage);
    checkRows(rows, base);
    Roaring64Bitmap deleted =
        base.deletions() == null ? new Roaring64Bitmap() : RowSets.decode(base.deletions());
    deleted.or(rows);
    return Publisher.publish(storage, next(base, base.splits(), RowSets.encode(deleted)));
  }

  private static Manifest latest(Storage storage) throws IOException {
    return Dataset.readManifest(storage, Dataset.latestVersion(storage));
  }

  private static void checkRows(Roaring64Bitmap rows, Manifest base) {
    // Unsigned, as the bitmap orders ids: an id of 2^63 or more is its largest.
    if (!rows.isEmpty() && Long.compareUnsigned(rows.last(), base.totalRows()) >= 0) {
      throw new IllegalArgumentException(
          "rows must be in [0, " + base.totalRows() + ") of version " + base.version());
    }
  }

  private static Manifest next(Manifest base, Map<String, String> splits, String deletions) {
    return new Manifest(
        Manifest.MANIFEST_VERSION,
        base.datasetId(),
        base.version() + 1,
        base.version(),
        Publisher.now(),
        base.schema(),
        base.files(),
        base.provenance(),
        base.license(),
        base.citation(),
        base.metadata(),
        splits,
        deletions);
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
