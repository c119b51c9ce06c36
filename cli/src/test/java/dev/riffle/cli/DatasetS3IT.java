package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.LocalS3;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dataset commands on {@code s3a://}, against the local Ceph RGW of {@code
 * scripts/start-local-s3.sh} under a fresh prefix. Skipped when no server answers, unless {@code
 * RIFFLE_S3_REQUIRED=1}.
 */
class DatasetS3IT {
  /** The settings {@link HadoopStorage#s3aConfiguration} makes, passed on to the commands. */
  static final List<String> S3A_KEYS =
      List.of(
          "fs.s3a.endpoint",
          "fs.s3a.endpoint.region",
          "fs.s3a.path.style.access",
          "fs.s3a.connection.ssl.enabled",
          "fs.s3a.signing-algorithm",
          "fs.s3a.input.stream.type",
          "fs.s3a.aws.credentials.provider",
          "fs.s3a.access.key",
          "fs.s3a.secret.key");

  @TempDir Path dir;
  String root;

  @BeforeEach
  void connect() throws IOException {
    Map<String, String> s = settings();
    String endpoint = s.get("RIFFLE_S3_ENDPOINT");
    if (endpoint == null) {
      skipOrFail("no RIFFLE_S3_ENDPOINT in the environment and no env file /tmp/riffle-s3/env");
    }
    URI u = URI.create(endpoint);
    int port = u.getPort() > 0 ? u.getPort() : ("https".equals(u.getScheme()) ? 443 : 80);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(u.getHost(), port), 2000);
    } catch (IOException e) {
      skipOrFail(endpoint + " is not reachable (" + e + ")");
    }
    // In-process commands cannot see environment variables set for them: hand the settings the
    // RIFFLE_S3_* variables would give to the storage directly.
    Configuration conf =
        HadoopStorage.s3aConfiguration(
            endpoint,
            s.getOrDefault("RIFFLE_S3_REGION", "us-east-1"),
            s.get("RIFFLE_S3_ACCESS_KEY"),
            s.get("RIFFLE_S3_SECRET_KEY"));
    Map<String, String> overrides = new HashMap<>();
    for (String key : S3A_KEYS) {
      if (conf.get(key) != null) {
        overrides.put(key, conf.get(key));
      }
    }
    // Fail fast rather than retry for minutes if the server dies mid-run.
    overrides.put("fs.s3a.retry.limit", "2");
    overrides.put("fs.s3a.attempts.maximum", "2");
    Locations.hadoopOverrides = Map.copyOf(overrides);
    root =
        "s3a://"
            + s.getOrDefault("RIFFLE_S3_BUCKET", "riffle-test")
            + "/cli-dataset-test/"
            + System.currentTimeMillis()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
  }

  @AfterEach
  void cleanUp() throws IOException {
    try {
      if (root != null) {
        try (Storage storage = HadoopStorage.open(root, Locations.hadoopOverrides)) {
          for (String d : List.of(DatasetLayout.DATA_DIR, DatasetLayout.VERSIONS_DIR)) {
            for (String name : storage.list(d)) {
              storage.delete(d + "/" + name);
            }
          }
        }
      }
    } finally {
      Locations.hadoopOverrides = Map.of();
    }
  }

  @Test
  void generateLsTakeValidateOnS3() throws Exception {
    Cli.Result r =
        Cli.ok(
            "generate",
            "sparse",
            root,
            "--rows",
            "200",
            "--seed",
            "3",
            "--files",
            "2",
            "--page-bytes",
            "65536");
    assertThat(r.out()).startsWith("wrote 200 rows in 2 files (").contains(root, "version 1");

    JsonNode ls = Json.MAPPER.readTree(Cli.ok("ls", root, "--json").out());
    assertThat(ls.get("versions")).hasSize(1);
    assertThat(ls.get("versions").get(0).get("files").asInt()).isEqualTo(2);
    assertThat(ls.get("versions").get(0).get("rows").asLong()).isEqualTo(200);

    String single = dir.resolve("single.riffle").toString();
    Cli.ok("generate", "sparse", single, "--rows", "200", "--seed", "3", "--page-bytes", "65536");
    assertThat(Cli.ok("take", root + "@1", "--rows", "199,0,120").outLines())
        .isEqualTo(Cli.ok("take", single, "--rows", "199,0,120").outLines());
    // The same take through the lazy chunk cache, twice (cold, then from the cache).
    java.nio.file.Path chunks = java.nio.file.Files.createTempDirectory("riffle-lazy");
    System.setProperty("riffle.lazyCache", chunks.toString());
    try {
      for (int pass = 0; pass < 2; pass++) {
        assertThat(Cli.ok("take", root + "@1", "--rows", "199,0,120").outLines())
            .isEqualTo(Cli.ok("take", single, "--rows", "199,0,120").outLines());
      }
    } finally {
      System.clearProperty("riffle.lazyCache");
    }
    try (var files = java.nio.file.Files.walk(chunks)) {
      assertThat(files.filter(java.nio.file.Files::isRegularFile).count()).isPositive();
    }

    assertThat(Cli.ok("validate", root, "--deep").outLines())
        .singleElement()
        .asString()
        .startsWith("OK: version 1, 2 files, ")
        .endsWith("every page checked");
    assertThat(Cli.ok("split", root, "--name", "train", "--fraction", "0.5", "--seed", "1").out())
        .startsWith("published version 2 of ");
    assertThat(Cli.ok("gc", root, "--dry-run").out()).isEqualTo("no orphaned data files\n");
    Cli.Result missing = Cli.run("ls", root + "-nothing-here");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).isEqualTo("riffle: no Riffle dataset at " + root + "-nothing-here\n");
  }

  /**
   * convert parquet of an S3 prefix leaves out what Spark and Hadoop writers leave beside the data
   * (names starting with _ or . at any depth: attempts under _temporary/ and .spark-staging-*,
   * markers), as it does for local files; their rows would be read twice.
   */
  @Test
  void convertParquetOnS3LeavesOutHiddenNamesAtAnyDepth() throws Exception {
    String local = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", local, "--rows", "25", "--seed", "1");
    String in = root + "-parquet";
    try {
      for (String name :
          List.of(
              "a.parquet",
              "sub/b.parquet",
              "_temporary/0/part-9.parquet",
              ".spark-staging-1/part-8.parquet",
              "sub/_temporary/0/part-7.parquet",
              "sub/.hidden.parquet")) {
        Cli.ok("export", "parquet", local, in + "/" + name);
      }
      Cli.ok("export", "parquet", local, in + "/_SUCCESS");
      assertThat(Cli.ok("convert", "parquet", in, dir.resolve("all").toString()).out())
          .startsWith("converted 50 rows from 2 files ");
      // A glob: as Hadoop globs do, a matched directory (sub/) is read whole, here too without
      // its hidden names.
      assertThat(Cli.ok("convert", "parquet", in + "/*", dir.resolve("top").toString()).out())
          .startsWith("converted 50 rows from 2 files ");
      assertThat(Cli.ok("convert", "parquet", in + "/*.parquet", dir.resolve("a").toString()).out())
          .startsWith("converted 25 rows from 1 file ");
      // Named on its own, a file is read whatever its name.
      String attempt = in + "/_temporary/0/part-9.parquet";
      assertThat(Cli.ok("convert", "parquet", attempt, dir.resolve("one").toString()).out())
          .startsWith("converted 25 rows from 1 file ");
    } finally {
      deleteRecursively(in);
    }
  }

  /**
   * A partitioned prefix on S3 (key=value directories, as Spark writes one) keeps its key as a
   * column, through a prefix and through a glob, its %XX escapes decoded.
   */
  @Test
  void convertParquetOnS3KeepsPartitionColumns() throws Exception {
    String local = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", local, "--rows", "10", "--seed", "1");
    String in = root + "-partitioned";
    try {
      for (String name : List.of("tissue=lung/a.parquet", "tissue=bone%20marrow/b.parquet")) {
        Cli.ok("export", "parquet", local, in + "/" + name);
      }
      for (String spec : List.of(in, in + "/tissue=*/*.parquet")) {
        Path out = dir.resolve("p" + spec.length());
        assertThat(Cli.ok("convert", "parquet", spec, out.toString()).out())
            .startsWith("converted 20 rows from 2 files ")
            .endsWith("\ncolumns from the key=value directories of the input: tissue\n");
        assertThat(Cli.ok("info", out.toString()).out())
            .containsPattern("tissue +dictionary<values=utf8, indices=int8> +yes");
        String rows = Cli.ok("scan", out.toString(), "--columns", "tissue").out();
        assertThat(rows.lines().filter(l -> l.equals("{\"tissue\":\"bone marrow\"}"))).hasSize(10);
        assertThat(rows.lines().filter(l -> l.equals("{\"tissue\":\"lung\"}"))).hasSize(10);
      }
    } finally {
      deleteRecursively(in);
    }
  }

  /** A stage of a prefix with no dataset says so, and leaves no cache behind. */
  @Test
  void stageOfAPrefixWithNoDatasetLeavesNoCache() {
    Path cache = dir.resolve("new").resolve("cache");
    Cli.Result r = Cli.run("stage", root + "-nothing-here", "--cache", cache.toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).isEqualTo("riffle: no Riffle dataset at " + root + "-nothing-here\n");
    assertThat(dir.resolve("new")).doesNotExist();
  }

  private static void deleteRecursively(String uri) throws IOException {
    Configuration conf = new Configuration();
    Locations.hadoopOverrides.forEach(conf::set);
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(uri);
    try (FileSystem fs = FileSystem.newInstance(p.toUri(), conf)) {
      fs.delete(p, true);
    }
  }

  /** A missing bucket is said as such, at once: retrying cannot create it. */
  @Test
  void aMissingBucketIsNamedNotRetried() {
    String bucket = "riffle-no-such-bucket-" + UUID.randomUUID().toString().substring(0, 8);
    Cli.Result r = Cli.run("info", "s3a://" + bucket + "/ds");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err())
        .startsWith("riffle: listing s3a://" + bucket + "/ds/_versions: no bucket " + bucket)
        .contains(" at endpoint " + Locations.hadoopOverrides.get("fs.s3a.endpoint"))
        .doesNotContain("no Riffle dataset");
    assertThat(r.errLines()).hasSize(1);
  }

  /**
   * Lazy {@code scan --stats} and {@code load} say what they fetched, in take's figures: a cold
   * cache fetches, a warm one serves every read from the cache.
   */
  @Test
  void lazyScanAndLoadReportWhatTheyFetched() throws Exception {
    Cli.ok(
        "generate",
        "sparse",
        root,
        "--rows",
        "2000",
        "--seed",
        "5",
        "--files",
        "2",
        "--page-bytes",
        "65536");
    java.nio.file.Path chunks = dir.resolve("chunks");
    System.setProperty("riffle.lazyCache", chunks.toString());
    try {
      JsonNode cold = stats("scan", root, "--stats").get("lazy");
      assertThat(cold.get("gets").asLong()).isPositive();
      assertThat(cold.get("bytesFetched").asLong()).isPositive();
      assertThat(cold.get("fetchRounds").asLong()).isBetween(1L, cold.get("gets").asLong());
      assertThat(cold.get("cacheMisses").asLong()).isPositive();
      JsonNode warm = stats("scan", root, "--stats").get("lazy");
      assertThat(warm.get("gets").asLong()).isZero();
      assertThat(warm.get("bytesFetched").asLong()).isZero();
      assertThat(warm.get("cacheHits").asLong()).isPositive();

      String[] load = {"load", root, "--batch", "100", "--epochs", "1", "--seed", "1"};
      JsonNode loaded = Json.MAPPER.readTree(Cli.ok(concat(load, "--json")).out()).get("lazy");
      // The scan cached every byte of the data files: the load fetches nothing.
      assertThat(loaded.get("gets").asLong()).isZero();
      assertThat(loaded.get("cacheHits").asLong()).isPositive();
      System.setProperty("riffle.lazyCache", dir.resolve("chunks2").toString());
      String text = Cli.ok(load).out();
      assertThat(text).containsPattern("(?m)^lazy: [1-9][0-9,]* GETs?, .* fetched in [1-9]");
    } finally {
      System.clearProperty("riffle.lazyCache");
    }
  }

  /** The --stats object a command prints on stderr (it prints nothing else there). */
  private static JsonNode stats(String... args) throws IOException {
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode()).as(r.err()).isZero();
    return Json.MAPPER.readTree(r.err());
  }

  private static String[] concat(String[] a, String b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + 1);
    all[a.length] = b;
    return all;
  }

  static Map<String, String> settings() throws IOException {
    return LocalS3.settings();
  }

  static void skipOrFail(String why) {
    LocalS3.skipOrFail(why);
  }
}
