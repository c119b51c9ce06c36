package dev.riffle.format.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Temporary files of writers that publish a local file by renaming it into place, under a name that
 * says whose they are, so that what a killed writer leaves behind can be found and removed:
 *
 * <pre>
 * .&lt;target name&gt;.&lt;pid&gt;.&lt;machine tag&gt;.&lt;8 random hex&gt;.riffle-tmp
 * </pre>
 *
 * The machine tag is {@link ProcessIdentity#machineTag()}: where it is this process's, the pid can
 * be checked, and a temporary file whose writer is gone is removed at once ({@link #abandoned});
 * elsewhere (another host sharing the directory) only age tells. Files are also deleted when the
 * JVM shuts down normally or on SIGTERM/SIGINT (a shutdown hook); SIGKILL leaves them for the next
 * writer in that directory or {@code riffle gc}.
 *
 * <p>Names of older writers, {@code .<name>.riffle.<hex>.tmp} ({@code FileWriter.create(Path)}) and
 * {@code .<name>.tmp-<12 hex>} (exports), carry no owner and are removed by age only.
 */
public final class TempFiles {
  private TempFiles() {}

  /** The suffix of every temporary file named here. */
  public static final String SUFFIX = ".riffle-tmp";

  private static final Pattern NAME =
      Pattern.compile(
          "\\.(.+)\\.([0-9]{1,19})\\.([0-9a-f]{8})\\.[0-9a-f]{8}" + Pattern.quote(SUFFIX));

  private static final Pattern LEGACY =
      Pattern.compile("\\.(.+\\.riffle)\\.[0-9a-f]{1,16}\\.tmp|\\.(.+)\\.tmp-[0-9a-f]{12}");

  private static final SecureRandom RANDOM = new SecureRandom();

  /** Temporary files of this process not yet published or discarded. */
  private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();

  private static volatile boolean hooked;

  /**
   * A fresh temporary path next to {@code target} (not created), removed at JVM shutdown unless
   * {@link #publish published} or {@link #discard discarded} first.
   */
  public static Path newPath(Path target) {
    Path abs = target.toAbsolutePath().normalize();
    ProcessIdentity me = ProcessIdentity.current();
    byte[] r = new byte[4];
    RANDOM.nextBytes(r);
    Path temp =
        abs.resolveSibling(
            "."
                + abs.getFileName()
                + "."
                + me.pid()
                + "."
                + me.machineTag()
                + "."
                + HexFormat.of().formatHex(r)
                + SUFFIX);
    register(temp);
    return temp;
  }

  private static void register(Path temp) {
    if (!hooked) {
      synchronized (TempFiles.class) {
        if (!hooked) {
          Runtime.getRuntime()
              .addShutdownHook(new Thread(TempFiles::deleteLive, "riffle-temp-files"));
          hooked = true;
        }
      }
    }
    LIVE.add(temp);
  }

  private static void deleteLive() {
    for (Path p : LIVE) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException | RuntimeException e) {
        // Shutting down; the next writer in the directory or `riffle gc` removes it.
      }
    }
  }

  /**
   * Makes a finished temporary file the target: forces its bytes to stable storage, renames it over
   * the target (atomically where the file system can) and syncs the directory, so that after a
   * crash the target is either the old file or the whole new one.
   */
  public static void publish(Path temp, Path target) throws IOException {
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
    LIVE.remove(temp);
    Path dir = target.toAbsolutePath().getParent();
    if (dir != null) {
      DurableFiles.syncDirectory(dir);
    }
  }

  /** Deletes a temporary file that will not be published (no error if it is gone). */
  public static void discard(Path temp) throws IOException {
    try {
      Files.deleteIfExists(temp);
    } finally {
      LIVE.remove(temp);
    }
  }

  /** Whether a file name is one of a temporary file, of this scheme or an older one. */
  public static boolean isTempName(String name) {
    return NAME.matcher(name).matches() || LEGACY.matcher(name).matches();
  }

  /**
   * A temporary file left behind.
   *
   * @param path the file
   * @param byteLength its length
   * @param why why it counts as abandoned, for messages
   */
  public record Leftover(Path path, long byteLength, String why) {}

  /**
   * The temporary files directly in {@code dir} whose writer is gone: those of this machine whose
   * pid no longer runs (or was reused), and, if {@code grace} is not null, any not modified for
   * {@code grace}. Files of this process that are still being written are never included.
   */
  public static List<Leftover> abandoned(Path dir, Duration grace, Instant now) throws IOException {
    List<Leftover> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    String myTag = ProcessIdentity.current().machineTag();
    long myPid = ProcessIdentity.current().pid();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, ".*")) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        Matcher m = NAME.matcher(name);
        boolean ours = m.matches();
        if (!ours && !LEGACY.matcher(name).matches()) {
          continue;
        }
        BasicFileAttributes a;
        try {
          a = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue;
        }
        if (!a.isRegularFile()) {
          continue;
        }
        Instant modified = a.lastModifiedTime().toInstant();
        String why = null;
        if (ours && m.group(3).equals(myTag)) {
          long pid = Long.parseLong(m.group(2));
          if (pid == myPid) {
            if (LIVE.contains(p.toAbsolutePath().normalize())) {
              continue;
            }
            // Not in flight here: an earlier process had this pid.
            why = "its writer, an earlier process " + pid + " on this host, is gone";
          } else if (ProcessIdentity.livenessAt(pid, modified) == ProcessIdentity.Liveness.GONE) {
            why = "its writer, process " + pid + " on this host, is gone";
          }
        }
        if (why == null && grace != null) {
          Duration age = Duration.between(modified, now);
          if (age.compareTo(grace) >= 0) {
            why = "not modified for " + Durations.format(age);
          }
        }
        if (why != null) {
          out.add(new Leftover(p, a.size(), why));
        }
      }
    }
    return out;
  }
}
