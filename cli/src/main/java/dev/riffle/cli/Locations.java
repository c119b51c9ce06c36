package dev.riffle.cli;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.FileLayout;
import dev.riffle.format.io.FileSource;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.Schemes;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a command's {@code URI[@version]} argument names: a single Riffle file (a local path to a
 * regular file, handled as before datasets existed) or a dataset, either in a local directory
 * ({@link LocalStorage}) or under any Hadoop URI such as {@code s3a://bucket/prefix} ({@link
 * HadoopStorage}, configured from the {@code RIFFLE_S3_*} environment variables).
 */
final class Locations {
  private Locations() {}

  /**
   * Hadoop settings applied over the environment's, for tests: they run in-process, where the
   * {@code RIFFLE_S3_*} environment variables cannot be set. Empty in normal use.
   */
  static volatile Map<String, String> hadoopOverrides = Map.of();

  /** A URI scheme; two characters at least, so that a Windows drive letter is not one. */
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):");

  /**
   * A parsed location.
   *
   * @param uri the location as given, without the {@code @version} suffix
   * @param version the version after {@code @}, or null for the latest
   * @param path the local path, or null for a URI of another file system than {@code file:}
   */
  record Location(String uri, Long version, Path path) {
    /** A local regular file: a single Riffle file rather than a dataset. */
    boolean isFile() {
      return path != null && Files.isRegularFile(path);
    }

    /**
     * A local path to something that is neither a regular file nor a directory (a named pipe, a
     * device, a socket): read as a single file, it is refused before it is opened.
     */
    boolean isSpecial() {
      return path != null
          && version == null
          && Files.exists(path)
          && !Files.isRegularFile(path)
          && !Files.isDirectory(path);
    }

    /**
     * Whether {@code take} and {@code scan} should read this as a single file: a regular file, or a
     * missing local {@code *.riffle} path (so that a typo gets "no such file", as before).
     */
    boolean readsAsFile() {
      return isFile()
          || isSpecial()
          || (path != null
              && version == null
              && !Files.exists(path)
              && path.getFileName() != null
              && path.getFileName().toString().endsWith(".riffle"));
    }
  }

  /**
   * Parses {@code URI[@version]}. The suffix counts as a version only when everything after the
   * last '@' is digits, and not at all when the whole text names an existing local file, so that
   * '@' elsewhere (user info of a URI, a file name) keeps working.
   *
   * @throws IllegalArgumentException if the text is not a usable path or URI
   */
  static Location parse(String text) {
    if (text == null || text.isEmpty()) {
      throw new IllegalArgumentException("empty location");
    }
    Path whole = localPath(text, true);
    if (whole != null && Files.isRegularFile(whole)) {
      return new Location(text, null, whole);
    }
    Schemes.check(text);
    String base = text;
    Long version = null;
    int at = text.lastIndexOf('@');
    if (at >= 0 && at < text.length() - 1 && text.substring(at + 1).chars().allMatch(isDigit())) {
      base = text.substring(0, at);
      try {
        version = Long.parseLong(text.substring(at + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("version " + text.substring(at + 1) + " is too large");
      }
      if (base.isEmpty()) {
        throw new IllegalArgumentException("no location before @" + version);
      }
    }
    Path path = localPath(base, false);
    if (version != null && path != null && Files.isRegularFile(path)) {
      throw new IllegalArgumentException(
          base + " is a single Riffle file: it has no versions (drop the @" + version + ")");
    }
    return new Location(base, version, path);
  }

  private static java.util.function.IntPredicate isDigit() {
    return c -> c >= '0' && c <= '9';
  }

  /**
   * The local path of a location: the text itself when it has no scheme, the path of a {@code
   * file:} URI; null for other schemes (and, with {@code lenient}, for text that is no valid path).
   */
  private static Path localPath(String text, boolean lenient) {
    var m = SCHEME.matcher(text);
    try {
      if (!m.find()) {
        return Path.of(text);
      }
      if (!m.group(1).equalsIgnoreCase("file")) {
        return null;
      }
      return Paths.get(fileUri(text));
    } catch (URISyntaxException | IllegalArgumentException e) {
      if (lenient) {
        return null;
      }
      throw new IllegalArgumentException(
          "not a usable path or URI: " + text + " (" + e.getMessage() + ")", e);
    }
  }

  /** ASCII characters that a URI may hold as they are ('%' only as the start of an escape). */
  private static final String URI_ASCII =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=";

  /**
   * A {@code file:} URI, also as people type them: with a raw space or another character that a URI
   * must percent-encode ({@code file:///data/my cells}), which is encoded first; escapes such as
   * {@code %20} keep their meaning.
   */
  private static URI fileUri(String text) throws URISyntaxException {
    try {
      return new URI(text);
    } catch (URISyntaxException e) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        boolean escape =
            c == '%'
                && i + 2 < text.length()
                && HexFormat.isHexDigit(text.charAt(i + 1))
                && HexFormat.isHexDigit(text.charAt(i + 2));
        if (c >= 0x80 || URI_ASCII.indexOf(c) >= 0 || escape) {
          b.append(c);
        } else {
          b.append('%').append(HexFormat.of().withUpperCase().toHexDigits((byte) c));
        }
      }
      return new URI(b.toString());
    }
  }

  /** The storage of a dataset location (not checked to hold a dataset). */
  static Storage storage(Location loc) throws IOException {
    return storage(loc, false);
  }

  /** As {@link #storage(Location)}; {@code direct} reads local files with O_DIRECT. */
  static Storage storage(Location loc, boolean direct) throws IOException {
    if (loc.path() != null) {
      if (Files.isRegularFile(loc.path())) {
        // "OUT/" naming a file: a dataset there would fail on its first directory ("_leases: Not
        // a directory"); the file is left as it is.
        throw new IllegalArgumentException(
            loc.uri() + " is " + whatFile(loc.path()) + ", not a dataset directory");
      }
      return new LocalStorage(loc.path(), direct);
    }
    HadoopStorage h = HadoopStorage.open(loc.uri(), hadoopOverrides);
    // Every command says when it retries, so that a slow or dead server is never silence.
    h.retryListener(
        (what, attempt, max, cause) -> {
          System.err.println(
              "riffle: retrying " + what + " (" + attempt + "/" + max + "): " + cause);
          System.err.flush();
        });
    return h;
  }

  /**
   * Opens the storage of a location that must be a dataset, and checks that one is there.
   *
   * @param command the command, for the message when the location is a single file
   * @throws IllegalArgumentException if it is a single Riffle file
   * @throws IOException "no Riffle dataset at URI" if nothing was ever published there
   */
  static Storage openDataset(Location loc, String command) throws IOException {
    return openDataset(loc, command, false);
  }

  /** As {@link #openDataset(Location, String)}; {@code direct} reads local files with O_DIRECT. */
  static Storage openDataset(Location loc, String command, boolean direct) throws IOException {
    if (loc.isSpecial()) {
      FileSource.requireRegularFile(loc.path());
    }
    if (loc.isFile()) {
      throw new IllegalArgumentException(
          loc.uri()
              + " is "
              + whatFile(loc.path())
              + ", not a dataset; "
              + command
              + " works on datasets"
              + (isRiffleFile(loc.path()) ? " (for a file, see 'riffle inspect')" : ""));
    }
    Storage storage = storage(loc, direct);
    try {
      checkDataset(storage, loc);
      return storage;
    } catch (IOException | RuntimeException e) {
      storage.close();
      throw e;
    }
  }

  /**
   * What a local file is, by its first bytes, for messages: a single Riffle file, or a format that
   * {@code riffle convert} reads (with the command that does), or just a file.
   */
  static String whatFile(Path file) {
    byte[] head = head(file);
    if (isRiffleFile(file)) {
      return "a single Riffle file";
    }
    if (startsWith(head, new byte[] {(byte) 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'})) {
      return "an HDF5 file (AnnData .h5ad? 'riffle convert h5ad' makes a dataset of it)";
    }
    if (startsWith(head, "PAR1".getBytes(StandardCharsets.US_ASCII))) {
      return "a Parquet file ('riffle convert parquet' makes a dataset of it)";
    }
    if (startsWith(head, "ARROW1".getBytes(StandardCharsets.US_ASCII))) {
      return "an Arrow IPC file ('riffle convert arrow' makes a dataset of it)";
    }
    return "a file that is not in the Riffle format";
  }

  private static boolean isRiffleFile(Path file) {
    return startsWith(head(file), FileLayout.MAGIC);
  }

  private static byte[] head(Path file) {
    try (java.io.InputStream in = Files.newInputStream(file)) {
      return in.readNBytes(8);
    } catch (IOException e) {
      return new byte[0];
    }
  }

  private static boolean startsWith(byte[] b, byte[] prefix) {
    return b.length >= prefix.length
        && java.util.Arrays.equals(b, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** Fails with "no Riffle dataset at URI" if no version was ever published there. */
  static List<Long> checkDataset(Storage storage, Location loc) throws IOException {
    List<Long> versions = Dataset.versions(storage);
    if (versions.isEmpty()) {
      throw new IOException("no Riffle dataset at " + loc.uri());
    }
    return versions;
  }

  /**
   * The version a location names, checked to exist, or the latest.
   *
   * @throws IOException naming the versions there are, if the one asked for is not among them
   */
  static long version(Storage storage, Location loc) throws IOException {
    List<Long> versions = checkDataset(storage, loc);
    if (loc.version() == null) {
      return versions.get(versions.size() - 1);
    }
    if (!versions.contains(loc.version())) {
      throw new IOException(
          "no version "
              + loc.version()
              + " of "
              + loc.uri()
              + "; versions are "
              + listed(versions));
    }
    return loc.version();
  }

  /** Versions for a message: all of them, or the first and last few of a long history. */
  static String listed(List<Long> versions) {
    if (versions.size() <= 12) {
      return versions.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
    return listed(versions.subList(0, 5))
        + ", ..., "
        + listed(versions.subList(versions.size() - 5, versions.size()))
        + " ("
        + versions.size()
        + " versions)";
  }

  /** Rejects {@code @version} for commands that always work on the latest version or on all. */
  static void requireNoVersion(Location loc, String why) {
    if (loc.version() != null) {
      throw new IllegalArgumentException(
          "'" + loc.uri() + "@" + loc.version() + "': " + why + "; drop the @" + loc.version());
    }
  }
}
