package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * #18 item 7: the commands a script wraps print one JSON object with --json (raw numbers), and the
 * same facts as their text line.
 */
class JsonOutputTest {
  @TempDir Path dir;

  private static JsonNode json(String... args) throws Exception {
    Cli.Result r = Cli.ok(args);
    assertThat(r.outLines()).as("one JSON line").hasSize(1);
    return Json.MAPPER.readTree(r.out());
  }

  @Test
  void generateSplitValidateGcConvertAndExport() throws Exception {
    String ds = dir.resolve("ds").toString();
    JsonNode g =
        json("generate", "sparse", ds, "--rows", "300", "--seed", "3", "--files", "2", "--json");
    assertThat(g.get("rows").asLong()).isEqualTo(300);
    assertThat(g.get("version").asLong()).isEqualTo(1);
    assertThat(g.get("totalRows").asLong()).isEqualTo(300);
    assertThat(g.get("files").asInt()).isPositive();
    assertThat(g.get("bytes").asLong()).isPositive();
    assertThat(g.get("kind").asText()).isEqualTo("sparse");

    Path file = dir.resolve("one.riffle");
    JsonNode f =
        json("generate", "scalars", file.toString(), "--rows", "10", "--seed", "1", "--json");
    assertThat(f.get("bytes").asLong()).isEqualTo(Files.size(file));
    assertThat(f.has("version")).isFalse();

    JsonNode s =
        json(
            "split",
            ds,
            "--name",
            "train",
            "--fraction",
            "0.5",
            "--seed",
            "1",
            "--rest",
            "test",
            "--json");
    assertThat(s.get("version").asLong()).isEqualTo(2);
    assertThat(s.get("splits").get("train").asLong() + s.get("splits").get("test").asLong())
        .isEqualTo(300);

    JsonNode v = json("validate", ds, "--deep", "--json");
    assertThat(v.get("ok").asBoolean()).isTrue();
    assertThat(v.get("version").asLong()).isEqualTo(2);
    assertThat(v.get("filesChecked").asInt()).isEqualTo(g.get("files").asInt());
    assertThat(v.get("problems")).isEmpty();

    // An orphan: gc lists it (kept within the grace period, deleted with --grace 0).
    Files.writeString(Path.of(ds, "data", "0123456789abcdef01234567.riffle"), "x");
    JsonNode kept = json("gc", ds, "--dry-run", "--json");
    assertThat(kept.get("deleted")).isEmpty();
    assertThat(kept.get("kept").get(0).get("path").asText())
        .endsWith("0123456789abcdef01234567.riffle");
    JsonNode gone = json("gc", ds, "--grace", "0", "--json");
    assertThat(gone.get("dryRun").asBoolean()).isFalse();
    assertThat(gone.get("deleted").get(0).asText()).endsWith("0123456789abcdef01234567.riffle");

    String pq = dir.resolve("ds.parquet").toString();
    JsonNode e = json("export", "parquet", ds, pq, "--json");
    assertThat(e.get("rows").asLong()).isEqualTo(300);
    assertThat(e.get("bytesOut").asLong()).isEqualTo(Files.size(Path.of(pq)));
    JsonNode c = json("convert", "parquet", pq, dir.resolve("back").toString(), "--json");
    assertThat(c.get("rows").asLong()).isEqualTo(300);
    assertThat(c.get("version").asLong()).isEqualTo(1);
    assertThat(c.get("files").asInt()).isEqualTo(1);
    assertThat(c.get("bytesIn").asLong()).isEqualTo(Files.size(Path.of(pq)));
  }

  @Test
  void validateJsonListsProblemsAndKeepsExitCodeOne() throws Exception {
    String ds = dir.resolve("ds").toString();
    Cli.ok("generate", "sparse", ds, "--rows", "50", "--seed", "3");
    try (var files = Files.list(Path.of(ds, "data"))) {
      Path data = files.findFirst().orElseThrow();
      Files.write(data, new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
    }
    Cli.Result r = Cli.run("validate", ds, "--json");
    assertThat(r.exitCode()).isEqualTo(1);
    JsonNode v = Json.MAPPER.readTree(r.out());
    assertThat(v.get("ok").asBoolean()).isFalse();
    assertThat(v.get("problems")).hasSize(1);
  }
}
