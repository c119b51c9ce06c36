package dev.riffle.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads what Riffle exported with readers of other implementations, run by Node: DuckDB ({@code
 * read-parquet.mjs}) and arrow-js ({@code read-arrow.mjs}), from src/test/resources/node. Node is
 * {@code $RIFFLE_NODE} if set, else {@code node}; tests are skipped, saying so, only where there is
 * none. The npm packages, pinned in that folder's package.json, are installed once into
 * target/node-readers (npm's cache makes later installs offline); a failed install fails the test
 * with npm's output rather than skipping it, so that CI, which has Node, always runs these.
 */
final class NodeReaders {
  private static final Path SOURCE = Path.of("src/test/resources/node");
  private static final Path HOME = Path.of("target/node-readers");
  private static String node;
  private static boolean looked;
  private static boolean installed;

  private NodeReaders() {}

  /** The Node to run; skips the calling test if there is none. */
  private static synchronized String node() {
    if (!looked) {
      looked = true;
      String chosen = System.getenv("RIFFLE_NODE");
      String candidate = chosen != null && !chosen.isBlank() ? chosen : "node";
      if (run(List.of(candidate, "--version"), Path.of("."), 60).exit == 0) {
        node = candidate;
      }
    }
    assumeTrue(
        node != null,
        "no Node.js (node on PATH or $RIFFLE_NODE): DuckDB and arrow-js round trips not run"
            + " (Debian: apt-get install nodejs npm)");
    return node;
  }

  /** Node, with the readers' packages installed next to their scripts. */
  private static synchronized String ready() throws IOException {
    String n = node();
    if (!installed) {
      Files.createDirectories(HOME);
      try (var files = Files.list(SOURCE)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Files.copy(f, HOME.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      String npm =
          Path.of(n).getParent() == null ? "npm" : Path.of(n).resolveSibling("npm").toString();
      Result r =
          run(
              List.of(
                  npm,
                  "install",
                  "--no-audit",
                  "--no-fund",
                  "--prefer-offline",
                  "--loglevel=error"),
              HOME,
              600);
      assertThat(r.exit).as("npm install in " + HOME.toAbsolutePath() + ":\n" + r.output).isZero();
      installed = true;
    }
    return n;
  }

  /** DuckDB's reading of a Parquet file: {@code columns}, {@code rows}, {@code encodings}. */
  static JsonNode duckdb(Path parquet) throws IOException {
    return script("read-parquet.mjs", parquet);
  }

  /** arrow-js's reading of an Arrow IPC file or stream: {@code fields}, {@code rows}. */
  static JsonNode arrowJs(Path ipc) throws IOException {
    return script("read-arrow.mjs", ipc);
  }

  private static JsonNode script(String name, Path file) throws IOException {
    String n = ready();
    Result r = run(List.of(n, name, file.toAbsolutePath().toString()), HOME, 300);
    assertThat(r.exit).as(name + " " + file + ":\n" + r.output).isZero();
    return new ObjectMapper().readTree(r.output);
  }

  private record Result(int exit, String output) {}

  private static Result run(List<String> cmd, Path dir, int seconds) {
    try {
      Path err = Files.createTempFile("node-readers", ".err");
      try {
        Process p =
            new ProcessBuilder(new ArrayList<>(cmd))
                .directory(dir.toFile())
                .redirectError(err.toFile())
                .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          return new Result(-1, String.join(" ", cmd) + ": no answer in " + seconds + " s");
        }
        String stderr = Files.readString(err);
        return new Result(p.exitValue(), p.exitValue() == 0 ? out : out + stderr);
      } finally {
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      return new Result(-1, String.join(" ", cmd) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted");
    }
  }
}
