package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An S3 endpoint where nothing listens, with the retry settings a user gets by default (issue 21,
 * item 3): {@code info} and {@code stage} say each retry on stderr and then fail with one error
 * that names the endpoint, after the bounded retries of {@code RetryPolicy}, not minutes of
 * silence. Needs no server: the port is closed on purpose.
 */
class DeadEndpointTest {
  @TempDir Path dir;
  String endpoint;

  @BeforeEach
  void deadEndpoint() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    endpoint = "http://127.0.0.1:" + port;
    // Only what RIFFLE_S3_* would set: S3A's retries and timeouts stay at Riffle's defaults.
    Locations.hadoopOverrides =
        Map.of(
            "fs.s3a.endpoint", endpoint,
            "fs.s3a.endpoint.region", "us-east-1",
            "fs.s3a.path.style.access", "true",
            "fs.s3a.connection.ssl.enabled", "false",
            "fs.s3a.aws.credentials.provider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
            "fs.s3a.access.key", "nobody",
            "fs.s3a.secret.key", "nothing");
  }

  @AfterEach
  void reset() {
    Locations.hadoopOverrides = Map.of();
  }

  private static void assertGaveUpNamingTheEndpoint(Cli.Result r, String endpoint) {
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err())
        .contains("gave up after")
        .contains("connection refused")
        .contains("endpoint " + endpoint)
        .doesNotContain("\tat ");
  }

  @Test
  void infoRetriesVisiblyThenNamesTheEndpoint() {
    long t0 = System.nanoTime();
    Cli.Result r = Cli.run("info", "s3a://riffle-test/nothing-here/ds");
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertGaveUpNamingTheEndpoint(r, endpoint);
    // A guard against hangs, far above the 15 s retry budget, not a timing claim.
    assertThat(seconds).isLessThan(90);
  }

  @Test
  void stageRetriesVisiblyThenNamesTheEndpoint() {
    long t0 = System.nanoTime();
    Cli.Result r =
        Cli.run(
            "stage",
            "s3a://riffle-test/nothing-here/ds",
            "--cache",
            dir.resolve("cache").toString(),
            "--progress",
            "plain");
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertGaveUpNamingTheEndpoint(r, endpoint);
    // Every retry is a line of its own, counted against the default 8 attempts.
    assertThat(r.err()).containsPattern("stage: retrying .* \\(1/8\\): connection refused");
    assertThat(seconds).isLessThan(90);
  }
}
