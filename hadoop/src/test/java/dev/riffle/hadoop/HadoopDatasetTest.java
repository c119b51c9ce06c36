package dev.riffle.hadoop;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetContractTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dataset contract (dataset module) on {@code file:} through Hadoop's local file system; {@code
 * HadoopDatasetS3IT} runs it on {@code s3a:}.
 */
class HadoopDatasetTest {

  @Nested
  class FileScheme extends DatasetContractTest {
    @TempDir Path dir;

    @Override
    protected Storage newStorage() throws IOException {
      return new HadoopStorage(
          dir.resolve("ds-" + UUID.randomUUID()).toUri().toString(), new Configuration());
    }
  }
}
