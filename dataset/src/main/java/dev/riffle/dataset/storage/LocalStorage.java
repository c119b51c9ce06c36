package dev.riffle.dataset.storage;

import dev.riffle.format.io.DurableFiles;
import dev.riffle.format.io.FileSource;
import dev.riffle.format.io.RandomAccessSource;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
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

  @Override
  public OutputStream create(String path) throws IOException {
    Path p = resolve(path);
    Files.createDirectories(p.getParent());
    return Files.newOutputStream(p);
  }

  /**
   * Writes and syncs a temporary file, then hard-links it to the target: {@code link(2)} fails if
   * the target exists, which makes the publish atomic even between processes.
   */
  @Override
  public void createIfAbsent(String path, byte[] content) throws IOException {
    Path target = resolve(path);
    Files.createDirectories(target.getParent());
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
  public void delete(String path) throws IOException {
    Files.deleteIfExists(resolve(path));
  }

  @Override
  public void close() {}
}
