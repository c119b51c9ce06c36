package dev.riffle.dataset.write;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Publishes a manifest as the next version, atomically, or not at all. */
final class Publisher {
  private Publisher() {}

  /**
   * Writes {@code m} (whose version must be the next one) with create-if-absent.
   *
   * @throws ConcurrentPublishException if that version appeared meanwhile
   */
  static Manifest publish(Storage storage, Manifest m) throws IOException {
    byte[] json = ManifestCodec.write(m);
    // Check what we are about to publish the way a reader will.
    ManifestCodec.read(json, storage.uri(Manifest.path(m.version())), m.version());
    try {
      storage.createIfAbsent(Manifest.path(m.version()), json);
    } catch (FileAlreadyExistsException e) {
      throw new ConcurrentPublishException(storage.uri(), m.version(), e);
    }
    return m;
  }

  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
