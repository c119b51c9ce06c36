package dev.riffle.convert;

import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.Schemes;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * Expands what the user named into input files: files, directories (every file below, except hidden
 * ones and markers such as {@code _SUCCESS} and {@code .crc}), and globs, locally or on any Hadoop
 * file system ({@code s3a://}, {@code hdfs://}). As Hadoop's input formats do, a directory or glob
 * leaves out every name that starts with {@code _} or {@code .}, directories included: Spark and
 * Hadoop writers keep their markers ({@code _SUCCESS}, {@code _committed_*}), checksums ({@code
 * .part-0.parquet.crc}) and the files of unfinished or failed attempts ({@code _temporary/}, {@code
 * .spark-staging-*}) there, and reading those would add rows twice. A file named on its own is
 * always read. The order is the order of the arguments, then by name, so that a conversion is
 * reproducible.
 */
public final class SourceFiles {
  private SourceFiles() {}

  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+:");

  /**
   * @param hadoopOverrides Hadoop keys applied over {@link HadoopStorage#fromEnvironment()}
   * @throws NoSuchFileException if an argument names nothing
   */
  public static List<SourceFile> expand(List<String> specs, Map<String, String> hadoopOverrides)
      throws IOException {
    List<SourceFile> out = new ArrayList<>();
    Configuration conf = null;
    for (String spec : specs) {
      Schemes.check(spec);
      List<SourceFile> found;
      if (SCHEME.matcher(spec).find() && !spec.startsWith("file:")) {
        if (conf == null) {
          conf = HadoopStorage.fromEnvironment();
          hadoopOverrides.forEach(conf::set);
        }
        found = hadoop(spec, conf);
      } else {
        found =
            local(spec.startsWith("file:") ? Path.of(java.net.URI.create(spec)).toString() : spec);
      }
      if (found.isEmpty()) {
        if (!isGlob(spec) && !SCHEME.matcher(spec).find() && Files.isDirectory(Path.of(spec))) {
          // It exists: say why it gives nothing rather than "no such file".
          throw new InputException(
              spec, "no input files there (names starting with _ or . are left out)");
        }
        throw new NoSuchFileException(spec, null, "no input files there");
      }
      out.addAll(found);
    }
    return out;
  }

  private static boolean isGlob(String s) {
    return s.indexOf('*') >= 0 || s.indexOf('?') >= 0 || s.indexOf('[') >= 0 || s.indexOf('{') >= 0;
  }

  private static boolean visible(String fileName) {
    return !fileName.startsWith(".") && !fileName.startsWith("_") && !fileName.endsWith(".crc");
  }

  /** As {@link #visibleBelow(Path, Path)}, for the paths of a Hadoop file system. */
  private static boolean visibleBelow(String root, String file) {
    String below = file.startsWith(root) ? file.substring(root.length()) : file;
    for (String name : below.split("/")) {
      if (!name.isEmpty() && !visible(name)) {
        return false;
      }
    }
    return true;
  }

  /** Whether every name of {@code file} below {@code root} is {@link #visible}. */
  private static boolean visibleBelow(Path root, Path file) {
    for (Path name : root.relativize(file)) {
      if (!visible(name.toString())) {
        return false;
      }
    }
    return true;
  }

  private static List<SourceFile> local(String spec) throws IOException {
    List<Path> paths = new ArrayList<>();
    Path root = null; // the directory (or a glob's base) the files were found below
    if (isGlob(spec)) {
      // Walk from the deepest directory without glob characters.
      int cut = spec.length();
      for (char c : new char[] {'*', '?', '[', '{'}) {
        int i = spec.indexOf(c);
        if (i >= 0) {
          cut = Math.min(cut, i);
        }
      }
      int slash = spec.lastIndexOf('/', cut);
      Path base = Path.of(slash < 0 ? "." : spec.substring(0, Math.max(1, slash)));
      PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + spec);
      root = base;
      if (Files.isDirectory(base)) {
        try (Stream<Path> s = Files.walk(base)) {
          s.filter(Files::isRegularFile)
              .filter(p -> m.matches(slash < 0 ? base.relativize(p) : p))
              .filter(p -> visibleBelow(base, p))
              .forEach(paths::add);
        }
      }
    } else {
      Path p = Path.of(spec);
      if (Files.isDirectory(p)) {
        root = p;
        try (Stream<Path> s = Files.walk(p)) {
          s.filter(Files::isRegularFile).filter(f -> visibleBelow(p, f)).forEach(paths::add);
        }
      } else if (Files.isRegularFile(p)) {
        paths.add(p);
      } else if (Files.exists(p)) {
        // A named pipe would block the reader until something writes to it.
        throw new FileSystemException(
            spec, null, "not a regular file (a named pipe, a device or a socket) to convert");
      } else {
        throw new NoSuchFileException(spec);
      }
    }
    paths.sort(Comparator.comparing(Path::toString));
    List<SourceFile> out = new ArrayList<>();
    for (Path p : paths) {
      SourceFile f = SourceFile.local(p);
      out.add(root == null ? f : f.below(directoriesBetween(root, p)));
    }
    return out;
  }

  /** The names of the directories from {@code root} (exclusive) down to {@code file}'s. */
  private static List<String> directoriesBetween(Path root, Path file) {
    List<String> out = new ArrayList<>();
    Path rel = root.relativize(file);
    for (int i = 0; i + 1 < rel.getNameCount(); i++) {
      out.add(rel.getName(i).toString());
    }
    return out;
  }

  /** The path of a Hadoop glob's deepest directory without glob characters. */
  private static String globBase(String spec) {
    int cut = spec.length();
    for (char c : new char[] {'*', '?', '[', '{'}) {
      int i = spec.indexOf(c);
      if (i >= 0) {
        cut = Math.min(cut, i);
      }
    }
    int slash = spec.lastIndexOf('/', cut);
    return new org.apache.hadoop.fs.Path(spec.substring(0, Math.max(1, slash))).toUri().getPath();
  }

  /** As {@link #directoriesBetween(Path, Path)}, for the paths of a Hadoop file system. */
  private static List<String> directoriesBetween(String root, String file) {
    List<String> out = new ArrayList<>();
    String below = file.startsWith(root) ? file.substring(root.length()) : file;
    String[] names = below.split("/");
    for (int i = 0; i + 1 < names.length; i++) {
      if (!names[i].isEmpty()) {
        out.add(names[i]);
      }
    }
    return out;
  }

  private static List<SourceFile> hadoop(String spec, Configuration conf) throws IOException {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(spec);
    FileSystem fs = path.getFileSystem(conf);
    FileStatus[] matched = fs.globStatus(path);
    if (matched == null) {
      throw new NoSuchFileException(spec);
    }
    boolean glob = isGlob(spec);
    List<FileStatus> files = new ArrayList<>();
    Map<FileStatus, List<String>> directories = new java.util.IdentityHashMap<>();
    for (FileStatus st : matched) {
      if (glob && !visible(st.getPath().getName())) {
        continue;
      }
      if (st.isDirectory()) {
        String root = st.getPath().toUri().getPath();
        RemoteIterator<LocatedFileStatus> it = fs.listFiles(st.getPath(), true);
        while (it.hasNext()) {
          LocatedFileStatus f = it.next();
          if (f.isFile() && visibleBelow(root, f.getPath().toUri().getPath())) {
            files.add(f);
            directories.put(f, directoriesBetween(root, f.getPath().toUri().getPath()));
          }
        }
      } else {
        files.add(st);
        if (glob) {
          directories.put(st, directoriesBetween(globBase(spec), st.getPath().toUri().getPath()));
        }
      }
    }
    files.sort(Comparator.comparing(f -> f.getPath().toString()));
    List<SourceFile> out = new ArrayList<>();
    for (FileStatus f : files) {
      out.add(SourceFile.hadoop(f, conf).below(directories.get(f)));
    }
    return out;
  }
}
