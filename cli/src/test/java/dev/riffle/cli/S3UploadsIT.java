package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.FaultProxy;
import dev.riffle.hadoop.testing.LocalS3;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.MultipartUploader;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UploadHandle;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Uploads to the local Ceph RGW, through a {@link FaultProxy}, with the settings a user gets (issue
 * 21): {@code riffle generate} through a broken upload says so on stderr like a read's retry and
 * publishes the dataset whole; {@code riffle gc} aborts the incomplete multipart uploads a killed
 * writer leaves, once older than the grace period, and no others. Skipped without the server unless
 * {@code RIFFLE_S3_REQUIRED=1}.
 */
class S3UploadsIT {
  private FaultProxy proxy;
  private String uri;

  @BeforeEach
  void start() throws IOException {
    URI server = LocalS3.endpoint();
    proxy = new FaultProxy(server.getHost(), server.getPort());
    Map<String, String> s = LocalS3.settings();
    // Only what RIFFLE_S3_* would set, with the proxy as the endpoint.
    Configuration conf =
        HadoopStorage.s3aConfiguration(
            proxy.endpoint(),
            s.getOrDefault("RIFFLE_S3_REGION", "us-east-1"),
            s.get("RIFFLE_S3_ACCESS_KEY"),
            s.get("RIFFLE_S3_SECRET_KEY"));
    Map<String, String> overrides = new HashMap<>();
    for (String key : DatasetS3IT.S3A_KEYS) {
      if (conf.get(key) != null) {
        overrides.put(key, conf.get(key));
      }
    }
    Locations.hadoopOverrides = Map.copyOf(overrides);
    uri = "s3a://" + LocalS3.bucket() + "/i21/cli-upload-fault/" + UUID.randomUUID();
  }

  @AfterEach
  void stop() throws IOException {
    if (proxy == null) {
      return; // skipped: no server
    }
    proxy.close();
    Locations.hadoopOverrides = Map.of();
    for (String u : List.of(uri, other())) {
      try (HadoopStorage h = direct(u)) {
        for (Storage.PendingUpload p : h.pendingUploads()) {
          h.abortUpload(p);
        }
        h.fileSystem().delete(h.root(), true);
      }
    }
  }

  /** A sibling of the dataset whose name starts like it. */
  private String other() {
    return uri + "-other";
  }

  private static HadoopStorage direct(String u) throws IOException {
    return new HadoopStorage(u, LocalS3.conf(LocalS3.endpoint().toString()));
  }

  /** Begins a multipart upload of {@code path} under {@code root}, with one part, and leaves it. */
  private static void startUpload(String root, String path) throws Exception {
    try (HadoopStorage h = direct(root)) {
      Path target = new Path(h.root(), path);
      MultipartUploader up = h.fileSystem().createMultipartUploader(h.root()).build();
      UploadHandle handle = FutureIO.awaitFuture(up.startUpload(target));
      byte[] part = new byte[100_000];
      FutureIO.awaitFuture(
          up.putPart(handle, 1, true, target, new ByteArrayInputStream(part), part.length));
    }
  }

  private static List<Storage.PendingUpload> pending(String root) throws IOException {
    try (HadoopStorage h = direct(root)) {
      return h.pendingUploads();
    }
  }

  @Test
  void gcAbortsIncompleteUploadsOnlyOnceOlderThanTheGracePeriod() throws Exception {
    Cli.Result g = Cli.run("generate", "sparse", uri, "--rows", "200", "--seed", "4");
    assertThat(g.exitCode()).as(g.err()).isZero();
    startUpload(uri, "data/killed.riffle");
    startUpload(other(), "data/x.riffle");

    // Begun just now: within the default grace period (1 h), so maybe a running writer's.
    Cli.Result fresh = Cli.run("gc", uri);
    assertThat(fresh.exitCode()).as(fresh.err()).isZero();
    assertThat(fresh.out())
        .contains("kept incomplete upload data/killed.riffle (begun ")
        .doesNotContain("abort");
    assertThat(pending(uri))
        .extracting(Storage.PendingUpload::path)
        .containsExactly("data/killed.riffle");

    Cli.Result dry = Cli.run("gc", uri, "--grace", "0", "--dry-run");
    assertThat(dry.exitCode()).as(dry.err()).isZero();
    assertThat(dry.out())
        .contains("would abort incomplete upload data/killed.riffle (begun ")
        .contains("1 incomplete upload to abort");
    assertThat(pending(uri)).hasSize(1);

    Cli.Result gc = Cli.run("gc", uri, "--grace", "0", "--json");
    assertThat(gc.exitCode()).as(gc.err()).isZero();
    JsonNode report = Json.MAPPER.readTree(gc.out());
    assertThat(report.get("uploadsAborted")).hasSize(1);
    assertThat(report.get("uploadsAborted").get(0).get("path").asText())
        .isEqualTo("data/killed.riffle");
    assertThat(report.get("uploadsKept")).isEmpty();
    assertThat(pending(uri)).isEmpty();
    // Not the dataset's: untouched, although its key starts with the dataset's.
    assertThat(pending(other()))
        .extracting(Storage.PendingUpload::path)
        .containsExactly("data/x.riffle");
    // The dataset itself is intact.
    Cli.Result v = Cli.run("validate", uri, "--deep");
    assertThat(v.exitCode()).as(v.out() + v.err()).isZero();
  }

  @Test
  void aBrokenUploadIsRetriedWithAProgressLine() {
    // The first connection to carry more than 256 KiB of request (a data file's PUT) is reset.
    proxy.resetUploadAfter(256 << 10);
    // Retry lines go to the process's stderr (Locations.storage), not picocli's writer.
    java.io.PrintStream saved = System.err;
    java.io.ByteArrayOutputStream stderr = new java.io.ByteArrayOutputStream();
    Cli.Result r;
    try {
      System.setErr(new java.io.PrintStream(stderr, true, java.nio.charset.StandardCharsets.UTF_8));
      r = Cli.run("generate", "sparse", uri, "--rows", "2000", "--seed", "3", "--files", "2");
    } finally {
      System.setErr(saved);
    }
    String err = r.err() + stderr.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(r.exitCode()).as(err).isZero();
    assertThat(proxy.faults.get()).isEqualTo(1);
    assertThat(err)
        .containsPattern(
            "riffle: retrying upload of \\Q" + uri + "/data/\\E[^ ]+\\.riffle \\(1/8\\): .+\n")
        .doesNotContain("\tat ");
    Cli.Result v = Cli.run("validate", uri, "--deep");
    assertThat(v.exitCode()).as(v.out() + v.err()).isZero();
  }
}
