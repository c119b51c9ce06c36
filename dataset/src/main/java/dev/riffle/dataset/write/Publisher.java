package dev.riffle.dataset.write;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

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

  /**
   * Checks that every file about to be published exists with its length: a version that names a
   * missing file (deleted by gc while the writer ran, by hand) must never appear.
   *
   * @param version the version about to be published, for the message (0: files handed over)
   */
  static void checkFiles(Storage storage, long version, List<Manifest.DataFile> files)
      throws IOException {
    for (Manifest.DataFile f : files) {
      String why;
      try {
        long length = storage.length(f.path());
        if (length == f.byteLength()) {
          continue;
        }
        why = "is " + length + " bytes, but " + f.byteLength() + " were written";
      } catch (NoSuchFileException e) {
        why = "is gone (deleted while the writer ran: by riffle gc --force, or by hand?)";
      }
      throw new IOException(
          (version > 0
                  ? "not publishing version " + version + " of "
                  : "not handing over files of ")
              + storage.uri()
              + ": its data file "
              + storage.uri(f.path())
              + " "
              + why
              + "; nothing was published");
    }
  }

  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
