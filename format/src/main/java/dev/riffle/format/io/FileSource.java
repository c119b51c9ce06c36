package dev.riffle.format.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A local file read with positional reads ({@code pread}), safe for concurrent use. */
public final class FileSource implements RandomAccessSource {
  private final Path path;
  private final FileChannel channel;
  private final long length;

  private FileSource(Path path, FileChannel channel, long length) {
    this.path = path;
    this.channel = channel;
    this.length = length;
  }

  /** Opens a file for reading. */
  public static FileSource open(Path path) throws IOException {
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    try {
      return new FileSource(path, ch, ch.size());
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return path.toString();
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    long at = offset;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, at);
      if (n < 0) {
        throw new EOFException(path + ": end of file at offset " + at);
      }
      at += n;
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
