package dev.riffle.dataset.testing;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.RandomAccessSource;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;

/**
 * A storage that passes everything to another one: tests extend it (and {@link Source}) to count,
 * slow down or fail chosen operations of a real storage.
 */
public class ForwardingStorage implements Storage {
  protected final Storage inner;

  public ForwardingStorage(Storage inner) {
    this.inner = inner;
  }

  @Override
  public String uri() {
    return inner.uri();
  }

  @Override
  public RandomAccessSource open(String path) throws IOException {
    return inner.open(path);
  }

  @Override
  public OutputStream create(String path) throws IOException {
    return inner.create(path);
  }

  @Override
  public void createIfAbsent(String path, byte[] content) throws IOException {
    inner.createIfAbsent(path, content);
  }

  @Override
  public byte[] readAll(String path) throws IOException {
    return inner.readAll(path);
  }

  @Override
  public List<String> list(String directory) throws IOException {
    return inner.list(directory);
  }

  @Override
  public boolean exists(String path) throws IOException {
    return inner.exists(path);
  }

  @Override
  public long length(String path) throws IOException {
    return inner.length(path);
  }

  @Override
  public void replace(String path, byte[] content) throws IOException {
    inner.replace(path, content);
  }

  @Override
  public Instant lastModified(String path) throws IOException {
    return inner.lastModified(path);
  }

  @Override
  public void delete(String path) throws IOException {
    inner.delete(path);
  }

  @Override
  public void close() throws IOException {
    inner.close();
  }

  /** A source that passes everything to another one. */
  public static class Source implements RandomAccessSource {
    protected final RandomAccessSource inner;

    public Source(RandomAccessSource inner) {
      this.inner = inner;
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public long length() throws IOException {
      return inner.length();
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
      inner.readFully(offset, dst);
    }

    @Override
    public boolean isRemote() {
      return inner.isRemote();
    }

    @Override
    public boolean prefersDirectBuffers() {
      return inner.prefersDirectBuffers();
    }

    @Override
    public void close() throws IOException {
      inner.close();
    }
  }
}
