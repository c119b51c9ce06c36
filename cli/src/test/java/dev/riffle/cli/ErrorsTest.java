package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every failure is one {@code riffle: ...} line on stderr and a non-zero exit code. */
class ErrorsTest {
  @TempDir static Path dir;
  static String good;

  @BeforeAll
  static void generate() {
    good = dir.resolve("good.riffle").toString();
    Cli.ok("generate", "scalars", good, "--rows", "100", "--seed", "1");
  }

  private static Cli.Result fails(int exitCode, String... args) {
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode()).as("exit code of %s", Arrays.toString(args)).isEqualTo(exitCode);
    assertThat(r.err()).as("stderr of %s", Arrays.toString(args)).startsWith("riffle: ");
    assertThat(r.err()).endsWith("\n");
    assertThat(r.errLines()).as("stderr of %s", Arrays.toString(args)).hasSize(1);
    assertThat(r.err()).doesNotContain("\tat ");
    return r;
  }

  @Test
  void missingFile() {
    String missing = dir.resolve("missing.riffle").toString();
    assertThat(fails(1, "inspect", missing).err()).contains("no such file").contains(missing);
    fails(1, "take", missing, "--rows", "1");
    fails(1, "scan", missing);
  }

  @Test
  void uriWhereALocalFileIsRead() {
    String uri = "s3a://bucket/ds/data/f.riffle";
    assertThat(fails(1, "inspect", uri).err())
        .contains(uri + " is a URI")
        .contains("riffle info " + uri)
        .doesNotContain("no such file");
  }

  @Test
  void directoryInsteadOfFile() {
    fails(1, "inspect", dir.toString());
  }

  @Test
  void corruptFiles() throws Exception {
    byte[] bytes = Files.readAllBytes(Path.of(good));

    Path garbage = dir.resolve("garbage.riffle");
    Files.write(garbage, new byte[10_000]);
    assertThat(fails(1, "inspect", garbage.toString()).err()).contains("corrupt file");

    Path tiny = dir.resolve("tiny.riffle");
    Files.write(tiny, new byte[] {1, 2, 3});
    fails(1, "scan", tiny.toString());

    Path truncated = dir.resolve("truncated.riffle");
    Files.write(truncated, Arrays.copyOf(bytes, bytes.length - 100));
    fails(1, "take", truncated.toString(), "--rows", "1");

    Path footer = dir.resolve("footer.riffle");
    byte[] damaged = bytes.clone();
    damaged[damaged.length - 30] ^= 0x55;
    Files.write(footer, damaged);
    fails(1, "inspect", footer.toString());

    // A page byte flipped: the scan verifies page checksums.
    Path page = dir.resolve("page.riffle");
    damaged = bytes.clone();
    damaged[4096 + 100] ^= 0x55;
    Files.write(page, damaged);
    assertThat(fails(1, "scan", page.toString()).err()).contains("corrupt file");
  }

  @Test
  void unknownColumn() {
    assertThat(fails(2, "take", good, "--rows", "1", "--columns", "id,nope").err())
        .contains("nope");
    fails(2, "scan", good, "--columns", "nope");
    fails(2, "take", good, "--rows", "1", "--columns", "id,id");
  }

  @Test
  void rowOutOfRange() {
    assertThat(fails(2, "take", good, "--rows", "1,100").err()).contains("100");
    fails(2, "take", good, "--rows", "-1");
    // The largest row number, alone or ending a range, is out of range like any other.
    assertThat(fails(2, "take", good, "--rows", "9223372036854775807").err())
        .contains("9223372036854775807");
    fails(2, "take", good, "--rows", "9223372036854775800-9223372036854775807");
    // An empty list is a mistake, not a request for no rows.
    assertThat(fails(2, "take", good, "--rows", ",").err()).contains("--rows");
  }

  @Test
  void badArguments() throws Exception {
    fails(2);
    fails(2, "nonsense");
    fails(2, "take", good);
    fails(2, "take", good, "--rows", "1", "--random", "3");
    fails(2, "take", good, "--rows", "x");
    fails(2, "take", good, "--rows", "1", "--seed", "3");
    fails(2, "take", good, "--random", "-3");
    // Held in memory like a --rows list: refused, not out of memory.
    assertThat(fails(2, "take", good, "--random", "2147483647").err())
        .contains("--random draws at most 10,000,000 rows");
    fails(2, "take", good, "--rows", "1", "--bogus");
    fails(2, "take");
    fails(2, "scan", good, "--limit", "-1");
    fails(2, "inspect");
    fails(2, "inspect", good, "extra");
    Path rows = dir.resolve("bad-rows.txt");
    Files.writeString(rows, "1\ntwo\n");
    assertThat(fails(2, "take", good, "--rows-file", rows.toString()).err()).contains("line 2");
    byte[] tooMany = new byte[2 * 10_000_001];
    for (int i = 0; i < tooMany.length; i += 2) {
      tooMany[i] = '0';
      tooMany[i + 1] = '\n';
    }
    Files.write(rows, tooMany);
    assertThat(fails(2, "take", good, "--rows-file", rows.toString()).err())
        .contains("lists more than 10,000,000 rows");
    Files.writeString(rows, "1\n-3\n");
    assertThat(fails(2, "take", good, "--rows-file", rows.toString()).err())
        .contains("line 2: row numbers are not negative (-3)");
    fails(1, "take", good, "--rows-file", dir.resolve("no-rows.txt").toString());

    String out = dir.resolve("out.riffle").toString();
    assertThat(fails(2, "generate", "nonsense", out, "--rows", "1", "--seed", "1").err())
        .contains("scalars");
    fails(2, "generate", "scalars", out, "--rows", "1");
    fails(2, "generate", "scalars", out, "--seed", "1");
    fails(2, "generate", "scalars", out, "--rows", "-1", "--seed", "1");
    fails(2, "generate", "scalars", out, "--rows", "1", "--seed", "1", "--page-bytes", "100");
    fails(
        1,
        "generate",
        "scalars",
        dir.resolve("no/such/dir/x.riffle").toString(),
        "--rows",
        "1",
        "--seed",
        "1");
    assertThat(Files.exists(Path.of(out))).isFalse();
  }

  @Test
  void helpAndVersionSucceed() {
    assertThat(Cli.ok("--help").out()).contains("inspect", "take", "scan", "generate");
    assertThat(Cli.ok("take", "--help").out()).contains("--rows-file", "--random", "--stats");
    assertThat(Cli.ok("generate", "--help").out()).contains("lance8");
    assertThat(Cli.ok("--version").out())
        .startsWith("riffle ")
        .contains("file format: writes 1.4, reads 1.0 and 1.4")
        .contains("Java 17")
        .contains("Arrow Java ");
  }
}
