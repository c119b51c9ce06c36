package dev.riffle.format;

import java.io.IOException;

/**
 * The bytes of a Riffle file contradict the format: a bad magic, a checksum mismatch, a length or
 * offset that points outside its region, an unknown code. The message always names the resource and
 * the byte offset where the contradiction was found, so that a user can tell which file to replace.
 */
public class CorruptFileException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String resource;
  private final long offset;

  /**
   * @param resource the file or object name, as the user gave it
   * @param offset the absolute byte offset in the resource where the problem was found
   * @param message what is wrong, without the resource and offset (they are added)
   */
  public CorruptFileException(String resource, long offset, String message) {
    super(resource + " at offset " + offset + ": " + message);
    this.resource = resource;
    this.offset = offset;
  }

  /** Same as {@link #CorruptFileException(String, long, String)}, keeping the underlying cause. */
  public CorruptFileException(String resource, long offset, String message, Throwable cause) {
    super(resource + " at offset " + offset + ": " + message, cause);
    this.resource = resource;
    this.offset = offset;
  }

  /** The file or object name. */
  public String resource() {
    return resource;
  }

  /** The absolute byte offset where the problem was found. */
  public long offset() {
    return offset;
  }
}
