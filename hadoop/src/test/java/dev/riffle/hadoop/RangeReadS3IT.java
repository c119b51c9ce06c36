package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.read.FileReader;
import dev.riffle.hadoop.lazy.LazyStorageTest;
import dev.riffle.hadoop.testing.LocalS3;
import dev.riffle.hadoop.testing.TestDatasets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A take on {@code s3a:} (the local Ceph RGW; skipped without it unless {@code
 * RIFFLE_S3_REQUIRED=1}) is one {@code readVectored} call of {@link HadoopSource} and equals the
 * take from a local copy.
 */
class RangeReadS3IT {
  @TempDir Path dir;

  @Test
  void s3TakeIsOneVectoredReadAndEqualsALocalTake() throws Exception {
    Configuration conf = LocalS3.conf(LocalS3.endpoint().toString());
    String uri = "s3a://" + LocalS3.bucket() + "/range-read-test/" + UUID.randomUUID();
    try (HadoopStorage s3 = new HadoopStorage(uri, conf);
        BufferAllocator a = new RootAllocator()) {
      Manifest m = TestDatasets.write(s3, 1_500_000, 4_000_000, 31);
      assertThat(m.files()).hasSize(1);
      Manifest.DataFile f = m.files().get(0);
      Path local = dir.resolve("copy.riffle");
      Files.write(local, s3.readAll(f.path()));
      long[] rows = LazyStorageTest.randomRows(f.rowCount(), 48, 8);
      try (HadoopSource src = (HadoopSource) s3.open(f.path());
          FileReader remote = FileReader.open(src, false, a);
          FileReader plain = FileReader.open(new LocalStorage(dir).open("copy.riffle"), true, a)) {
        assertThat(src.isRemote()).isTrue();
        // The first take reads each column's search metadata; count the second one only.
        remote.take(new long[] {0}, null).close();
        long vectored = counter(src.ioStatistics(), "stream_read_vectored_operations");
        long opened = counter(src.ioStatistics(), "stream_read_opened");
        try (VectorSchemaRoot got = remote.take(rows, null);
            VectorSchemaRoot want = plain.take(rows, null)) {
          assertThat(LazyStorageTest.describe(got)).isEqualTo(LazyStorageTest.describe(want));
        }
        assertThat(counter(src.ioStatistics(), "stream_read_vectored_operations") - vectored)
            .isEqualTo(1);
        // No GET outside the vectored read.
        assertThat(counter(src.ioStatistics(), "stream_read_opened")).isEqualTo(opened);
      }
    }
  }

  private static long counter(IOStatistics stats, String name) {
    Long v = stats.counters().get(name);
    return v == null ? 0 : v;
  }
}
