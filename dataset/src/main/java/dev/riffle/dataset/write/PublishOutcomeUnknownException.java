package dev.riffle.dataset.write;

import java.io.IOException;

/**
 * Publishing a version failed other than by losing the race to another writer: the manifest's
 * create may have reached the store and its answer been lost, so the version may exist. The data
 * files it names must not be deleted; {@code riffle gc} removes them later if the version does not
 * exist.
 */
public final class PublishOutcomeUnknownException extends IOException {
  private static final long serialVersionUID = 1L;

  private PublishOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }

  /** For a failed create of {@code version}'s manifest at {@code uri}. */
  static PublishOutcomeUnknownException of(long version, String uri, Throwable cause) {
    return new PublishOutcomeUnknownException(
        "publishing version "
            + version
            + " of "
            + uri
            + " failed, and whether its manifest was created is not known (its data files are"
            + " kept; 'riffle gc' removes them if the version does not exist): "
            + cause.getMessage(),
        cause);
  }
}
