package dev.riffle.bench.s3;

import dev.riffle.hadoop.HadoopStorage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;

/**
 * The S3 server the staging and lazy benchmarks run against, found as the s3 module's tests find
 * the local Ceph RGW of {@code scripts/start-local-s3.sh}: the {@code RIFFLE_S3_*} environment
 * variables when {@code RIFFLE_S3_ENDPOINT} is set, else the start script's env file ({@code
 * $RIFFLE_S3_DIR/env}, by default {@code /tmp/riffle-s3/env}).
 */
final class LocalRgw {
  final String endpoint;
  final String region;
  final String accessKey;
  final String secretKey;
  final String bucket;

  private LocalRgw(Map<String, String> s) {
    endpoint = s.get("RIFFLE_S3_ENDPOINT");
    region = s.getOrDefault("RIFFLE_S3_REGION", "us-east-1");
    accessKey = s.get("RIFFLE_S3_ACCESS_KEY");
    secretKey = s.get("RIFFLE_S3_SECRET_KEY");
    bucket = s.getOrDefault("RIFFLE_S3_BUCKET", "riffle-test");
  }

  /** The server's settings; an IOException that says how to start it when there are none. */
  static LocalRgw find() throws IOException {
    Map<String, String> s = new HashMap<>();
    String endpoint = System.getenv("RIFFLE_S3_ENDPOINT");
    Path envFile = Path.of(System.getenv().getOrDefault("RIFFLE_S3_DIR", "/tmp/riffle-s3"), "env");
    if (endpoint != null && !endpoint.isBlank()) {
      System.getenv().forEach((k, v) -> s.put(k, v));
    } else if (Files.isReadable(envFile)) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(envFile)) {
        p.load(in);
      }
      p.stringPropertyNames().forEach(k -> s.put(k, p.getProperty(k).trim()));
    }
    if (s.get("RIFFLE_S3_ENDPOINT") == null) {
      throw new IOException(
          "no RIFFLE_S3_ENDPOINT in the environment and no "
              + envFile
              + ": start the local S3 server with scripts/start-local-s3.sh");
    }
    return new LocalRgw(s);
  }

  /** S3A settings for the server with up to {@code connections} pooled connections. */
  Configuration conf(int connections) {
    Configuration conf = HadoopStorage.s3aConfiguration(endpoint, region, accessKey, secretKey);
    conf.set("fs.s3a.connection.maximum", Integer.toString(connections));
    return conf;
  }
}
