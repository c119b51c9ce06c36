package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.LocalS3;
import dev.riffle.hadoop.testing.TestDatasets;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.apache.hadoop.fs.statistics.StoreStatisticNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a stage asks the real Ceph RGW ({@code scripts/start-local-s3.sh}; skipped without it unless
 * {@code RIFFLE_S3_REQUIRED=1}), counted by S3A: one metadata lookup (HEAD) for the manifest and
 * one per object, however many streams read an object's parts in parallel.
 */
class S3StagingRequestsIT {
  @TempDir Path dir;

  @Test
  void oneMetadataLookupPerObjectAndOneForTheManifest() throws Exception {
    Configuration conf = LocalS3.conf(LocalS3.endpoint().toString());
    String uri = "s3a://" + LocalS3.bucket() + "/staging-requests-test/" + UUID.randomUUID();
    int partBytes = 256 << 10;
    try (HadoopStorage s3 = new HadoopStorage(uri, conf)) {
      try {
        Manifest m = TestDatasets.write(s3, 4_400_000, 2_200_000, 7);
        assertThat(m.files()).hasSize(2);
        // Each object in at least 8 parts, read by 4 threads: 4 streams an object.
        assertThat(m.files()).allMatch(f -> f.byteLength() > 7L * partBytes);
        StageOptions options = StageOptions.defaults().withPartBytes(partBytes).withThreads(4);
        long before = metadataRequests(s3);
        StageReport r = new SnapshotStager(dir.resolve("cache"), options).stage(s3, 1);
        assertThat(metadataRequests(s3) - before).isEqualTo(1 + m.files().size());
        assertThat(r.filesDownloaded()).isEqualTo(m.files().size());
        try (BufferAllocator a = new RootAllocator()) {
          assertThat(
                  DatasetValidator.validate(new LocalStorage(r.view()), 1, true, a, null)
                      .problems())
              .isEmpty();
        }
      } finally {
        s3.fileSystem().delete(s3.root(), true);
      }
    }
  }

  private static long metadataRequests(HadoopStorage s3) {
    IOStatistics stats = IOStatisticsSupport.retrieveIOStatistics(s3.fileSystem());
    Long n = stats.counters().get(StoreStatisticNames.OBJECT_METADATA_REQUESTS);
    return n == null ? 0 : n;
  }
}
