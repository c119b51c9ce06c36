package dev.riffle.hadoop;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileSystem;

/**
 * The URI schemes that the command line's datasets, files and conversion inputs may use, and the
 * one clear error for any other. Hadoop names more schemes than work: some map to classes that are
 * not on the class path ({@code gs}, {@code abfs}: a ClassNotFoundException deep inside Hadoop),
 * some cannot list or create ({@code http}: an UnsupportedOperationException without a message),
 * and S3 is {@code s3a} only ({@code s3} has no file system here). Locations are checked before
 * anything is opened. {@link HadoopStorage} itself takes any scheme: in a Spark cluster, other file
 * systems may well be on the class path.
 */
public final class Schemes {
  private Schemes() {}

  /**
   * Schemes with a file system here that lists, reads, creates and renames: local files, S3 and
   * S3-compatible stores through S3A, and HDFS with its REST gateways and mount tables.
   */
  public static final List<String> SUPPORTED =
      List.of("file", "s3a", "hdfs", "webhdfs", "swebhdfs", "viewfs");

  /** Schemes whose Hadoop file system is on the class path but cannot hold a dataset. */
  private static final List<String> UNUSABLE = List.of("http", "https", "ftp", "har");

  /** A URI scheme: two characters at least, so that a Windows drive letter is not one. */
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):");

  /** The scheme of a location, in lower case, or null for a plain path. */
  public static String of(String location) {
    Matcher m = SCHEME.matcher(location);
    return m.find() ? m.group(1).toLowerCase(Locale.ROOT) : null;
  }

  /**
   * Checks a location's scheme: one of {@link #SUPPORTED}, or another whose Hadoop file system is
   * on the class path (configured by {@link HadoopStorage#fromEnvironment()}).
   *
   * @throws IllegalArgumentException naming the location and the schemes that work, otherwise
   */
  public static void check(String location) {
    String scheme = of(location);
    if (scheme == null || SUPPORTED.contains(scheme)) {
      return;
    }
    String why = null;
    if (UNUSABLE.contains(scheme)) {
      why = "it cannot list or create files";
    } else {
      try {
        FileSystem.getFileSystemClass(scheme, HadoopStorage.fromEnvironment());
      } catch (Exception e) {
        // No file system for it, or one whose class is missing (Hadoop wraps that in a
        // RuntimeException).
        why = "no file system for it is installed";
      }
    }
    if (why == null) {
      return;
    }
    String hint =
        scheme.equals("s3") || scheme.equals("s3n")
            ? "; for S3 write s3a:" + location.substring(scheme.length() + 1)
            : "";
    throw new IllegalArgumentException(
        location
            + ": the URI scheme '"
            + scheme
            + "' is not supported ("
            + why
            + "); Riffle reads and writes "
            + supported()
            + hint);
  }

  /** The supported locations, for messages. */
  public static String supported() {
    return "local paths (or file: URIs), s3a:// (Amazon S3 and S3-compatible stores) and hdfs://"
        + " (also webhdfs://, swebhdfs://, viewfs://)";
  }
}
