package dev.riffle.cli;

import dev.riffle.format.io.FileSource;
import dev.riffle.format.read.FileReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A reader together with the allocator that owns its memory, closed together and in the right order
 * (reader first: the allocator refuses to close while the reader's buffers are alive).
 */
final class OpenedFile implements AutoCloseable {
  private final BufferAllocator allocator;
  private final FileReader reader;

  private OpenedFile(BufferAllocator allocator, FileReader reader) {
    this.allocator = allocator;
    this.reader = reader;
  }

  /** Opens a Riffle file, with clear messages for the common ways a path can be wrong. */
  static OpenedFile open(Path path) throws IOException {
    String name = path.toString();
    if (!Files.exists(path) && name.matches("[a-zA-Z][a-zA-Z0-9+.-]+:/[^/].*")) {
      // A URI such as s3a://bucket/key reached us as a path (which keeps one slash of the two).
      String uri = name.replaceFirst(":/", "://");
      throw new IOException(
          uri
              + " is a URI: this command reads a local Riffle file. For a dataset there, 'riffle"
              + " info "
              + uri
              + "' shows its manifest and files; 'riffle stage URI --cache DIR' makes a local"
              + " copy whose files this command reads");
    }
    if (!Files.exists(path)) {
      throw new NoSuchFileException(path.toString());
    }
    if (Files.isDirectory(path)) {
      throw new IOException(path + " is a directory, not a Riffle file");
    }
    // Before opening: a named pipe would block the open until something writes to it.
    FileSource.requireRegularFile(path);
    BufferAllocator allocator = new RootAllocator();
    try {
      return new OpenedFile(allocator, FileReader.open(path, allocator));
    } catch (IOException | RuntimeException e) {
      allocator.close();
      throw e;
    }
  }

  FileReader reader() {
    return reader;
  }

  @Override
  public void close() throws IOException {
    try {
      reader.close();
    } finally {
      allocator.close();
    }
  }
}
