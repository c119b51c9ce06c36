package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./riffle} launcher's class-data archives: the first successful run of a kind of
 * command leaves one, a failed run does not, a later run loads its classes from it (the JVM's
 * class-load log says so) and prints exactly what a run without it prints, and a rebuilt jar drops
 * them. Runs the repository's own launcher on the packaged jar (an IT: after {@code package}), so
 * its archives land in {@code cli/target/cds}.
 */
class LauncherCdsIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path CDS = ROOT.resolve("cli/target/cds");

  @TempDir Path dir;

  @Test
  void archivesAreMadeByASuccessfulRunUsedLaterAndDroppedWithTheJar() throws Exception {
    Path jar = ROOT.resolve("cli/target/riffle.jar");
    assertThat(jar).as("the packaged CLI (mvn package)").isRegularFile();
    assumeTrue(
        !sourcesNewerThan(jar),
        "sources changed since the jar was packaged: the launcher would rebuild it");
    Path file = dir.resolve("s.riffle");
    assertThat(
            riffle(Map.of(), "generate", "scalars", file.toString(), "--rows", "100", "--seed", "1")
                .code)
        .isZero();

    // Failed runs leave no archive.
    Run failed = riffle(Map.of(), "ls", dir.resolve("missing").toString());
    assertThat(failed.code).isNotZero();
    assertThat(CDS.resolve("ls.jsa")).doesNotExist();

    Run plain = riffle(Map.of("RIFFLE_CDS", "0"), "inspect", file.toString(), "--json");
    Files.deleteIfExists(CDS.resolve("inspect.jsa"));
    Run first = riffle(Map.of(), "inspect", file.toString(), "--json");
    assertThat(CDS.resolve("inspect.jsa")).isRegularFile();
    Path loaded = dir.resolve("classes.log");
    Run mapped =
        riffle(
            Map.of("RIFFLE_JAVA_OPTS", "-Xlog:class+load=info:file=" + loaded),
            "inspect",
            file.toString(),
            "--json");
    // The launcher's own classes come from the archive (the "top" layer above the JDK's).
    assertThat(Files.readString(loaded))
        .contains("dev.riffle.cli.Main source: shared objects file (top)");
    for (Run r : List.of(plain, first, mapped)) {
      assertThat(r.code).as(r.err).isZero();
      assertThat(r.out).doesNotContain("[warning]").doesNotContain("cds");
      assertThat(r.err).isEmpty();
    }
    assertThat(first.out).isEqualTo(plain.out);
    assertThat(mapped.out).isEqualTo(plain.out);
    try (Stream<Path> s = Files.list(CDS)) {
      assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }

    // A rebuilt jar (newer than the archives) drops them all on the next run.
    Files.setLastModifiedTime(
        jar, FileTime.fromMillis(Files.getLastModifiedTime(CDS.resolve("jvm")).toMillis() + 2000));
    assertThat(riffle(Map.of(), "inspect", file.toString(), "--json").out).isEqualTo(plain.out);
    assertThat(CDS.resolve("generate.jsa")).doesNotExist();
    assertThat(CDS.resolve("inspect.jsa")).isRegularFile();
  }

  private record Run(int code, String out, String err) {}

  private Run riffle(Map<String, String> env, String... args) throws Exception {
    Path out = dir.resolve(".out");
    Path err = dir.resolve(".err");
    ProcessBuilder pb =
        new ProcessBuilder(
                Stream.concat(Stream.of(ROOT.resolve("riffle").toString()), Stream.of(args))
                    .toList())
            .directory(dir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().remove("RIFFLE_JAVA_OPTS");
    pb.environment().remove("RIFFLE_CDS");
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("riffle " + String.join(" ", args) + " did not finish in 120 s");
    }
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** Whether any source of the CLI's modules is newer than the jar (the launcher then rebuilds). */
  private static boolean sourcesNewerThan(Path jar) throws IOException {
    long built = Files.getLastModifiedTime(jar).toMillis();
    for (String m :
        List.of("format", "dataset", "datagen", "hadoop", "stage", "loader", "converters", "cli")) {
      try (Stream<Path> s = Files.walk(ROOT.resolve(m).resolve("src/main"))) {
        if (s.anyMatch(p -> lastModified(p) > built)) {
          return true;
        }
      }
    }
    return false;
  }

  private static long lastModified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }
}
