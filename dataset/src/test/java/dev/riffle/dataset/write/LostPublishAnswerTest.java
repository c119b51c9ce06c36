package dev.riffle.dataset.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.testing.ForwardingStorage;
import dev.riffle.format.testing.RandomData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A manifest create whose answer is lost (the store created it; the writer saw a reset): the writer
 * fails, but must not delete the data files the published version names.
 */
class LostPublishAnswerTest {
  @TempDir Path dir;

  /** Creates manifests, then fails as a connection reset after the request would. */
  private static final class LosesAnswers extends ForwardingStorage {
    final boolean lands;

    LosesAnswers(Storage inner, boolean lands) {
      super(inner);
      this.lands = lands;
    }

    @Override
    public void createIfAbsent(String path, byte[] content) throws IOException {
      if (path.startsWith(DatasetLayout.VERSIONS_DIR + "/")) {
        if (lands) {
          inner.createIfAbsent(path, content);
        }
        throw new IOException(uri(path) + ": connection reset");
      }
      inner.createIfAbsent(path, content);
    }
  }

  private void writeAndFailToPublish(Storage storage) throws IOException {
    try (BufferAllocator a = new RootAllocator();
        DatasetWriter w =
            DatasetWriter.create(
                storage,
                KilledWriterTest.SCHEMA,
                null,
                DatasetOptions.defaults().withTargetFileBytes(32 * 1024));
        VectorSchemaRoot rows = RandomData.generate(KilledWriterTest.SCHEMA, 3000, 1, 0.1, a)) {
      for (int i = 0; i < 3; i++) {
        w.write(rows);
      }
      assertThatThrownBy(w::publish).isInstanceOf(IOException.class).hasMessageContaining("reset");
    }
  }

  @Test
  void filesOfAManifestThatLandedStay() throws Exception {
    LocalStorage local = new LocalStorage(dir);
    writeAndFailToPublish(new LosesAnswers(local, true));
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(local, a)) {
      Manifest m = d.manifest();
      assertThat(m.files()).isNotEmpty();
      for (Manifest.DataFile f : m.files()) {
        assertThat(local.length(f.path())).as(f.path()).isEqualTo(f.byteLength());
      }
      assertThat(d.totalRows()).isEqualTo(9000);
    }
  }

  @Test
  void filesOfAManifestThatDidNotLandAreLeftForGc() throws Exception {
    LocalStorage local = new LocalStorage(dir);
    writeAndFailToPublish(new LosesAnswers(local, false));
    assertThat(Dataset.versions(local)).isEmpty();
    List<String> left = local.list(DatasetLayout.DATA_DIR);
    assertThat(left).isNotEmpty();
    // Unreferenced and unleased: gc's to remove once they are past the grace period.
    assertThat(local.list(DatasetLayout.LEASES_DIR)).isEmpty();
  }

  /** A coordinator's publish (Spark's driver) whose answer is lost says so, by its type. */
  @Test
  void aCoordinatorsLostAnswerIsAnOutcomeUnknown() throws Exception {
    LocalStorage local = new LocalStorage(dir);
    List<Manifest.DataFile> files;
    try (BufferAllocator a = new RootAllocator();
        VectorSchemaRoot rows = RandomData.generate(KilledWriterTest.SCHEMA, 500, 3, 0.1, a);
        DatasetWriter w =
            DatasetWriter.forFiles(
                local, KilledWriterTest.SCHEMA, null, DatasetOptions.defaults(), "job-")) {
      w.write(rows);
      files = w.finishFiles();
    }
    assertThatThrownBy(
            () ->
                DatasetCommit.publish(
                    new LosesAnswers(local, true),
                    DatasetCommit.Mode.CREATE,
                    KilledWriterTest.SCHEMA,
                    null,
                    DatasetOptions.defaults(),
                    files))
        .isInstanceOf(PublishOutcomeUnknownException.class)
        .hasMessageContaining("version 1")
        .hasMessageContaining("reset");
    // It landed: the version is there, with every file it names.
    assertThat(Dataset.versions(local)).containsExactly(1L);
    for (Manifest.DataFile f : files) {
      assertThat(local.length(f.path())).isEqualTo(f.byteLength());
    }
  }
}
