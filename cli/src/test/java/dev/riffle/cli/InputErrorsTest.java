package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs that used to give internal errors, a hang or a message without the file (issue #15 item
 * 10): URI schemes that do not work, named pipes where a file belongs, and rows files that are not
 * UTF-8 text of numbers. Each is one line naming what is wrong, and a non-zero exit code.
 */
class InputErrorsTest {
  @TempDir static Path dir;
  static String good;
  static String dataset;

  @BeforeAll
  static void generate() {
    good = dir.resolve("good.riffle").toString();
    Cli.ok("generate", "scalars", good, "--rows", "100", "--seed", "1");
    dataset = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", dataset, "--rows", "100", "--seed", "1");
  }

  /**
   * Runs a command that must fail with one line and no stack trace; a guard against the hang a
   * named pipe used to cause (the command is expected to answer at once).
   */
  private static Cli.Result fails(int exitCode, String... args) {
    Cli.Result r = assertTimeoutPreemptively(Duration.ofMinutes(1), () -> Cli.run(args));
    assertThat(r.exitCode())
        .as("exit code of %s: %s", Arrays.toString(args), r.err())
        .isEqualTo(exitCode);
    assertThat(r.errLines()).as("stderr of %s", Arrays.toString(args)).hasSize(1);
    assertThat(r.err())
        .startsWith("riffle: ")
        .doesNotContain("internal error")
        .doesNotContain("\tat ");
    return r;
  }

  @Test
  void unsupportedSchemesSayWhichWork() throws IOException {
    String out = dir.resolve("out.parquet").toString();
    List<String[]> commands =
        List.of(
            new String[] {"take", "gs://bucket/x", "--rows", "0"},
            new String[] {"scan", "http://127.0.0.1:1/x"},
            new String[] {"ls", "https://example.invalid/x"},
            new String[] {"ls", "abfs://c@a.dfs.core.windows.net/x"},
            new String[] {"validate", "gs://bucket/x@3"},
            new String[] {"convert", "parquet", "gs://bucket/in.parquet", dir + "/c1"},
            new String[] {"convert", "arrow", good, "gs://bucket/out"},
            new String[] {"export", "parquet", dataset, "http://127.0.0.1:1/out.parquet"},
            new String[] {"load", "gs://bucket/x"});
    for (String[] c : commands) {
      String err = fails(2, c).err();
      assertThat(err)
          .as(String.join(" ", c))
          .containsPattern("the URI scheme '[a-z]+' is not supported")
          .contains("local paths")
          .contains("s3a://")
          .contains("hdfs://");
    }
    assertThat(fails(2, "take", "s3://bucket/x", "--rows", "0").err())
        .contains("for S3 write s3a://bucket/x");
    assertThat(dir.resolve("c1")).doesNotExist();
    assertThat(Path.of(out)).doesNotExist();
  }

  private static Path fifo(String name) throws Exception {
    return mkfifo(dir.resolve(name));
  }

  private static Path mkfifo(Path p) throws Exception {
    Process mk;
    try {
      mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
    } catch (IOException e) {
      assumeTrue(false, "no mkfifo here: " + e);
      throw e;
    }
    assumeTrue(mk.waitFor() == 0, "mkfifo failed");
    return p;
  }

  @Test
  void namedPipesAreRefusedBeforeTheyAreOpened() throws Exception {
    String pipe = fifo("pipe.riffle").toString();
    for (String[] c :
        List.of(
            new String[] {"inspect", pipe},
            new String[] {"take", pipe, "--rows", "0"},
            new String[] {"scan", pipe},
            new String[] {"ls", pipe},
            new String[] {"validate", pipe},
            new String[] {"convert", "arrow", pipe, dir + "/c2"},
            new String[] {"convert", "parquet", pipe, dir + "/c3"})) {
      assertThat(fails(1, c).err())
          .as(String.join(" ", c))
          .contains(pipe)
          .contains("not a regular file");
    }

    // A data file of a dataset replaced by a named pipe.
    Path copy = dir.resolve("ds-pipe");
    Cli.ok("generate", "scalars", copy.toString(), "--rows", "100", "--seed", "1");
    Path data;
    try (Stream<Path> files = Files.list(copy.resolve("data"))) {
      data = files.filter(f -> f.toString().endsWith(".riffle")).findFirst().orElseThrow();
    }
    Files.delete(data);
    mkfifo(data);
    assertThat(fails(1, "take", copy.toString(), "--rows", "0").err())
        .contains(data.getFileName().toString())
        .contains("not a regular file");
  }

  @Test
  void rowsFilesNameTheFileAndLine() throws Exception {
    Path latin1 = dir.resolve("latin1.txt");
    Files.write(latin1, new byte[] {'1', '\n', '2', '\n', (byte) 0xE9, '3', '\n'});
    assertThat(fails(2, "take", good, "--rows-file", latin1.toString()).err())
        .contains(latin1 + " line 3: not UTF-8 text");

    Path words = dir.resolve("words.txt");
    Files.writeString(words, "# rows\n1\n\nseven\n");
    assertThat(fails(2, "take", good, "--rows-file", words.toString()).err())
        .contains(words + " line 4: 'seven' is not a row number");

    Path binary = dir.resolve("binary.txt");
    Files.write(binary, new byte[] {'1', 0, 2, '\n'});
    assertThat(fails(2, "take", good, "--rows-file", binary.toString()).err())
        .contains(binary + " line 1: '1\\u0000\\u0002' is not a row number");

    Path oneLong = dir.resolve("long.bin");
    byte[] noBreaks = new byte[1 << 20];
    Arrays.fill(noBreaks, (byte) '7');
    Files.write(oneLong, noBreaks);
    assertThat(fails(2, "take", good, "--rows-file", oneLong.toString()).err())
        .contains(oneLong + " line 1: longer than " + RowSelection.MAX_LINE_BYTES + " bytes");

    assertThat(fails(2, "take", good, "--rows-file", dir.toString()).err())
        .contains(dir + " is a directory");

    // A pipe still works for row numbers: it is read once, front to back.
    Path pipe = fifo("rows.pipe");
    Thread writer =
        new Thread(
            () -> {
              try (OutputStream o = Files.newOutputStream(pipe)) {
                o.write("3\n1\n".getBytes(StandardCharsets.UTF_8));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    writer.start();
    Cli.Result r =
        assertTimeoutPreemptively(
            Duration.ofMinutes(1), () -> Cli.ok("take", good, "--rows-file", pipe.toString()));
    writer.join();
    assertThat(r.out()).isEqualTo(Cli.ok("take", good, "--rows", "3,1").out());
  }

  /**
   * A {@code file:} URI with a space, as people type it (raw) or as URIs write it (%20): both name
   * the directory; a file URI that names no local path is one line without Java's exception.
   */
  @Test
  void fileUrisWithSpacesWork() throws IOException {
    Path spaced = dir.resolve("with space").resolve("ds");
    Cli.ok("generate", "scalars", spaced.toString(), "--rows", "10", "--seed", "1");
    String raw = "file://" + spaced.toAbsolutePath();
    String encoded = spaced.toAbsolutePath().toUri().toString();
    assertThat(encoded).contains("with%20space");
    for (String uri : List.of(raw, encoded, "file:" + spaced.toAbsolutePath())) {
      assertThat(Cli.ok("ls", uri).outLines()).as(uri).hasSize(2);
    }
    assertThat(Cli.ok("info", raw + "@1").out()).contains("version     1");
    assertThat(Cli.ok("take", raw, "--rows", "0").out())
        .isEqualTo(Cli.ok("take", spaced.toString(), "--rows", "0").out());
    assertThat(fails(2, "ls", "file://some-host/data/x").err())
        .isEqualTo(
            "riffle: not a usable path or URI: file://some-host/data/x (URI has an authority"
                + " component)\n");
  }
}
