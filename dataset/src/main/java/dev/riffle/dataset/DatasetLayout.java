package dev.riffle.dataset;

import java.util.regex.Pattern;

/**
 * Where things are under a dataset root (FORMAT.md §11).
 *
 * <pre>
 * ROOT/data/&lt;random hex&gt;.riffle                   data files, written once, never changed
 * ROOT/_versions/&lt;20-digit version&gt;.manifest.json  one manifest per published version
 * ROOT/_leases/&lt;writer id&gt;.lease                   a running writer's lease (JSON), which gc honours
 * </pre>
 *
 * Versions are zero-padded so that a listing sorts them; the highest is the latest.
 */
public final class DatasetLayout {
  private DatasetLayout() {}

  public static final String DATA_DIR = "data";
  public static final String VERSIONS_DIR = "_versions";
  public static final String MANIFEST_SUFFIX = ".manifest.json";
  public static final String DATA_SUFFIX = ".riffle";
  public static final String LEASES_DIR = "_leases";
  public static final String LEASE_SUFFIX = ".lease";

  private static final Pattern DATA_FILE_NAME =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*" + Pattern.quote(DATA_SUFFIX));

  /**
   * Whether a name under {@code data/} is one a writer gives a data file (§11.1); nothing else
   * there is Riffle's, and gc never touches it.
   */
  public static boolean isDataFileName(String name) {
    return DATA_FILE_NAME.matcher(name).matches();
  }

  /**
   * The schema metadata key under which a dataset writer records each data file's own path ({@code
   * data/<name>.riffle}): it makes every file's schema, and so its footer and footer CRC32C,
   * unique, even for files of identical content and layout, so that the manifest's {@code
   * footerCrc32c} tells any two files of a dataset apart (FORMAT.md §11.2).
   */
  public static final String FILE_PATH_KEY = "riffle.dataFile";

  /** Largest manifest accepted: S3 conditional creates are single PUTs, and it is read whole. */
  public static final int MAX_MANIFEST_BYTES = 64 << 20;

  /** The version a manifest file name stands for, or -1 if it is not a manifest name. */
  public static long versionOf(String fileName) {
    if (!fileName.endsWith(MANIFEST_SUFFIX)) {
      return -1;
    }
    String digits = fileName.substring(0, fileName.length() - MANIFEST_SUFFIX.length());
    if (digits.length() != 20 || !digits.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
