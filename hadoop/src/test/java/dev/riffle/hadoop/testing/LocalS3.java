package dev.riffle.hadoop.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.riffle.hadoop.HadoopStorage;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Assumptions;

/**
 * The local Ceph RGW of {@code scripts/start-local-s3.sh}, as {@code HadoopStorageS3IT} finds it:
 * environment variables, else the start script's env file. Tests skip without it unless {@code
 * RIFFLE_S3_REQUIRED=1}.
 */
public final class LocalS3 {
  private LocalS3() {}

  public static Map<String, String> settings() throws IOException {
    Map<String, String> s = new HashMap<>();
    String endpoint = System.getenv("RIFFLE_S3_ENDPOINT");
    if (endpoint != null && !endpoint.isBlank()) {
      for (String k :
          List.of(
              "RIFFLE_S3_ENDPOINT",
              "RIFFLE_S3_REGION",
              "RIFFLE_S3_ACCESS_KEY",
              "RIFFLE_S3_SECRET_KEY",
              "RIFFLE_S3_BUCKET")) {
        String v = System.getenv(k);
        if (v != null) {
          s.put(k, v);
        }
      }
      return s;
    }
    String dir = System.getenv().getOrDefault("RIFFLE_S3_DIR", "/tmp/riffle-s3");
    Path envFile = Paths.get(dir, "env");
    if (Files.isReadable(envFile)) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(envFile)) {
        p.load(in);
      }
      p.stringPropertyNames().forEach(k -> s.put(k, p.getProperty(k).trim()));
    }
    return s;
  }

  /** Skips the calling test, or fails it when RIFFLE_S3_REQUIRED=1. */
  public static void skipOrFail(String why) {
    String msg = "S3 tests need the local S3 server (scripts/start-local-s3.sh): " + why;
    if ("1".equals(System.getenv("RIFFLE_S3_REQUIRED"))) {
      fail(msg + " [RIFFLE_S3_REQUIRED=1]");
    }
    Assumptions.abort(msg + " -- skipped; set RIFFLE_S3_REQUIRED=1 to fail instead");
  }

  /** The server's endpoint, checked to answer, or the test is skipped (or fails). */
  public static URI endpoint() throws IOException {
    String endpoint = settings().get("RIFFLE_S3_ENDPOINT");
    if (endpoint == null) {
      skipOrFail("no RIFFLE_S3_ENDPOINT in the environment and no env file /tmp/riffle-s3/env");
    }
    URI u = URI.create(endpoint);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(u.getHost(), u.getPort() > 0 ? u.getPort() : 80), 2000);
    } catch (IOException e) {
      skipOrFail(endpoint + " is not reachable (" + e + ")");
    }
    return u;
  }

  public static String bucket() throws IOException {
    return settings().getOrDefault("RIFFLE_S3_BUCKET", "riffle-test");
  }

  /**
   * S3A settings for {@code endpoint} (the server, or a proxy in front of it), with the retries and
   * timeouts a user gets: {@code HadoopStorage} turns S3A's own retries off and bounds its
   * timeouts, so Riffle's {@code RetryPolicy} is the one under test.
   */
  public static Configuration conf(String endpoint) throws IOException {
    Map<String, String> s = settings();
    Configuration conf =
        HadoopStorage.s3aConfiguration(
            endpoint,
            s.getOrDefault("RIFFLE_S3_REGION", "us-east-1"),
            s.get("RIFFLE_S3_ACCESS_KEY"),
            s.get("RIFFLE_S3_SECRET_KEY"));
    conf.set("fs.s3a.connection.maximum", "64");
    return conf;
  }
}
