package dev.riffle.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.io.LocalStorage;
import dev.riffle.format.io.Storage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dataset contract on a local directory. */
class LocalDatasetTest extends DatasetContractTest {
  @TempDir Path dir;

  @Override
  protected Storage newStorage() throws IOException {
    return new LocalStorage(Files.createTempDirectory(dir, "ds"));
  }

  @Test
  void rowTargetsSplitBatchesExactly() throws Exception {
    Storage storage = newStorage();
    try (Rows rows = new Rows(0, 400, 1);
        DatasetWriter w =
            DatasetWriter.create(
                storage,
                SCHEMA,
                rows.provider,
                DatasetOptions.defaults().withTargetFileRows(300))) {
      for (int b = 0; b < 3; b++) {
        w.write(rows.root);
      }
      var m = w.publish();
      assertThat(m.files().stream().map(f -> f.rowCount()).toList())
          .containsExactly(300L, 300L, 300L, 300L);
    }
    try (var ds = dev.riffle.format.dataset.Dataset.open(storage, allocator);
        VectorSchemaRoot got = ds.take(new long[] {299, 300, 1199}, List.of("id"));
        Rows rows = new Rows(0, 400, 1)) {
      var id = rows.root.getVector("id");
      assertThat(got.getVector("id").getObject(0)).isEqualTo(id.getObject(299));
      assertThat(got.getVector("id").getObject(1)).isEqualTo(id.getObject(300));
      assertThat(got.getVector("id").getObject(2)).isEqualTo(id.getObject(399));
    }
    assertThat(storage.uri()).doesNotEndWith("/");
  }
}
