package dev.riffle.writer;

import dev.riffle.format.io.LocalStorage;
import dev.riffle.format.io.Storage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The dataset contract on a local directory. */
class LocalDatasetTest extends DatasetContractTest {
  @TempDir Path dir;

  @Override
  protected Storage newStorage() throws IOException {
    return new LocalStorage(Files.createTempDirectory(dir, "ds"));
  }
}
