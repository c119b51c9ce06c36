package dev.riffle.format.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Positional reads from an immutable byte sequence: a local file, an object in S3, a chunk cache.
 * Implementations must allow concurrent reads from many threads.
 */
public interface RandomAccessSource extends Closeable {

  /** The name shown in error messages: a path or URI. */
  String name();

  /** The length in bytes. */
  long length() throws IOException;

  /**
   * Reads exactly {@code dst.remaining()} bytes starting at {@code offset} into {@code dst},
   * advancing its position.
   *
   * @throws java.io.EOFException if the source ends first
   */
  void readFully(long offset, ByteBuffer dst) throws IOException;

  /**
   * Reads every range, in any order and possibly at once: each {@code dst} gets exactly its
   * remaining bytes from its offset, and its position advances. Ranges may overlap. The default
   * reads them one by one; remote sources fetch them together (coalesced, in parallel), which is
   * why a reader that knows all its ranges up front should pass them in one call when {@link
   * #isRemote()}.
   *
   * @throws java.io.EOFException if a range passes the end
   */
  default void readRanges(List<Range> ranges) throws IOException {
    for (Range r : ranges) {
      readFully(r.offset(), r.dst());
    }
  }

  /**
   * Whether each read is a request to a remote store (S3 and other object stores, or a cache in
   * front of one), so that one {@link #readRanges} call for many ranges costs about one round trip
   * while the same reads one by one cost one each. False for local files.
   */
  default boolean isRemote() {
    return false;
  }

  /** One range of a {@link #readRanges} call: {@code dst.remaining()} bytes at {@code offset}. */
  record Range(long offset, ByteBuffer dst) {
    public Range {
      if (offset < 0) {
        throw new IllegalArgumentException("negative offset " + offset);
      }
    }
  }

  /**
   * Whether reads into direct buffers are cheaper than into heap buffers (true for local files,
   * where a heap buffer costs an extra copy; false where the implementation copies through a byte
   * array anyway). Readers use it to choose their read buffers.
   */
  default boolean prefersDirectBuffers() {
    return false;
  }

  /**
   * Checks a read of {@code n} bytes at {@code offset} against a source of {@code length} bytes,
   * with the messages every implementation gives.
   *
   * @throws java.io.EOFException if the read passes the end
   */
  static void checkRange(String name, long length, long offset, int n) throws java.io.EOFException {
    if (offset < 0) {
      throw new IllegalArgumentException(name + ": negative offset " + offset);
    }
    if (offset > length - n) {
      throw new java.io.EOFException(
          name
              + ": read of "
              + n
              + " bytes at offset "
              + offset
              + " passes the end of the object ("
              + length
              + " bytes)");
    }
  }
}
