package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real {@code riffle} processes killed with SIGKILL (and SIGTERM) where it hurts: a dataset writer
 * between closing its last data file and publishing (made deterministic with the {@code
 * riffle.test.pauseBeforePublish} hook), and single-file writers in the middle of their temporary
 * file. Afterwards every published version validates deep, and gc (or the next writer) removes what
 * the dead process left: orphans, its stale lease, its temporary files.
 */
class KilledWriterCliTest {
  @TempDir Path dir;
  Path log;

  /** Starts {@code riffle ARGS} in a child JVM with the given system properties. */
  private Process riffle(List<String> properties, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    cmd.addAll(properties);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(args));
    log = dir.resolve("child-" + System.nanoTime() + ".log");
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** Waits until {@code condition} holds (the child reached its point) or the child ends. */
  private void await(Process p, Predicate<Void> condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!condition.test(null)) {
      if (!p.isAlive()) {
        throw new AssertionError(
            "the child ended before reaching its point: " + Files.readString(log));
      }
      assertThat(System.nanoTime()).as("the child's point within 120 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static void kill(Process p) throws InterruptedException {
    p.destroyForcibly();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
  }

  private static List<String> names(Path d) throws IOException {
    if (!Files.isDirectory(d)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(d)) {
      return s.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void appendKilledBeforePublishLeavesVersionsIntactAndGcCleansUp() throws Exception {
    String ds = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", ds, "--rows", "3000", "--seed", "1");
    List<String> published = names(dir.resolve("ds/data"));
    Path marker = dir.resolve("paused");
    Process p =
        riffle(
            List.of("-Driffle.test.pauseBeforePublish=" + marker),
            "generate",
            "scalars",
            ds,
            "--rows",
            "200000",
            "--seed",
            "2",
            "--files",
            "3",
            "--page-bytes",
            "65536",
            "--append");
    await(p, x -> Files.exists(marker));
    // Every data file is written and closed; the manifest is not.
    kill(p);

    assertThat(names(dir.resolve("ds/_versions")))
        .containsExactly("00000000000000000001.manifest.json");
    int left = names(dir.resolve("ds/data")).size() - published.size();
    assertThat(left).isGreaterThanOrEqualTo(2);
    Cli.Result validate = Cli.ok("validate", ds, "--deep");
    assertThat(validate.outLines().get(0)).startsWith("OK: version 1");
    assertThat(validate.out()).contains("note: " + left + " data files that no version references");
    assertThat(names(dir.resolve("ds/_leases"))).hasSize(1);

    // Default grace (1 h): the files are young, but their writer is gone, so they go at once.
    Cli.Result gc = Cli.ok("gc", ds);
    List<String> lines = gc.outLines();
    assertThat(lines).filteredOn(l -> l.startsWith("deleted data/")).hasSize(left);
    assertThat(lines)
        .filteredOn(l -> l.startsWith("removed stale lease _leases/"))
        .singleElement()
        .asString()
        .contains("riffle generate scalars", "pid " + p.pid(), "its process is gone");
    assertThat(lines.get(lines.size() - 1)).isEqualTo(left + " orphaned data files deleted");
    assertThat(names(dir.resolve("ds/data"))).isEqualTo(published);
    assertThat(names(dir.resolve("ds/_leases"))).isEmpty();
    assertThat(Cli.ok("validate", ds, "--deep").outLines()).hasSize(1);

    // The dataset takes the next append as if nothing happened.
    Cli.ok("generate", "scalars", ds, "--rows", "1000", "--seed", "3", "--append");
    assertThat(Cli.ok("validate", ds + "@2", "--deep").outLines().get(0))
        .startsWith("OK: version 2");
  }

  @Test
  void createKilledBeforePublishLeavesNoDatasetThatGcCannotClean() throws Exception {
    String ds = dir.resolve("new").toString();
    Path marker = dir.resolve("paused");
    Process p =
        riffle(
            List.of("-Driffle.test.pauseBeforePublish=" + marker),
            "generate",
            "scalars",
            ds,
            "--rows",
            "100000",
            "--seed",
            "2",
            "--files",
            "2",
            "--page-bytes",
            "65536");
    await(p, x -> Files.exists(marker));
    kill(p);

    Cli.Result ls = Cli.run("ls", ds);
    assertThat(ls.exitCode()).isEqualTo(1);
    assertThat(ls.err()).isEqualTo("riffle: no Riffle dataset at " + ds + "\n");
    int left = names(dir.resolve("new/data")).size();
    assertThat(left).isPositive();
    Cli.Result gc = Cli.ok("gc", ds);
    assertThat(gc.outLines()).filteredOn(l -> l.startsWith("deleted data/")).hasSize(left);
    assertThat(gc.out()).contains("removed stale lease");
    assertThat(names(dir.resolve("new/data"))).isEmpty();
    assertThat(names(dir.resolve("new/_leases"))).isEmpty();
    // A second try at the same location works.
    Cli.ok("generate", "scalars", ds, "--rows", "100", "--seed", "2");
    assertThat(Cli.ok("validate", ds, "--deep").outLines()).hasSize(1);
  }

  private static List<String> temps(Path d) throws IOException {
    return names(d).stream().filter(n -> n.endsWith(".riffle-tmp")).toList();
  }

  /** A single-file generate, killed mid-write with SIGKILL: gc DIR, or the next writer, cleans. */
  @Test
  void killedSingleFileWriterLeavesATempFileThatIsRemoved() throws Exception {
    Path out = dir.resolve("files");
    Files.createDirectories(out);
    Process p =
        riffle(
            List.of(),
            "generate",
            "scalars",
            out.resolve("big.riffle").toString(),
            "--rows",
            "1000000000",
            "--seed",
            "1");
    await(
        p,
        x -> {
          try {
            List<String> t = temps(out);
            return t.size() == 1 && Files.size(out.resolve(t.get(0))) > (1 << 20);
          } catch (IOException e) {
            return false;
          }
        });
    kill(p);
    String temp = temps(out).get(0);
    assertThat(temp).startsWith(".big.riffle." + p.pid() + ".");
    assertThat(out.resolve("big.riffle")).doesNotExist();

    // gc of the directory finds it (its process is gone), without waiting for the grace period.
    Cli.Result dry = Cli.ok("gc", out.toString(), "--dry-run");
    assertThat(dry.outLines())
        .containsExactly(
            "would delete "
                + temp
                + " ("
                + InspectCommand.humanBytes(Files.size(out.resolve(temp)))
                + "; its writer, process "
                + p.pid()
                + " on this host, is gone)",
            "1 temporary file (dry run: nothing deleted)");
    assertThat(temps(out)).containsExactly(temp);

    // The next writer in the directory removes it too, and says so.
    Cli.Result next =
        Cli.run(
            "generate",
            "scalars",
            out.resolve("small.riffle").toString(),
            "--rows",
            "10",
            "--seed",
            "1");
    assertThat(next.exitCode()).isZero();
    assertThat(next.err()).startsWith("riffle: deleted " + out.resolve(temp)).contains("is gone");
    assertThat(temps(out)).isEmpty();
    assertThat(names(out)).containsExactly("small.riffle");
    assertThat(Cli.ok("gc", out.toString()).outLines())
        .containsExactly(
            "no temporary files of killed writers in " + out + " (it holds no dataset)");
  }

  /** An export publishes through the same temporary files, and also cleans up before it writes. */
  @Test
  void exportRemovesWhatAKilledExportLeft() throws Exception {
    String ds = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", ds, "--rows", "300", "--seed", "1");
    Path out = dir.resolve("exports");
    Files.createDirectories(out);
    Process gone = new ProcessBuilder("true").start();
    assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String left =
        ".a.parquet."
            + gone.pid()
            + "."
            + dev.riffle.format.io.ProcessIdentity.current().machineTag()
            + ".0123abcd.riffle-tmp";
    Files.writeString(out.resolve(left), "half a Parquet file");
    Cli.Result r = Cli.run("export", "parquet", ds, out.resolve("b.parquet").toString());
    assertThat(r.exitCode()).isZero();
    assertThat(r.err())
        .isEqualTo(
            "riffle: deleted "
                + out.resolve(left)
                + " (19 B), a temporary file left behind: its writer, process "
                + gone.pid()
                + " on this host, is gone\n");
    assertThat(names(out)).containsExactly("b.parquet");
  }

  /** SIGTERM (timeout, Ctrl-C is SIGINT alike) runs the shutdown hook: nothing is left. */
  @Test
  void terminatedSingleFileWriterLeavesNothing() throws Exception {
    Path out = dir.resolve("files");
    Files.createDirectories(out);
    Process p =
        riffle(
            List.of(),
            "generate",
            "scalars",
            out.resolve("big.riffle").toString(),
            "--rows",
            "1000000000",
            "--seed",
            "1");
    await(p, x -> uncheckedTemps(out).size() == 1);
    p.destroy();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(names(out)).isEmpty();
  }

  private static List<String> uncheckedTemps(Path d) {
    try {
      return temps(d);
    } catch (IOException e) {
      return List.of();
    }
  }

  /** Temporary files of older writers carry no pid: gc removes them by age only. */
  @Test
  void gcRemovesOlderStyleTempFilesByAgeAndNothingElse() throws Exception {
    Path out = dir.resolve("files");
    Files.createDirectories(out);
    List<String> old = List.of(".x.riffle.5e5d5bd0a9ec8671.tmp", ".out.parquet.tmp-e6c689b8c5ef");
    List<String> others = List.of(".x.riffle.tmp", "notes.tmp", ".bashrc", "x.riffle");
    for (String n : old) {
      Files.writeString(out.resolve(n), "left");
    }
    for (String n : others) {
      Files.writeString(out.resolve(n), "mine");
    }
    assertThat(Cli.ok("gc", out.toString()).outLines())
        .containsExactly(
            "no temporary files of killed writers in " + out + " (it holds no dataset)");
    FileTime twoHoursAgo = FileTime.from(Instant.now().minus(Duration.ofHours(2)));
    for (String n : names(out)) {
      Files.setLastModifiedTime(out.resolve(n), twoHoursAgo);
    }
    Cli.Result gc = Cli.ok("gc", out.toString());
    assertThat(gc.outLines()).hasSize(3).last().isEqualTo("2 temporary files deleted");
    assertThat(gc.out()).contains("not modified for 2 h");
    assertThat(names(out)).containsExactlyInAnyOrderElementsOf(others);
    // A shorter grace period finds younger ones.
    Files.writeString(out.resolve(old.get(0)), "left");
    Files.setLastModifiedTime(
        out.resolve(old.get(0)), FileTime.from(Instant.now().minus(Duration.ofMinutes(5))));
    assertThat(Cli.ok("gc", out.toString(), "--grace", "2m").outLines()).hasSize(2);
    assertThat(names(out)).containsExactlyInAnyOrderElementsOf(others);
  }

  @Test
  void gcNeverDeletesNamesThatAreNotDataFiles() throws Exception {
    String ds = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", ds, "--rows", "300", "--seed", "1");
    Path data = dir.resolve("ds/data");
    List<String> foreign = List.of("README.txt", ".hidden", "-x.riffle", "notes");
    for (String n : foreign) {
      Files.writeString(data.resolve(n), "not Riffle's");
      Files.setLastModifiedTime(data.resolve(n), FileTime.from(Instant.EPOCH));
    }
    assertThat(Cli.ok("gc", ds, "--grace", "0").outLines())
        .containsExactly("no orphaned data files");
    assertThat(Cli.ok("validate", ds).outLines()).hasSize(1);
    for (String n : foreign) {
      assertThat(data.resolve(n)).exists();
    }
  }

  @Test
  void gcArgumentsAreChecked() {
    String ds = dir.resolve("ds").toString();
    Cli.ok("generate", "scalars", ds, "--rows", "30", "--seed", "1");
    Cli.Result r = Cli.run("gc", ds, "--grace", "soon");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).startsWith("riffle: not a duration: 'soon'");
    // A duration, only too large: said so, with the largest there is (it was "not a duration").
    Cli.Result large = Cli.run("gc", ds, "--grace", "99999999999d");
    assertThat(large.exitCode()).isEqualTo(2);
    assertThat(large.err())
        .isEqualTo("riffle: duration too large: '99999999999d' (at most 999999999d)\n");
    assertThat(Cli.run("gc", ds, "--grace", "999999999d", "--dry-run").exitCode()).isZero();
  }
}
