package dev.riffle.dataset.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.testing.ForwardingStorage;
import dev.riffle.format.io.RandomAccessSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
    try (var ds = dev.riffle.dataset.Dataset.open(storage, allocator);
        VectorSchemaRoot got = ds.take(new long[] {299, 300, 1199}, List.of("id"));
        Rows rows = new Rows(0, 400, 1)) {
      var id = rows.root.getVector("id");
      assertThat(got.getVector("id").getObject(0)).isEqualTo(id.getObject(299));
      assertThat(got.getVector("id").getObject(1)).isEqualTo(id.getObject(300));
      assertThat(got.getVector("id").getObject(2)).isEqualTo(id.getObject(399));
    }
    assertThat(storage.uri()).doesNotEndWith("/");
  }

  @Test
  void takesOnRemoteFilesReadEachFileInItsOwnThread() throws Exception {
    Storage local = newStorage();
    write(local, false, 4, 700, 1);
    Set<String> readers = ConcurrentHashMap.newKeySet();
    Storage remote = new RemoteLooking(local, readers, null);
    long[] rows = new long[300];
    Random random = new Random(7);
    for (int k = 0; k < rows.length; k++) {
      rows[k] = random.nextInt(2800);
    }
    try (Dataset plain = Dataset.open(local, allocator);
        Dataset far = Dataset.open(remote, allocator);
        VectorSchemaRoot expected = plain.take(rows, null);
        VectorSchemaRoot got = far.take(rows, null)) {
      assertThat(got.contentToTSVString()).isEqualTo(expected.contentToTSVString());
    }
    // Four files, each part on a thread of its own (the pool starts a thread per part).
    assertThat(readers.stream().filter(t -> t.startsWith("riffle-dataset-take#")).count())
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  void aFailingRemoteFileFailsTheTakeAndLeaksNothing() throws Exception {
    Storage local = newStorage();
    var manifest = write(local, false, 4, 700, 1);
    String broken = manifest.files().get(2).path();
    Storage remote = new RemoteLooking(local, ConcurrentHashMap.newKeySet(), broken);
    long[] rows = {5, 900, 1500, 2100, 2500, 10};
    try (Dataset far = Dataset.open(remote, allocator)) {
      // Opening reads the footer; the broken file fails only once data reads start.
      assertThatThrownBy(() -> far.take(rows, null))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(broken);
    }
  }

  /** A local directory whose files say they are remote; one file's data reads can fail. */
  private static final class RemoteLooking extends ForwardingStorage {
    private final Set<String> readerThreads;
    private final String failing;

    RemoteLooking(Storage inner, Set<String> readerThreads, String failing) {
      super(inner);
      this.readerThreads = readerThreads;
      this.failing = failing;
    }

    @Override
    public RandomAccessSource open(String path) throws IOException {
      boolean fail = path.equals(failing);
      return new ForwardingStorage.Source(inner.open(path)) {
        private int reads;

        @Override
        public void readFully(long offset, ByteBuffer dst) throws IOException {
          // The first reads are the open (head, tail and metadata); data reads come after.
          if (fail && ++reads > 3) {
            throw new IOException(name() + ": connection reset at offset " + offset);
          }
          Thread t = Thread.currentThread();
          readerThreads.add(t.getName() + "#" + t.getId());
          super.readFully(offset, dst);
        }

        @Override
        public boolean isRemote() {
          return true;
        }
      };
    }
  }
}
