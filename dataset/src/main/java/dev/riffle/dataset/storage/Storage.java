package dev.riffle.dataset.storage;

import dev.riffle.format.io.RandomAccessSource;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.List;

/**
 * A place where a dataset lives: a local directory, an S3 prefix, an HDFS directory. Paths are
 * relative to the root and use '/' as separator. Implementations: {@link LocalStorage} here, and a
 * Hadoop {@code FileSystem} one in the {@code s3} module for every other scheme.
 *
 * <p>Published objects are never overwritten: data files get unique names from the writer, and
 * manifests are created with {@link #createIfAbsent}, the one operation that must be atomic.
 */
public interface Storage extends Closeable {

  /**
   * The root as a URI without a trailing slash, for messages and for resolving sources (e.g. {@code
   * file:/data/ds}).
   */
  String uri();

  /** The URI of an object under the root, for messages. */
  /** The server behind this storage, named in errors of requests that gave up; null if none. */
  default String endpoint() {
    return null;
  }

  default String uri(String path) {
    String root = uri();
    return root.endsWith("/") ? root + path : root + "/" + path;
  }

  /**
   * Opens an object for positional reads.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   */
  RandomAccessSource open(String path) throws IOException;

  /**
   * Opens an object again, as {@link #open} does, for a caller that already opened it: {@code
   * opened} is a source of the same path from this storage (it may be closed since). A storage that
   * looks an object up before opening it (S3: a HEAD request per open) takes the length from {@code
   * opened} instead, so that many streams of one object cost one lookup. The default opens afresh.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist (where the storage can tell
   *     without a read)
   */
  default RandomAccessSource openAgain(String path, RandomAccessSource opened) throws IOException {
    return open(path);
  }

  /**
   * Creates (or replaces) an object and returns a stream that writes it. The object may become
   * visible before the stream is closed (local files) or only at close (object stores); callers
   * give data files fresh names and publish them through a manifest, so neither matters. When
   * {@code close()} returns, the object is durable: on local disks its bytes and its directory
   * entry are synced (a manifest published next must not name a file that a power loss can empty),
   * on object stores the upload is complete.
   */
  OutputStream create(String path) throws IOException;

  /**
   * Writes a small object only if no object has that path, atomically: of two callers racing for
   * one path exactly one succeeds.
   *
   * @throws java.nio.file.FileAlreadyExistsException if the path exists (or another writer won)
   */
  void createIfAbsent(String path, byte[] content) throws IOException;

  /**
   * Writes a small object whole, replacing any object at that path, so that a reader sees the old
   * content or the new, never a part (writer leases are rewritten this way). The default writes
   * through {@link #create}, which suits object stores, where an object appears only once its
   * upload completes; local files override it with a synced temporary file renamed into place.
   */
  default void replace(String path, byte[] content) throws IOException {
    try (OutputStream out = create(path)) {
      out.write(content);
    }
  }

  /**
   * Reads a whole (small) object.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   */
  byte[] readAll(String path) throws IOException;

  /** Names (not paths) of the objects directly under a directory, sorted; empty if none. */
  List<String> list(String directory) throws IOException;

  /** Whether an object exists. */
  boolean exists(String path) throws IOException;

  /** Length in bytes of an object; {@link java.nio.file.NoSuchFileException} if absent. */
  long length(String path) throws IOException;

  /**
   * When an object was last written, by the storage's clock (the object store's, for S3): {@code
   * riffle gc} compares it with a grace period and with writers' leases.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   */
  Instant lastModified(String path) throws IOException;

  /** Deletes an object; no error if it is already gone. */
  void delete(String path) throws IOException;

  /**
   * An upload begun and neither completed nor aborted, such as the S3 multipart upload of a writer
   * that was killed: no listing shows it, yet the store keeps (and bills) its parts until it is
   * aborted.
   *
   * @param path the object it would have created, relative to the root
   * @param id the store's id of the upload
   * @param started when it was begun, by the store's clock
   */
  record PendingUpload(String path, String id, Instant started) {}

  /**
   * The uploads in progress under the root, for {@code riffle gc}; none by default (stores whose
   * writes leave nothing invisible behind).
   */
  default List<PendingUpload> pendingUploads() throws IOException {
    return List.of();
  }

  /**
   * Aborts an upload that {@link #pendingUploads} listed, freeing its parts; no error if it is
   * already gone.
   */
  default void abortUpload(PendingUpload upload) throws IOException {
    throw new UnsupportedOperationException(uri() + " has no pending uploads to abort");
  }
}
