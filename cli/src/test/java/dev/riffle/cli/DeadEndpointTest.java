package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * S3 endpoints that cannot serve a dataset, with the retry settings a user gets by default (issues
 * 18 item 11 and 21 item 3): every command fails with one error that names the endpoint and what
 * went wrong, after bounded retries, never with "no Riffle dataset" (the store did not say that
 * nothing is there) and never after minutes of silence. Needs no S3 server: the port is closed on
 * purpose, the host name cannot resolve ({@code .invalid}), or a plain HTTP server answers 404.
 */
class DeadEndpointTest {
  static final String URI = "s3a://riffle-test/nothing-here/ds";

  @TempDir Path dir;

  /** Only what RIFFLE_S3_* would set: S3A's retries and timeouts stay at Riffle's defaults. */
  private static void endpoint(String endpoint) {
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

  private static String refusingEndpoint() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return "http://127.0.0.1:" + s.getLocalPort();
    }
  }

  @AfterEach
  void reset() {
    Locations.hadoopOverrides = Map.of();
  }

  /**
   * One error line (retry lines aside: commands print those as they go) that says why, names the
   * endpoint, and does not claim that there is no dataset.
   */
  private static void assertOneLineNamingTheEndpoint(Cli.Result r, String endpoint, String why) {
    assertThat(r.exitCode()).isEqualTo(ErrorHandler.FAILURE);
    List<String> errors =
        r.errLines().stream().filter(l -> !l.matches("^(riffle|stage): retrying .*")).toList();
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0))
        .startsWith("riffle: ")
        .contains(why)
        .contains("endpoint " + endpoint)
        .doesNotContain("no Riffle dataset")
        .doesNotContain("\tat ");
  }

  /** Each command with {@code @} for the location and {@code OUT} for a local output file. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "info @",
        "ls @",
        "take @ --rows 0",
        "scan @",
        "load @",
        "validate @",
        "gc @",
        "split @ --fraction 0.5 --name a --seed 1",
        "export parquet @ OUT",
        "generate scalars @ --rows 10 --seed 1"
      })
  void everyCommandNamesARefusingEndpoint(String command) throws IOException {
    String endpoint = refusingEndpoint();
    endpoint(endpoint);
    String out = dir.resolve("out.parquet").toString();
    String[] args =
        java.util.Arrays.stream(command.split(" "))
            .map(w -> w.equals("@") ? URI : w.equals("OUT") ? out : w)
            .toArray(String[]::new);
    Cli.Result r = Cli.run(args);
    assertOneLineNamingTheEndpoint(r, endpoint, "connection refused");
    // A dead endpoint is not retried for the whole window of a server that answered once.
    assertThat(r.err()).contains("gave up after").contains("the endpoint never answered");
  }

  @Test
  void stageRetriesVisiblyThenNamesTheEndpoint() throws IOException {
    String endpoint = refusingEndpoint();
    endpoint(endpoint);
    Cli.Result r =
        Cli.run("stage", URI, "--cache", dir.resolve("cache").toString(), "--progress", "plain");
    assertOneLineNamingTheEndpoint(r, endpoint, "connection refused");
    // Every retry is a line of its own, counted against the default 8 attempts.
    if (!r.err().contains("gave up after 1 attempt ")) {
      assertThat(r.err()).containsPattern("stage: retrying .* \\(1/8\\): connection refused");
    }
  }

  @Test
  void anUnknownHostIsNamed() {
    String endpoint = "http://nosuchhost.invalid:7480";
    endpoint(endpoint);
    Cli.Result r = Cli.run("info", URI);
    assertOneLineNamingTheEndpoint(r, endpoint, "unknown host nosuchhost.invalid");
    assertThat(r.err()).contains("the endpoint never answered");
  }

  /**
   * A host that drops connection attempts, as an unroutable address does: a listening socket whose
   * accept queue is full (Linux then drops further SYNs). One attempt, bounded by the connect
   * timeout, and no retries: a server that never answered is not waited for again.
   */
  @Test
  void aHostThatDropsConnectionsIsNamedAfterOneAttempt() throws IOException {
    try (ServerSocket full = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      List<java.nio.channels.SocketChannel> queued = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open();
          c.configureBlocking(false);
          c.connect(full.getLocalSocketAddress());
          queued.add(c);
        }
        String endpoint = "http://127.0.0.1:" + full.getLocalPort();
        endpoint(endpoint);
        Cli.Result r = Cli.run("info", URI);
        assertOneLineNamingTheEndpoint(r, endpoint, "connect timed out");
        assertThat(r.err()).contains("gave up after 1 attempt ").contains("never answered");
      } finally {
        for (java.nio.channels.SocketChannel c : queued) {
          c.close();
        }
      }
    }
  }

  /**
   * What answered for an unroutable address in the sandbox this was found in: a web server (there a
   * network proxy) that says 404 to everything. S3 says 404 to a listing only for a missing bucket,
   * with an error code; a bare 404 is no answer about datasets.
   */
  @Test
  void aServerThatIsNotS3IsNotAnEmptyDataset() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(404, -1);
          exchange.close();
        });
    server.start();
    try {
      String endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
      endpoint(endpoint);
      for (String command : List.of("info", "ls", "gc")) {
        Cli.Result r = Cli.run(command, URI);
        assertOneLineNamingTheEndpoint(r, endpoint, "answered HTTP 404 to a bucket listing");
        assertThat(r.err()).doesNotContain("retrying");
      }
    } finally {
      server.stop(0);
    }
  }
}
