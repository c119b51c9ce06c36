package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.testing.LocalS3;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.apache.hadoop.fs.statistics.StoreStatisticNames;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link HadoopStorage} against the storage contract on {@code s3a:}: the local Ceph RGW of {@code
 * scripts/start-local-s3.sh}, under a fresh prefix per run. Skipped when no server answers, unless
 * {@code RIFFLE_S3_REQUIRED=1}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HadoopStorageS3IT extends AbstractStorageContractTest {
  private final AtomicInteger counter = new AtomicInteger();
  private Configuration conf;
  private String runRoot;

  @BeforeAll
  void connect() throws IOException {
    Map<String, String> s = LocalS3.settings();
    String endpoint = s.get("RIFFLE_S3_ENDPOINT");
    if (endpoint == null) {
      LocalS3.skipOrFail(
          "no RIFFLE_S3_ENDPOINT in the environment and no env file /tmp/riffle-s3/env");
    }
    URI u = URI.create(endpoint);
    int port = u.getPort() > 0 ? u.getPort() : ("https".equals(u.getScheme()) ? 443 : 80);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(u.getHost(), port), 2000);
    } catch (IOException e) {
      LocalS3.skipOrFail(endpoint + " is not reachable (" + e + ")");
    }
    conf =
        HadoopStorage.s3aConfiguration(
            endpoint,
            s.getOrDefault("RIFFLE_S3_REGION", "us-east-1"),
            s.get("RIFFLE_S3_ACCESS_KEY"),
            s.get("RIFFLE_S3_SECRET_KEY"));
    // Fail fast rather than retry for minutes if the server dies mid-run.
    conf.set("fs.s3a.retry.limit", "2");
    conf.set("fs.s3a.attempts.maximum", "2");
    String bucket = s.getOrDefault("RIFFLE_S3_BUCKET", "riffle-test");
    runRoot =
        "s3a://"
            + bucket
            + "/hadoop-storage-test/"
            + System.currentTimeMillis()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterAll
  void removeRunPrefix() throws IOException {
    if (runRoot != null) {
      try (HadoopStorage s = new HadoopStorage(runRoot, conf)) {
        s.fileSystem().delete(s.root(), true);
      }
    }
  }

  @Override
  protected Storage newStorage() throws IOException {
    return new HadoopStorage(runRoot + "/t" + counter.incrementAndGet(), conf);
  }

  @Test
  void errorsAndNamesCarryTheUri() throws Exception {
    assertThat(storage.uri()).startsWith(runRoot);
    assertThatThrownBy(() -> storage.open("x/missing.bin"))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessage(storage.uri() + "/x/missing.bin");
    storage.createIfAbsent("m.json", "{}".getBytes(StandardCharsets.UTF_8));
    // The conditional PUT's 412 (atomic), not S3A's HEAD probe (check-then-act).
    assertThatThrownBy(() -> storage.createIfAbsent("m.json", new byte[] {2}))
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessage(storage.uri() + "/m.json")
        .hasCauseInstanceOf(RemoteFileChangedException.class);
    assertThat(storage.readAll("m.json")).asString(StandardCharsets.UTF_8).isEqualTo("{}");
    try (var src = storage.open("m.json")) {
      assertThat(src.name()).isEqualTo(storage.uri() + "/m.json");
    }
  }

  /** Each open looks the object up (a HEAD); opening it again from an opened source does not. */
  @Test
  void openAgainSendsNoHead() throws Exception {
    byte[] data = randomBytes(6, 100_000);
    write("h/obj.bin", data);
    HadoopStorage s3 = (HadoopStorage) storage;
    long before = metadataRequests(s3);
    try (var first = storage.open("h/obj.bin")) {
      assertThat(metadataRequests(s3) - before).isEqualTo(1);
      try (var second = storage.openAgain("h/obj.bin", first);
          var third = storage.openAgain("h/obj.bin", second)) {
        checkRead(third, data, 1_000, 50_000, 0);
        checkRead(second, data, 0, data.length, 0);
      }
    }
    assertThat(metadataRequests(s3) - before).isEqualTo(1);
  }

  private static long metadataRequests(HadoopStorage s3) {
    Long n =
        IOStatisticsSupport.retrieveIOStatistics(s3.fileSystem())
            .counters()
            .get(StoreStatisticNames.OBJECT_METADATA_REQUESTS);
    return n == null ? 0 : n;
  }

  @Test
  void createIfAbsentRefusesMultipartSizedContent() throws Exception {
    Configuration small = new Configuration(conf);
    small.set("fs.s3a.multipart.size", "5M");
    try (HadoopStorage s = new HadoopStorage(storage.uri(), small)) {
      byte[] big = new byte[5 << 20];
      assertThatThrownBy(() -> s.createIfAbsent("big.json", big))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(FileAlreadyExistsException.class)
          .hasMessageContaining("fs.s3a.multipart.size")
          .hasMessageContaining(storage.uri() + "/big.json");
      assertThat(s.exists("big.json")).isFalse();
      s.createIfAbsent("small.json", new byte[(5 << 20) - 1]);
      assertThat(s.length("small.json")).isEqualTo((5 << 20) - 1);
    }
  }
}
