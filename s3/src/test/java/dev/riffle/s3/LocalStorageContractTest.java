package dev.riffle.s3;

import dev.riffle.format.io.LocalStorage;
import dev.riffle.format.io.Storage;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The reference implementation passes the same contract as {@link HadoopStorage}. */
class LocalStorageContractTest extends AbstractStorageContractTest {
  @TempDir Path dir;

  @Override
  protected Storage newStorage() {
    return new LocalStorage(dir.resolve("dataset"));
  }
}
