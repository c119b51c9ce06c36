package dev.riffle.dataset.write;

import java.io.IOException;

/** Another writer published the version this one was about to publish; nothing was published. */
public final class ConcurrentPublishException extends IOException {
  private static final long serialVersionUID = 1L;

  public ConcurrentPublishException(String uri, long version, Throwable cause) {
    super(
        "version "
            + version
            + " of "
            + uri
            + " was published by another writer first; this "
            + "writer published nothing (its data files are orphans that `riffle gc` removes)",
        cause);
  }
}
