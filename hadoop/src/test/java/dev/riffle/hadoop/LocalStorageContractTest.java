package dev.riffle.hadoop;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
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
