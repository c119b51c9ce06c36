package dev.riffle.dataset.storage;

import dev.riffle.format.io.DurableFiles;
import dev.riffle.format.io.FileSource;
import dev.riffle.format.io.RandomAccessSource;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/**
 * A dataset in a local directory, read and written with java.nio.
 *
 * <p>Data files can be read with O_DIRECT: a dataset much larger than RAM gains nothing from the
 * page cache when read in random blocks, and O_DIRECT saves the kernel's copy of every byte and its
 * page-cache churn (see {@link FileSource#open(Path, boolean)}).
 */
public final class LocalStorage implements Storage {
  private final Path root;
  private final boolean direct;

  /** Uses {@code root} as the dataset directory (created on the first write). */
  public LocalStorage(Path root) {
    this(root, false);
  }

  /**
   * Uses {@code root} as the dataset directory; {@code direct} opens files for reading with
   * O_DIRECT where the file system allows it (else through the page cache).
   */
  public LocalStorage(Path root, boolean direct) {
    this.root = root.toAbsolutePath().normalize();
    this.direct = direct;
  }

  /** The dataset directory. */
  public Path root() {
    return root;
  }

  Path resolve(String path) {
    if (path.startsWith("/") || path.contains("..") || path.contains("\\")) {
      throw new IllegalArgumentException("not a relative dataset path: " + path);
    }
    return root.resolve(path);
  }

  @Override
  public String uri() {
    // Path.toUri() ends with '/' only once the directory exists; keep one spelling throughout.
    String u = root.toUri().toString();
    return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
  }

  @Override
  public RandomAccessSource open(String path) throws IOException {
    return FileSource.open(resolve(path), direct);
  }

  /**
   * Opens the file for writing; {@code close()} forces its bytes to stable storage ({@code fsync})
   * and syncs its directory before it returns, so that a version published after it cannot name a
   * file that a crash empties (the manifest itself is synced by {@link #createIfAbsent}).
   */
  @Override
  public OutputStream create(String path) throws IOException {
    Path p = resolve(path);
    createDirectories(p.getParent());
    FileChannel ch =
        FileChannel.open(
            p,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
    return new DurableStream(ch, p);
  }

  /**
   * Creates a directory and its missing parents, syncing the parent of each one created: a new
   * directory entry is durable only once its parent is synced.
   */
  private static void createDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    List<Path> missing = new ArrayList<>();
    for (Path d = dir; d != null && !Files.isDirectory(d); d = d.getParent()) {
      missing.add(d);
    }
    Files.createDirectories(dir);
    for (Path d : missing) {
      if (d.getParent() != null) {
        DurableFiles.syncDirectory(d.getParent());
      }
    }
  }

  /** A file stream that syncs the file and its directory on close. */
  private static final class DurableStream extends OutputStream {
    private final FileChannel channel;
    private final OutputStream out;
    private final Path path;
    private boolean closed;

    DurableStream(FileChannel channel, Path path) {
      this.channel = channel;
      this.out = Channels.newOutputStream(channel);
      this.path = path;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try (FileChannel ch = channel) {
        ch.force(true);
      }
      DurableFiles.syncDirectory(path.getParent());
    }
  }

  /**
   * Writes and syncs a temporary file, then hard-links it to the target: {@code link(2)} fails if
   * the target exists, which makes the publish atomic even between processes.
   */
  @Override
  public void createIfAbsent(String path, byte[] content) throws IOException {
    Path target = resolve(path);
    createDirectories(target.getParent());
    if (Files.exists(target)) {
      throw new FileAlreadyExistsException(target.toString());
    }
    Path temp = DurableFiles.writeTemp(target, content);
    try {
      Files.createLink(target, temp);
      DurableFiles.syncDirectory(target.getParent());
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** A synced temporary file renamed over the target, then the directory synced. */
  @Override
  public void replace(String path, byte[] content) throws IOException {
    Path target = resolve(path);
    createDirectories(target.getParent());
    Path temp = DurableFiles.writeTemp(target, content);
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      DurableFiles.syncDirectory(target.getParent());
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  @Override
  public byte[] readAll(String path) throws IOException {
    Path p = resolve(path);
    FileSource.requireRegularFile(p);
    return Files.readAllBytes(p);
  }

  @Override
  public List<String> list(String directory) throws IOException {
    Path dir = resolve(directory);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.filter(Files::isRegularFile).forEach(p -> names.add(p.getFileName().toString()));
    }
    Collections.sort(names);
    return names;
  }

  @Override
  public boolean exists(String path) {
    return Files.exists(resolve(path));
  }

  @Override
  public long length(String path) throws IOException {
    Path p = resolve(path);
    if (!Files.exists(p)) {
      throw new NoSuchFileException(p.toString());
    }
    return Files.size(p);
  }

  @Override
  public Instant lastModified(String path) throws IOException {
    return Files.getLastModifiedTime(resolve(path)).toInstant();
  }

  @Override
  public void delete(String path) throws IOException {
    Files.deleteIfExists(resolve(path));
  }

  @Override
  public void close() {}
}
