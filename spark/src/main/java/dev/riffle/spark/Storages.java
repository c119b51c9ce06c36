package dev.riffle.spark;

import dev.riffle.format.io.LocalStorage;
import dev.riffle.format.io.Storage;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Opens the storage of a dataset URI. The connector depends on the format and writer modules only,
 * so it handles paths of a file system that the driver and every executor see at the same place (a
 * local path, {@code file:} URI, or a shared mount such as NFS); other schemes are refused with a
 * message that says so rather than written somewhere unexpected.
 */
final class Storages {
  private Storages() {}

  /**
   * The canonical URI of a dataset location ({@code file:/abs/path}), resolved on the driver so
   * that executors, whose working directory may differ, open the same place.
   *
   * @throws IllegalArgumentException for a scheme other than file, naming the URI
   */
  static String canonical(String location) {
    return new LocalStorage(localPath(location)).uri();
  }

  /** Opens a location given by {@link #canonical} (or any local path). */
  static Storage open(String location) {
    return new LocalStorage(localPath(location));
  }

  private static Path localPath(String location) {
    if (location == null || location.isBlank()) {
      throw new IllegalArgumentException(
          "riffle needs a dataset location: spark.read.format(\"riffle\").load(path) or"
              + " df.write.format(\"riffle\").save(path)");
    }
    int colon = location.indexOf(':');
    int slash = location.indexOf('/');
    boolean hasScheme = colon > 1 && (slash < 0 || colon < slash);
    if (!hasScheme) {
      return Paths.get(location);
    }
    URI uri;
    try {
      uri = new URI(location);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a valid dataset URI: " + location, e);
    }
    if (!"file".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException(
          "cannot open '"
              + location
              + "': the riffle Spark connector reads and writes datasets on a file system that"
              + " the driver and all executors share (a path or file: URI); "
              + uri.getScheme()
              + ": locations are not supported by it");
    }
    return Paths.get(uri);
  }
}
