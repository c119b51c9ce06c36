package dev.riffle.stage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * Where things are in a staging cache directory.
 *
 * <pre>
 * CACHE/blobs/&lt;sha256&gt;                          a verified file, named by the SHA-256 of its bytes;
 *                                                read-only, never modified, only evicted
 * CACHE/snapshots/&lt;id&gt;/&lt;version&gt;/data/&lt;name&gt;    hard links to blobs (a copy where links fail)
 * CACHE/snapshots/&lt;id&gt;/&lt;version&gt;/_versions/…   the version's manifest, byte for byte
 * CACHE/snapshots/&lt;id&gt;/&lt;version&gt;/SOURCE        where it was staged from (kept on eviction)
 * CACHE/snapshots/&lt;id&gt;/&lt;version&gt;/COMPLETE      written last: the view is served only if present
 * CACHE/tmp/&lt;sha256&gt;.&lt;pid&gt;.&lt;random&gt;.part        downloads in progress, unique per writer
 * CACHE/locks/&lt;key&gt;.lock                       OS file locks (single-flight per blob / view)
 * CACHE/leases/&lt;pid&gt;.&lt;random&gt;.lease            blobs in use by a live process: never evicted
 * CACHE/plans/&lt;pid&gt;.&lt;random&gt;.plan              blobs a live process reads next, one SHA-256 a
 *                                                line, soonest first (see {@link CachePlan})
 * </pre>
 *
 * {@code <id>} is the manifest's {@code datasetId} (or {@code uri-<hash>} of the dataset URI when
 * the id is unusable as a file name); {@code <version>} is the decimal version. Nothing in the
 * cache is trusted unless it got there by an atomic move after verification, so a crash at any
 * point leaves only {@code tmp/} and lock files behind, and those are reclaimed by the next stage.
 */
public final class CacheLayout {
  public static final String BLOBS_DIR = "blobs";
  public static final String SNAPSHOTS_DIR = "snapshots";
  public static final String TMP_DIR = "tmp";
  public static final String LOCKS_DIR = "locks";
  public static final String LEASES_DIR = "leases";
  public static final String PLANS_DIR = "plans";
  public static final String COMPLETE = "COMPLETE";

  /** A view's origin (source URI, version): written before the marker, kept when evicted. */
  public static final String SOURCE = "SOURCE";

  public static final String PART_SUFFIX = ".part";

  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern VERSION = Pattern.compile("[0-9]{1,18}");
  private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** The directories of a layout under its root. */
  private static final List<String> DIRS =
      List.of(BLOBS_DIR, SNAPSHOTS_DIR, TMP_DIR, LOCKS_DIR, LEASES_DIR, PLANS_DIR);

  private final Path root;

  /** A layout under {@code root}, which is created (with its subdirectories) if missing. */
  public CacheLayout(Path root) throws IOException {
    Files.createDirectories(root);
    // The real path keys the in-JVM lock map, so two spellings of one cache share locks.
    this.root = root.toRealPath();
    for (String d : DIRS) {
      Files.createDirectories(this.root.resolve(d));
    }
  }

  /**
   * The directories that {@link #CacheLayout(Path)} would create under {@code root} and above it,
   * deepest first: for a caller that removes them again (those still empty) when its stage fails,
   * so that a failed first stage leaves nothing behind.
   */
  public static List<Path> missingDirectories(Path root) {
    Path r = root.toAbsolutePath();
    List<Path> out = new ArrayList<>();
    for (String d : DIRS) {
      if (!Files.exists(r.resolve(d), LinkOption.NOFOLLOW_LINKS)) {
        out.add(r.resolve(d));
      }
    }
    for (Path p = r; p != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS); p = p.getParent()) {
      out.add(p);
    }
    return out;
  }

  public Path root() {
    return root;
  }

  public Path blobsDir() {
    return root.resolve(BLOBS_DIR);
  }

  public Path leasesDir() {
    return root.resolve(LEASES_DIR);
  }

  public Path plansDir() {
    return root.resolve(PLANS_DIR);
  }

  public Path snapshotsDir() {
    return root.resolve(SNAPSHOTS_DIR);
  }

  /**
   * The lock that orders eviction against new leases: an evictor holds it for a whole pass, a lease
   * while it is written, so a blob is never deleted between a reader's check and its lease.
   */
  Path evictLock() {
    return lockFile("evict");
  }

  public Path tmpDir() {
    return root.resolve(TMP_DIR);
  }

  /** The verified blob with this SHA-256 (which may not exist). */
  public Path blob(String sha256) {
    if (!SHA256.matcher(sha256).matches()) {
      throw new IllegalArgumentException("not a lower-case hex SHA-256: " + sha256);
    }
    return blobsDir().resolve(sha256);
  }

  /** Whether {@code s} is a blob name: a lower-case hex SHA-256. */
  static boolean isSha256(String s) {
    return SHA256.matcher(s).matches();
  }

  /** The view directory of one snapshot version. */
  public Path view(String snapshotId, long version) {
    return root.resolve(SNAPSHOTS_DIR).resolve(snapshotId).resolve(Long.toString(version));
  }

  /**
   * The cache holding a view, if {@code dir} is one: a {@code snapshots/<id>/<version>} directory
   * (decimal version) of a directory that has {@code blobs/} and {@code leases/}. Complete or not;
   * symbolic links are resolved first.
   */
  public static Optional<Path> cacheOf(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    Path real = dir.toRealPath();
    Path snapshots = real.getParent() == null ? null : real.getParent().getParent();
    if (snapshots == null
        || snapshots.getParent() == null
        || !SNAPSHOTS_DIR.equals(snapshots.getFileName().toString())
        || !VERSION.matcher(real.getFileName().toString()).matches()) {
      return Optional.empty();
    }
    Path root = snapshots.getParent();
    if (!Files.isDirectory(root.resolve(BLOBS_DIR))
        || !Files.isDirectory(root.resolve(LEASES_DIR))) {
      return Optional.empty();
    }
    return Optional.of(root);
  }

  /** A fresh, unique temporary file name for downloading a blob (not created). */
  Path newTemp(String sha256) {
    return tmpDir()
        .resolve(
            sha256
                + "."
                + ProcessHandle.current().pid()
                + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong())
                + PART_SUFFIX);
  }

  Path lockFile(String key) {
    return root.resolve(LOCKS_DIR).resolve(key + ".lock");
  }

  /** The pid that wrote a temporary file, or -1 if the name is not one of ours. */
  static long ownerOf(Path temp) {
    String[] parts = temp.getFileName().toString().split("\\.");
    if (parts.length != 4 || !("." + parts[3]).equals(PART_SUFFIX)) {
      return -1;
    }
    try {
      return Long.parseLong(parts[1]);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * The directory name for a dataset: its id when that is a safe file name, else a hash of its URI.
   */
  public static String snapshotId(String datasetId, String uri) {
    if (datasetId != null && SAFE_ID.matcher(datasetId).matches()) {
      return datasetId;
    }
    return "uri-" + sha256Hex(uri.getBytes(StandardCharsets.UTF_8)).substring(0, 24);
  }

  static String sha256Hex(byte[] bytes) {
    return HexFormat.of().formatHex(sha256().digest(bytes));
  }

  /** The SHA-256 of a file's bytes, as lower-case hex. */
  static String sha256Of(Path file) throws IOException {
    MessageDigest md = sha256();
    // A heap buffer: the JDK's SHA-256 intrinsic works on arrays.
    java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(1 << 20);
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
      while (ch.read(buf.clear()) >= 0) {
        md.update(buf.array(), 0, buf.position());
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** Makes new directory entries durable. */
  static void syncDirectory(Path dir) {
    dev.riffle.format.io.DurableFiles.syncDirectory(dir);
  }
}
