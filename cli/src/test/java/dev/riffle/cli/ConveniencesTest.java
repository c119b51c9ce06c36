package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** #18 items 10-12: help, completion, ranges, offsets and row ids, the S3 credentials message. */
class ConveniencesTest {
  @TempDir Path dir;

  @AfterEach
  void noOverrides() {
    Locations.hadoopOverrides = Map.of();
  }

  private static List<Long> rowIds(List<String> lines) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (String l : lines) {
      JsonNode o = Json.MAPPER.readTree(l);
      assertThat(o.fieldNames().next()).isEqualTo("_row");
      ids.add(o.get("_row").asLong());
    }
    return ids;
  }

  @Test
  void helpCommandAndCompletionScript() {
    assertThat(Cli.ok("help", "take").out()).startsWith("Usage: riffle take ");
    assertThat(Cli.ok("help").out()).contains("Usage: riffle ").contains("  take ");
    assertThat(Cli.ok("generate-completion").out()).contains("complete").contains("riffle");
    assertThat(Cli.ok("convert", "parquet", "--help").out())
        .contains(" IN... OUT_URI")
        .doesNotContain("OUT_URI IN...");
  }

  /** Every command and subcommand ends its help with an example (#18 item 10). */
  @Test
  void everyCommandHasAnExample() {
    List<String> missing = new ArrayList<>();
    check(Main.commandLine(), "riffle", missing);
    assertThat(missing).as("commands without an example").isEmpty();
  }

  /**
   * Every example runs: each is a README command (bar the completion script's), which
   * ReadmeCommandsIT runs in order on the README's data, and sits whole on one line of the help,
   * not wrapped into two commands.
   */
  @Test
  void everyExampleIsAReadmeCommandOnOneLine() throws Exception {
    String readme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "README.md"));
    for (var e : Main.EXAMPLES.entrySet()) {
      String example = e.getValue();
      if (!example.startsWith("source <(")) {
        assertThat(readme).as("README runs " + e.getKey() + "'s example").contains("./" + example);
      }
    }
    List<String> wrapped = new ArrayList<>();
    checkOneLine(Main.commandLine(), "riffle", wrapped);
    assertThat(wrapped).as("commands whose example the help wraps").isEmpty();
  }

  private static void checkOneLine(picocli.CommandLine cmd, String name, List<String> wrapped) {
    if (!cmd.getUsageMessage().contains("\nExample:\n  " + Main.EXAMPLES.get(name) + "\n")) {
      wrapped.add(name);
    }
    cmd.getSubcommands().forEach((sub, line) -> checkOneLine(line, name + " " + sub, wrapped));
  }

  private static void check(picocli.CommandLine cmd, String name, List<String> missing) {
    String help = cmd.getUsageMessage();
    if (!help.contains("\nExample:\n  riffle ")
        && !help.contains("\nExample:\n  source <(riffle")) {
      missing.add(name);
    }
    cmd.getSubcommands().forEach((sub, line) -> check(line, name + " " + sub, missing));
  }

  @Test
  void rowRangesOffsetsAndRowIds() throws Exception {
    String file = dir.resolve("s.riffle").toString();
    Cli.ok("generate", "scalars", file, "--rows", "100", "--seed", "2");
    List<String> all = Cli.ok("scan", file).outLines();

    // A-B is inclusive, mixed with single rows, in the order given.
    List<String> taken = Cli.ok("take", file, "--rows", "10-12,3").outLines();
    assertThat(taken).containsExactly(all.get(10), all.get(11), all.get(12), all.get(3));
    assertThat(Cli.run("take", file, "--rows", "5-2").err()).contains("ends before it starts");
    assertThat(Cli.run("take", file, "--rows", "1-x").err()).contains("'1-x' is not a row");

    assertThat(Cli.ok("scan", file, "--offset", "95", "--limit", "3").outLines())
        .containsExactlyElementsOf(all.subList(95, 98));
    assertThat(Cli.ok("scan", file, "--offset", "98").outLines()).hasSize(2);
    assertThat(Cli.ok("scan", file, "--offset", "500").outLines()).isEmpty();

    assertThat(rowIds(Cli.ok("take", file, "--rows", "7,2", "--with-row-id").outLines()))
        .containsExactly(7L, 2L);
    assertThat(
            rowIds(
                Cli.ok("scan", file, "--offset", "4", "--limit", "2", "--with-row-id").outLines()))
        .containsExactly(4L, 5L);

    // In a dataset the id is the global row id, also for positions in a split.
    String ds = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", ds, "--rows", "100", "--seed", "2", "--files", "2");
    Cli.ok("split", ds, "--name", "a", "--fraction", "0.5", "--seed", "3");
    List<Long> inSplit =
        rowIds(Cli.ok("scan", ds, "--split", "a", "--with-row-id", "--columns", "x").outLines());
    assertThat(inSplit).isSorted().hasSizeLessThan(100);
    assertThat(
            rowIds(
                Cli.ok(
                        "take",
                        ds,
                        "--split",
                        "a",
                        "--rows",
                        "0-2",
                        "--with-row-id",
                        "--columns",
                        "x")
                    .outLines()))
        .containsExactlyElementsOf(inSplit.subList(0, 3));
    assertThat(
            rowIds(
                Cli.ok("scan", ds, "--split", "a", "--offset", "1", "--limit", "1", "--with-row-id")
                    .outLines()))
        .containsExactly(inSplit.get(1));
  }

  @Test
  void s3WithoutCredentialsNamesRiffleVariables() {
    // Anonymous-less S3A with no keys: it fails before any request, so no server is needed.
    Locations.hadoopOverrides =
        Map.of(
            "fs.s3a.endpoint", "http://127.0.0.1:1",
            "fs.s3a.aws.credentials.provider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
            // Empty, whatever RIFFLE_S3_* the environment has.
            "fs.s3a.access.key", "",
            "fs.s3a.secret.key", "",
            "fs.s3a.retry.limit", "0",
            "fs.s3a.attempts.maximum", "1");
    Cli.Result r = Cli.run("ls", "s3a://riffle-test/nothing");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err())
        .startsWith("riffle: no S3 credentials")
        .contains("RIFFLE_S3_ACCESS_KEY")
        .doesNotContain("AWS_ACCESS_KEY_ID");
    assertThat(r.errLines()).hasSize(1);
  }
}
