package dev.riffle.convert;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;

/**
 * One input file, local or on a Hadoop file system, as the converters read it: through a Parquet
 * {@link InputFile}, as a plain stream (hashing, Arrow IPC streams), or as a channel for positional
 * reads (Arrow IPC files).
 *
 * @param name the path or URI, as shown in messages and recorded in the provenance
 */
public record SourceFile(
    String name,
    long length,
    Path localPath,
    FileStatus status,
    Configuration conf,
    List<String> directories) {

  /**
   * @param directories the names of the directories between the directory or glob base the user
   *     named and the file, outermost first (empty for a file named on its own): where Hive-style
   *     partition values ({@code plate=p07}) are ({@link HivePartitions})
   */
  public SourceFile {
    directories = directories == null ? List.of() : List.copyOf(directories);
  }

  /** A local file. */
  public static SourceFile local(Path path) throws IOException {
    return new SourceFile(path.toString(), Files.size(path), path, null, null, List.of());
  }

  /** A file on a Hadoop file system. */
  public static SourceFile hadoop(FileStatus status, Configuration conf) {
    return new SourceFile(
        status.getPath().toString(), status.getLen(), null, status, conf, List.of());
  }

  /** This file, found below a directory the user named, inside {@code directories}. */
  SourceFile below(List<String> directories) {
    return new SourceFile(name, length, localPath, status, conf, directories);
  }

  /** The file for parquet-mr: Hadoop-free for local files. */
  InputFile inputFile() throws IOException {
    return localPath != null
        ? new LocalInputFile(localPath)
        : HadoopInputFile.fromStatus(status, conf);
  }

  /** A sequential stream over the whole file. */
  public InputStream open() throws IOException {
    if (localPath != null) {
      return Files.newInputStream(localPath);
    }
    FileSystem fs = status.getPath().getFileSystem(conf);
    return fs.open(status.getPath());
  }

  /**
   * A channel for positional reads, for formats read from their end (an Arrow IPC file's footer).
   */
  public SeekableByteChannel openChannel() throws IOException {
    if (localPath != null) {
      return Files.newByteChannel(localPath, StandardOpenOption.READ);
    }
    FileSystem fs = status.getPath().getFileSystem(conf);
    return new HadoopChannel(fs.open(status.getPath()), length);
  }

  /** A Hadoop stream as a read-only channel: seek, read, and the length its status gave. */
  private static final class HadoopChannel implements SeekableByteChannel {
    private final FSDataInputStream in;
    private final long length;
    private boolean open = true;

    HadoopChannel(FSDataInputStream in, long length) {
      this.in = in;
      this.length = length;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      if (!dst.hasRemaining()) {
        return 0;
      }
      byte[] buf = new byte[Math.min(dst.remaining(), 1 << 20)];
      int n = in.read(buf, 0, buf.length);
      if (n > 0) {
        dst.put(buf, 0, n);
      }
      return n;
    }

    @Override
    public int write(ByteBuffer src) {
      throw new NonWritableChannelException();
    }

    @Override
    public long position() throws IOException {
      return in.getPos();
    }

    @Override
    public SeekableByteChannel position(long newPosition) throws IOException {
      in.seek(newPosition);
      return this;
    }

    @Override
    public long size() {
      return length;
    }

    @Override
    public SeekableByteChannel truncate(long size) {
      throw new NonWritableChannelException();
    }

    @Override
    public boolean isOpen() {
      return open;
    }

    @Override
    public void close() throws IOException {
      open = false;
      in.close();
    }
  }

  /** The SHA-256 of the content, hex, for the provenance. */
  public String sha256() throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    try (InputStream in = new DigestInputStream(open(), md)) {
      byte[] buf = new byte[1 << 20];
      while (in.read(buf) >= 0) {
        // Only the digest matters.
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  @Override
  public String toString() {
    return name;
  }
}
