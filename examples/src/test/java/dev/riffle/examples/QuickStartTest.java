package dev.riffle.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the README's example and checks what it prints against its data, computed here apart. */
class QuickStartTest {
  @TempDir Path dir;

  @Test
  void runsAndReportsItsOwnData() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      QuickStart.run(dir, out);
    }
    String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");

    // Rows 42, 7, 42 are on plates 42 % 3, 7 % 3, 42 % 3 (1-based names).
    assertThat(lines[0]).startsWith("take 42, 7, 42: plates [plate01, plate02, plate01], ");

    // Row i holds 1 + i % 5 entries; every row exactly once, the last batch padded to 64.
    long entries = 0;
    for (int i = 0; i < QuickStart.ROWS; i++) {
      entries += 1 + i % 5;
    }
    long padding = (64 - QuickStart.ROWS % 64) % 64;
    assertThat(lines[1])
        .isEqualTo(
            "loaded "
                + QuickStart.ROWS
                + " rows ("
                + entries
                + " entries) and "
                + padding
                + " padding");

    // The README shows this output under the program.
    String readme = Files.readString(Path.of("..", "README.md"));
    String shown = "It prints:\n\n```\n" + String.join("\n", lines) + "\n```\n";
    assertThat(readme).as("README.md's output of QuickStart").contains(shown);

    assertThat(dir.resolve("cells.riffle")).isRegularFile();
    try (var files = Files.list(dir.resolve("cells").resolve("data"))) {
      assertThat(files.count()).isEqualTo(1);
    }
  }
}
