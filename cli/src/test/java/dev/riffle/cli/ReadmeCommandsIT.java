package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.riffle.datagen.H5adWriter;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.LocalS3;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's shell commands run as written: every {@code ./riffle} line of the fenced blocks from
 * "Using the CLI" up to "Reliability", in order, each through bash in one fresh directory where
 * {@code ./riffle} is the packaged jar (hence an IT: it runs after {@code package}). Each must exit
 * 0. Three things differ from a reader's run, all printed in the test's output: S3 blocks run
 * against the local Ceph RGW under a fresh prefix of its bucket (its RIFFLE_S3_* settings replace
 * the README's {@code export} line; skipped without a server unless RIFFLE_S3_REQUIRED=1); lines
 * naming an {@code .h5ad} file are skipped where no Python has anndata (as GenerateH5adTest is);
 * and {@code /nvme/riffle-cache} is a directory under the test's.
 */
class ReadmeCommandsIT {
  private static final Path README = Path.of("..", "README.md");
  private static final String FIRST = "## Using the CLI";
  private static final String END = "## Reliability";

  @TempDir Path dir;

  @Test
  void readmeShellBlocksRunInOrder() throws Exception {
    Path jar = Path.of("target", "riffle.jar").toAbsolutePath();
    assertThat(jar).as("the packaged CLI (mvn package)").isRegularFile();
    Path launcher = dir.resolve("riffle");
    Files.writeString(
        launcher,
        "#!/usr/bin/env bash\nexec '"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + "' --add-opens=java.base/java.nio=ALL-UNNAMED -jar '"
            + jar
            + "' \"$@\"\n");
    assertThat(launcher.toFile().setExecutable(true)).isTrue();

    Map<String, String> s3 = s3Settings();
    String prefix = "readme-it/" + System.currentTimeMillis() + "-" + UUID.randomUUID();
    String python = python();
    List<String> skipped = new ArrayList<>();
    int ran = 0;
    try {
      for (List<String> block : shellBlocks(Files.readAllLines(README))) {
        boolean onS3 = block.stream().anyMatch(l -> l.contains("s3a://"));
        if (onS3 && s3 == null) {
          skipped.addAll(block.stream().map(l -> l + "   [no local S3 server]").toList());
          continue;
        }
        for (String line : block) {
          if (line.startsWith("export RIFFLE_S3_") && s3 != null) {
            continue; // the local server's settings are in the environment instead
          }
          if (line.contains(".h5ad") && python == null) {
            skipped.add(line + "   [no Python with anndata]");
            continue;
          }
          assertThat(line).as("a README command this test can run").startsWith("./riffle ");
          String command =
              line.replace("/nvme/riffle-cache", dir.resolve("riffle-cache").toString());
          if (s3 != null) {
            command =
                command.replace("s3a://riffle-test/", "s3a://" + bucket(s3) + "/" + prefix + "/");
          }
          run(command, s3);
          ran++;
        }
      }
    } finally {
      if (s3 != null) {
        deleteDataset("s3a://" + bucket(s3) + "/" + prefix + "/cells", s3);
      }
    }
    System.out.println("ran " + ran + " README commands; skipped " + skipped.size() + ":");
    skipped.forEach(l -> System.out.println("  " + l));
    // A README without blocks, or a parser that finds none, must not pass quietly.
    assertThat(ran).as("README commands run").isGreaterThanOrEqualTo(30);
  }

  /** Runs one README line through bash in the test directory; fails naming it if it fails. */
  private void run(String line, Map<String, String> s3) throws Exception {
    Path out = dir.resolve(".out");
    Path err = dir.resolve(".err");
    ProcessBuilder pb =
        new ProcessBuilder("bash", "-c", line)
            .directory(dir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("RIFFLE_S3_"));
    if (s3 != null) {
      pb.environment().putAll(s3);
    }
    long start = System.nanoTime();
    Process p = pb.start();
    if (!p.waitFor(300, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("README command did not finish in 300 s: " + line);
    }
    System.out.printf(
        "%5.1f s  %s%n", (System.nanoTime() - start) / 1e9, line); // the run's log, not a check
    if (p.exitValue() != 0) {
      fail(
          "README command failed with exit code "
              + p.exitValue()
              + ": "
              + line
              + "\nstderr: "
              + tail(err)
              + "\nstdout: "
              + tail(out));
    }
  }

  private static String tail(Path file) throws IOException {
    String s = Files.readString(file, StandardCharsets.UTF_8);
    return s.length() > 2000 ? "..." + s.substring(s.length() - 2000) : s;
  }

  /**
   * The commands of the untagged fenced blocks between {@link #FIRST} and {@link #END}, one block a
   * list: backslash continuations joined, blank lines and whole-line comments left out.
   */
  static List<List<String>> shellBlocks(List<String> readme) {
    List<List<String>> blocks = new ArrayList<>();
    boolean inSection = false;
    List<String> block = null;
    StringBuilder continued = new StringBuilder();
    for (String line : readme) {
      if (block == null) {
        if (line.startsWith(FIRST)) {
          inSection = true;
        } else if (line.startsWith(END)) {
          break;
        } else if (inSection && line.equals("```")) {
          block = new ArrayList<>();
        }
        continue;
      }
      if (line.equals("```")) {
        if (!block.isEmpty()) {
          blocks.add(block);
        }
        block = null;
        continue;
      }
      if (line.endsWith("\\")) {
        continued.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      String whole = (continued + line).strip();
      continued.setLength(0);
      if (!whole.isEmpty() && !whole.startsWith("#")) {
        block.add(whole);
      }
    }
    return blocks;
  }

  /** The local S3 server's RIFFLE_S3_* settings, or null (then S3 blocks are skipped). */
  private static Map<String, String> s3Settings() throws IOException {
    Map<String, String> s = LocalS3.settings();
    String endpoint = s.get("RIFFLE_S3_ENDPOINT");
    boolean required = "1".equals(System.getenv("RIFFLE_S3_REQUIRED"));
    if (endpoint == null) {
      if (required) {
        fail("no RIFFLE_S3_ENDPOINT and RIFFLE_S3_REQUIRED=1");
      }
      return null;
    }
    URI u = URI.create(endpoint);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(u.getHost(), u.getPort() > 0 ? u.getPort() : 80), 2000);
    } catch (IOException e) {
      if (required) {
        fail(endpoint + " is not reachable and RIFFLE_S3_REQUIRED=1: " + e);
      }
      return null;
    }
    return s;
  }

  private static String bucket(Map<String, String> s3) {
    return s3.getOrDefault("RIFFLE_S3_BUCKET", "riffle-test");
  }

  private static String python() {
    try {
      return H5adWriter.python();
    } catch (IOException e) {
      return null;
    }
  }

  /** Removes what the S3 block wrote under the test's prefix. */
  private static void deleteDataset(String uri, Map<String, String> s3) throws IOException {
    Configuration conf =
        HadoopStorage.s3aConfiguration(
            s3.get("RIFFLE_S3_ENDPOINT"),
            s3.getOrDefault("RIFFLE_S3_REGION", "us-east-1"),
            s3.get("RIFFLE_S3_ACCESS_KEY"),
            s3.get("RIFFLE_S3_SECRET_KEY"));
    Map<String, String> overrides = new HashMap<>();
    for (String key : DatasetS3IT.S3A_KEYS) {
      if (conf.get(key) != null) {
        overrides.put(key, conf.get(key));
      }
    }
    try (Storage storage = HadoopStorage.open(uri, overrides)) {
      for (String d :
          List.of(DatasetLayout.DATA_DIR, DatasetLayout.VERSIONS_DIR, DatasetLayout.LEASES_DIR)) {
        for (String name : storage.list(d)) {
          storage.delete(d + "/" + name);
        }
      }
    }
  }
}
