package dev.riffle.hadoop.lazy;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.hadoop.HadoopStorage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * A read-only view of a {@link HadoopStorage} whose objects are read through a local {@link
 * ChunkCache}: {@code Dataset.open(new LazyStorage(s3, cacheDir), allocator)} takes and scans
 * straight from {@code s3a://} without staging the snapshot, fetching only the chunks it touches,
 * once. Manifests and listings pass through ({@link #readAll}, {@link #list}); writes are refused.
 *
 * <p>Chunks are keyed by the object's URI and length. That is sound because Riffle never rewrites a
 * published data file (the writer gives every file a fresh name); do not share a chunk cache with
 * storages whose objects change in place.
 *
 * <p>Owns the wrapped storage: {@link #close} closes it.
 */
public final class LazyStorage implements Storage {
  private final HadoopStorage remote;
  private final LazyOptions options;
  private final LazyStats stats = new LazyStats();
  private final ChunkCache cache;

  /** {@link LazyOptions#defaults()}. */
  public LazyStorage(HadoopStorage remote, Path cacheDir) throws IOException {
    this(remote, cacheDir, LazyOptions.defaults());
  }

  /**
   * @param cacheDir the chunk cache directory (created if missing), on a local disk; processes may
   *     share it
   */
  public LazyStorage(HadoopStorage remote, Path cacheDir, LazyOptions options) throws IOException {
    this.remote = remote;
    this.options = options;
    this.cache = new ChunkCache(cacheDir, options.maxCacheBytes(), stats);
  }

  public LazyStats stats() {
    return stats;
  }

  public ChunkCache cache() {
    return cache;
  }

  public LazyOptions options() {
    return options;
  }

  /** The wrapped storage. */
  public HadoopStorage remote() {
    return remote;
  }

  @Override
  public String uri() {
    return remote.uri();
  }

  @Override
  public RandomAccessSource open(String path) throws IOException {
    HadoopStorage.OpenedObject o = remote.openStream(path);
    try {
      return new LazySource(
          o.name(),
          key(o.name(), o.length()),
          o.stream(),
          o.length(),
          cache,
          options,
          stats,
          remote);
    } catch (RuntimeException e) {
      o.stream().close();
      throw e;
    }
  }

  /** The chunk directory of an object: a hash of its URI and length. */
  static String key(String uri, long length) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest((uri + "#" + length).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private IOException readOnly(String path) {
    return new IOException(
        uri(path)
            + ": lazy storage is read-only (it reads through a chunk cache); write through "
            + "the underlying storage instead");
  }

  @Override
  public OutputStream create(String path) throws IOException {
    throw readOnly(path);
  }

  @Override
  public void createIfAbsent(String path, byte[] content) throws IOException {
    throw readOnly(path);
  }

  @Override
  public void delete(String path) throws IOException {
    throw readOnly(path);
  }

  @Override
  public byte[] readAll(String path) throws IOException {
    return remote.readAll(path);
  }

  @Override
  public List<String> list(String directory) throws IOException {
    return remote.list(directory);
  }

  @Override
  public boolean exists(String path) throws IOException {
    return remote.exists(path);
  }

  @Override
  public long length(String path) throws IOException {
    return remote.length(path);
  }

  @Override
  public Instant lastModified(String path) throws IOException {
    return remote.lastModified(path);
  }

  @Override
  public void close() throws IOException {
    remote.close();
  }

  @Override
  public String toString() {
    return "LazyStorage[" + uri() + ", cache " + cache.dir() + "]";
  }
}
