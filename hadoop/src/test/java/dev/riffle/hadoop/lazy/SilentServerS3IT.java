package dev.riffle.hadoop.lazy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.FaultProxy;
import dev.riffle.hadoop.testing.LocalS3;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that goes silent (accepts connections, never answers) while a lazy dataset is open, with
 * the timeouts and retries a user gets (issue 21): a take ends on the socket timeout with an error
 * that says so and names the endpoint, within the retry policy's bounds. Skipped without the local
 * Ceph RGW unless {@code RIFFLE_S3_REQUIRED=1}.
 */
class SilentServerS3IT {
  @TempDir Path dir;
  private FaultProxy proxy;
  private Configuration direct;
  private String uri;
  private Manifest manifest;

  @BeforeEach
  void writeDataset() throws IOException {
    URI server = LocalS3.endpoint();
    direct = LocalS3.conf(server.toString());
    uri = "s3a://" + LocalS3.bucket() + "/i21/silent/" + UUID.randomUUID();
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      manifest = TestDatasets.write(s, 400_000, 200_000, 5);
    }
    proxy = new FaultProxy(server.getHost(), server.getPort());
  }

  @AfterEach
  void cleanUp() throws IOException {
    if (proxy == null) {
      return; // skipped: no server
    }
    proxy.close();
    try (HadoopStorage s = new HadoopStorage(uri, direct)) {
      s.fileSystem().delete(s.root(), true);
    }
  }

  @Test
  void takeFromASilentServerTimesOutNamingTheEndpoint() throws Exception {
    Manifest.DataFile f = manifest.files().get(0);
    try (LazyStorage lazy =
            new LazyStorage(
                new HadoopStorage(uri, LocalS3.conf(proxy.endpoint())), dir.resolve("chunks"));
        BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(lazy, a)) {
      // Pooled connections die; every new one is accepted and left unanswered.
      proxy.silent(true);
      proxy.resetAll();
      long t0 = System.nanoTime();
      Throwable e =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> d.take(new long[] {f.firstRow()}, null).close());
      double seconds = (System.nanoTime() - t0) / 1e9;
      assertThat(e)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("gave up after")
          .hasMessageContaining("timed out")
          .hasMessageContaining("endpoint " + proxy.endpoint());
      // A guard against hangs, not a timing claim: one 30 s socket timeout ends the 15 s window.
      assertThat(seconds).isLessThan(150);
    }
  }
}
