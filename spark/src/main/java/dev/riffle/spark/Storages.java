package dev.riffle.spark;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * Opens the storage of a dataset URI: a local path or {@code file:} URI as a {@link LocalStorage}
 * (a file system the driver and every executor see at the same place: one machine, NFS), any other
 * scheme ({@code s3a:}, {@code hdfs:}, ...) as a {@link HadoopStorage} with the Hadoop
 * configuration of the Spark session. A path without a scheme is local, not resolved against {@code
 * fs.defaultFS}, as it always was for this connector.
 */
final class Storages {
  private Storages() {}

  /**
   * The canonical URI of a dataset location: {@code file:/abs/path} for a local one, resolved on
   * the driver so that executors, whose working directory may differ, open the same place; the URI,
   * normalized, for any other scheme.
   *
   * @throws IllegalArgumentException for a missing location or one that is not a URI
   */
  static String canonical(String location) {
    URI uri = schemeUri(location);
    if (uri == null || isLocal(uri)) {
      return new LocalStorage(localPath(location, uri)).uri();
    }
    if (uri.getPath() == null || uri.isOpaque()) {
      throw new IllegalArgumentException(
          "not a hierarchical dataset URI: '" + location + "' (e.g. s3a://bucket/prefix/dataset)");
    }
    return uri.normalize().toString();
  }

  /** True if {@code location} (canonical or not) is opened as a local path. */
  static boolean isLocal(String location) {
    URI uri = schemeUri(location);
    return uri == null || isLocal(uri);
  }

  /**
   * The Hadoop configuration to open a location with, from the active Spark session ({@code
   * spark.hadoop.*} settings and the session's SQL conf, as Spark's own file sources use), or null
   * for a local location, which needs none. Call on the driver.
   */
  static Configuration driverConf(String location) {
    return isLocal(location) ? null : SparkSession.active().sessionState().newHadoopConf();
  }

  /** Opens a location on the driver, with the session's Hadoop configuration if it needs one. */
  static Storage open(String location) {
    return open(location, driverConf(location));
  }

  /**
   * Opens a location given by {@link #canonical} (or any local path).
   *
   * @param conf the Hadoop configuration for a non-local location; ignored for a local one
   */
  static Storage open(String location, Configuration conf) {
    URI uri = schemeUri(location);
    if (uri == null || isLocal(uri)) {
      return new LocalStorage(localPath(location, uri));
    }
    if (conf == null) {
      throw new IllegalStateException("no Hadoop configuration to open " + location + " with");
    }
    try {
      return new HadoopStorage(location, conf);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot open the dataset location " + location + ": " + e.getMessage() + hint(e, uri), e);
    }
  }

  /**
   * What keeps a location that holds no dataset from becoming one: null if it is absent or an empty
   * directory (or a directory with only leftovers of Riffle's own, which hold no top-level file),
   * else what is there, for the message. A dataset keeps its files in subdirectories, so a file
   * directly under the root (a Parquet part, a _SUCCESS marker) belongs to something else.
   */
  static String foreignContent(Storage storage) throws IOException {
    boolean file;
    if (storage instanceof LocalStorage) {
      Path root = ((LocalStorage) storage).root();
      file = Files.exists(root) && !Files.isDirectory(root);
    } else if (storage instanceof HadoopStorage) {
      HadoopStorage h = (HadoopStorage) storage;
      org.apache.hadoop.fs.FileStatus status;
      try {
        status = h.fileSystem().getFileStatus(h.root());
      } catch (java.io.FileNotFoundException e) {
        return null;
      }
      file = status.isFile();
    } else {
      file = false;
    }
    if (file) {
      return "is a file, not a directory";
    }
    java.util.List<String> names = storage.list("");
    if (names.isEmpty()) {
      return null;
    }
    return "holds files that are not part of a Riffle dataset ("
        + String.join(", ", names.subList(0, Math.min(3, names.size())))
        + (names.size() > 3 ? ", ..." : "")
        + ")";
  }

  /** What to add to the cluster when the scheme's file system is missing from the class path. */
  private static String hint(Throwable e, URI uri) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ClassNotFoundException
          || t instanceof org.apache.hadoop.fs.UnsupportedFileSystemException) {
        return "s3a".equalsIgnoreCase(uri.getScheme())
            ? " (s3a: needs hadoop-aws on the class path: spark-submit --packages"
                + " org.apache.hadoop:hadoop-aws:3.5.0)"
            : " (no Hadoop file system for the scheme " + uri.getScheme() + " on the class path)";
      }
    }
    return "";
  }

  private static boolean isLocal(URI uri) {
    return "file".equalsIgnoreCase(uri.getScheme());
  }

  /** The location as a URI if it has a scheme, else null (a local path). */
  private static URI schemeUri(String location) {
    if (location == null || location.isBlank()) {
      throw new IllegalArgumentException(
          "riffle needs a dataset location: spark.read.format(\"riffle\").load(path) or"
              + " df.write.format(\"riffle\").save(path)");
    }
    int colon = location.indexOf(':');
    int slash = location.indexOf('/');
    boolean hasScheme = colon > 1 && (slash < 0 || colon < slash);
    if (!hasScheme) {
      return null;
    }
    try {
      return new URI(location);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a valid dataset URI: " + location, e);
    }
  }

  private static Path localPath(String location, URI uri) {
    return uri == null ? Paths.get(location) : Paths.get(uri);
  }
}
