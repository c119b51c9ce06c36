package dev.riffle.convert;

import dev.riffle.format.io.TempFiles;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.Schemes;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;

/**
 * An exported file, written under a temporary name next to its final one and renamed into place by
 * {@link #commit()}, so that a failed export leaves nothing behind under the final name.
 */
public final class OutputTarget implements AutoCloseable {
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+:");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String name;
  private final Path local;
  private final Path localTemp;
  private final FileSystem fs;
  private final org.apache.hadoop.fs.Path path;
  private final org.apache.hadoop.fs.Path temp;
  private final Configuration conf;
  private boolean committed;

  /** The directories {@link #open} made for the file, deepest first: removed again on failure. */
  private final List<Path> createdDirectories = new ArrayList<>();

  private OutputTarget(
      String name, Path local, FileSystem fs, org.apache.hadoop.fs.Path path, Configuration conf) {
    this.name = name;
    this.local = local;
    this.fs = fs;
    this.path = path;
    this.conf = conf;
    String suffix = ".tmp-" + HexFormat.of().formatHex(RANDOM.generateSeed(6));
    // Locally, a name that says which process writes it, so that what a killed export leaves is
    // found and removed (TempFiles); remote stores show nothing until the upload completes.
    this.localTemp = local == null ? null : TempFiles.newPath(local);
    this.temp =
        path == null
            ? null
            : new org.apache.hadoop.fs.Path(path.getParent(), "." + path.getName() + suffix);
  }

  /**
   * @param uri a local path or a Hadoop URI ({@code s3a://bucket/out.parquet})
   * @throws FileAlreadyExistsException if something is there already
   */
  public static OutputTarget open(String uri, Map<String, String> hadoopOverrides)
      throws IOException {
    Schemes.check(uri);
    if (SCHEME.matcher(uri).find() && !uri.startsWith("file:")) {
      Configuration conf = HadoopStorage.fromEnvironment();
      hadoopOverrides.forEach(conf::set);
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(uri);
      FileSystem fs = p.getFileSystem(conf);
      if (fs.exists(p)) {
        throw new FileAlreadyExistsException(uri, null, "exists already; choose another name");
      }
      return new OutputTarget(uri, null, fs, p, conf);
    }
    Path p = uri.startsWith("file:") ? Path.of(java.net.URI.create(uri)) : Path.of(uri);
    if (Files.exists(p)) {
      throw new FileAlreadyExistsException(uri, null, "exists already; choose another name");
    }
    Path parent = p.toAbsolutePath().getParent();
    List<Path> created = new ArrayList<>();
    for (Path d = parent; d != null && !Files.exists(d); d = d.getParent()) {
      created.add(d);
    }
    if (parent != null) {
      Files.createDirectories(parent);
    }
    OutputTarget t = new OutputTarget(uri, p.toAbsolutePath(), null, null, null);
    t.createdDirectories.addAll(created);
    return t;
  }

  public String name() {
    return name;
  }

  /** The temporary file, for parquet-mr. */
  OutputFile outputFile() throws IOException {
    return local != null ? new LocalOutputFile(localTemp) : HadoopOutputFile.fromPath(temp, conf);
  }

  /** A stream onto the temporary file. */
  OutputStream stream() throws IOException {
    return local != null ? Files.newOutputStream(localTemp) : fs.create(temp, false);
  }

  /** Moves the finished file into place; returns its length. */
  long commit() throws IOException {
    long length;
    if (local != null) {
      TempFiles.publish(localTemp, local);
      length = Files.size(local);
    } else {
      if (!fs.rename(temp, path)) {
        throw new IOException("cannot rename " + temp + " to " + path);
      }
      length = fs.getFileStatus(path).getLen();
    }
    committed = true;
    return length;
  }

  /** Deletes the temporary file, and the directories made for it, unless committed. */
  @Override
  public void close() throws IOException {
    if (committed) {
      return;
    }
    if (local != null) {
      TempFiles.discard(localTemp);
      for (Path d : createdDirectories) {
        try {
          Files.deleteIfExists(d);
        } catch (DirectoryNotEmptyException someoneElsesFiles) {
          break;
        }
      }
    } else {
      fs.delete(temp, false);
    }
  }
}
