package dev.riffle.hadoop;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetContractTest;
import dev.riffle.hadoop.testing.LocalS3;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;

/**
 * The dataset contract (dataset module) on {@code s3a:} against the local Ceph RGW (skipped without
 * a server unless {@code RIFFLE_S3_REQUIRED=1}).
 */
class HadoopDatasetS3IT extends DatasetContractTest {
  private Configuration conf;
  private String bucket;

  @BeforeEach
  void connect() throws IOException {
    Map<String, String> s = LocalS3.settings();
    String endpoint = s.get("RIFFLE_S3_ENDPOINT");
    if (endpoint == null) {
      LocalS3.skipOrFail("no RIFFLE_S3_ENDPOINT and no /tmp/riffle-s3/env");
    }
    URI u = URI.create(endpoint);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(u.getHost(), u.getPort() > 0 ? u.getPort() : 80), 2000);
    } catch (IOException e) {
      LocalS3.skipOrFail(endpoint + " is not reachable (" + e + ")");
    }
    conf =
        HadoopStorage.s3aConfiguration(
            endpoint,
            s.getOrDefault("RIFFLE_S3_REGION", "us-east-1"),
            s.get("RIFFLE_S3_ACCESS_KEY"),
            s.get("RIFFLE_S3_SECRET_KEY"));
    conf.set("fs.s3a.retry.limit", "2");
    conf.set("fs.s3a.attempts.maximum", "2");
    bucket = s.getOrDefault("RIFFLE_S3_BUCKET", "riffle-test");
  }

  @Override
  protected int[] scanBatchSizes() {
    return new int[] {7, 333, 5000};
  }

  @Override
  protected Storage newStorage() throws IOException {
    return new HadoopStorage(
        "s3a://"
            + bucket
            + "/dataset-test/"
            + System.currentTimeMillis()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8),
        conf);
  }
}
