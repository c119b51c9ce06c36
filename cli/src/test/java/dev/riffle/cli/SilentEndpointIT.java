package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An S3 endpoint that accepts connections and never answers (a hung server, a black-holing
 * middlebox), with the settings a user gets (issue 21): {@code info} and {@code take} end on the
 * socket timeout (30 s) with one error that says so and names the endpoint, rather than hanging.
 * Needs no server; an IT because each case waits out the real timeout.
 */
class SilentEndpointIT {
  private ServerSocket silent;
  private final List<Socket> held = new CopyOnWriteArrayList<>();
  private String endpoint;

  @BeforeEach
  void silentEndpoint() throws IOException {
    silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!silent.isClosed()) {
                try {
                  // Kept open and never read from or written to.
                  held.add(silent.accept());
                } catch (IOException e) {
                  // Closed: done.
                }
              }
            },
            "silent-endpoint");
    t.setDaemon(true);
    t.start();
    endpoint = "http://127.0.0.1:" + silent.getLocalPort();
    // Only what RIFFLE_S3_* would set: timeouts and retries stay at Riffle's defaults.
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
  void close() throws IOException {
    Locations.hadoopOverrides = Map.of();
    silent.close();
    for (Socket s : held) {
      s.close();
    }
  }

  private void assertTimedOutNamingTheEndpoint(Cli.Result r, double seconds) {
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err())
        .contains("gave up after")
        .contains("timed out")
        .contains("endpoint " + endpoint)
        .doesNotContain("\tat ");
    assertThat(held).isNotEmpty();
    // A guard against hangs, not a timing claim: one 30 s socket timeout, then the 15 s retry
    // window is spent; the default 200 s timeout of S3A, or nested retries, would exceed it.
    assertThat(seconds).isLessThan(150);
  }

  // One command is enough here: every command opens a dataset through the same listing, and
  // hadoop's SilentServerS3IT covers a server that goes silent after the open. Each case waits out
  // the real 30 s socket timeout, which CI pays for.
  @Test
  void infoTimesOutNamingTheEndpoint() {
    long t0 = System.nanoTime();
    Cli.Result r = Cli.run("info", "s3a://riffle-test/i21/silent/ds");
    assertTimedOutNamingTheEndpoint(r, (System.nanoTime() - t0) / 1e9);
  }
}
