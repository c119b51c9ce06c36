package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.hadoop.testing.LocalS3;
import dev.riffle.hadoop.testing.TestDatasets;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Processes sharing one cache: two JVMs staging one snapshot at once fetch each blob once between
 * them; the lock of a killed process is reclaimed and its temporary file deleted.
 */
class MultiProcessStageTest {
  @TempDir Path dir;

  /**
   * The child. {@code stage SOURCE CACHE GO_FILE DELAY_MS [S3_ENDPOINT]}: waits for GO_FILE, stages
   * version 1 and prints {@code REPORT <files downloaded> <bytes downloaded> <files reused>}.
   * {@code hold CACHE SHA}: takes the blob's lock, leaves a temporary file, prints {@code HOLDING}
   * and waits to be killed.
   */
  public static void main(String[] args) throws Exception {
    if (args[0].equals("hold")) {
      CacheLayout layout = new CacheLayout(Path.of(args[1]));
      CacheLocks.Held held = CacheLocks.lock(layout.lockFile(args[2]));
      Files.write(layout.newTemp(args[2]), new byte[4096]);
      System.out.println("HOLDING " + held);
      System.out.flush();
      Thread.sleep(600_000);
      return;
    }
    Path go = Path.of(args[3]);
    Storage inner =
        args.length > 5
            ? new HadoopStorage(args[1], LocalS3.conf(args[5]))
            : new LocalStorage(Path.of(args[1]));
    try (FaultyStorage source = new FaultyStorage(inner)) {
      source.delayMillis = Long.parseLong(args[4]);
      SnapshotStager stager = new SnapshotStager(Path.of(args[2]), SnapshotStagerTest.SMALL_PARTS);
      while (!Files.exists(go)) {
        Thread.sleep(5);
      }
      StageReport r = stager.stage(source, 1);
      System.out.println(
          "REPORT " + r.filesDownloaded() + " " + r.bytesDownloaded() + " " + r.filesReused());
    }
  }

  static Process child(Path log, String... args) throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                MultiProcessStageTest.class.getName()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * Runs two children staging {@code source} into {@code cache} at once and checks that together
   * they downloaded every blob exactly once.
   */
  static void raceTwoProcesses(Path dir, String source, Path cache, Manifest m, String s3Endpoint)
      throws Exception {
    Path go = dir.resolve("go");
    List<Process> children = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      List<String> args =
          new ArrayList<>(List.of("stage", source, cache.toString(), go.toString(), "3"));
      if (s3Endpoint != null) {
        args.add(s3Endpoint);
      }
      children.add(child(dir.resolve("child" + i + ".log"), args.toArray(String[]::new)));
    }
    // Both JVMs are up and polling before the start, so their downloads overlap.
    Thread.sleep(1500);
    Files.createFile(go);
    long files = 0;
    long bytes = 0;
    for (int i = 0; i < 2; i++) {
      Process p = children.get(i);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child " + i + " finished").isTrue();
      String log = Files.readString(dir.resolve("child" + i + ".log"));
      assertThat(p.exitValue()).as(log).isZero();
      String line = log.lines().filter(l -> l.startsWith("REPORT ")).findFirst().orElseThrow();
      String[] f = line.split(" ");
      files += Long.parseLong(f[1]);
      bytes += Long.parseLong(f[2]);
      assertThat(Long.parseLong(f[1]) + Long.parseLong(f[3])).isEqualTo(m.files().size());
    }
    long total = m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    assertThat(files).as("blobs downloaded by both processes together").isEqualTo(m.files().size());
    assertThat(bytes).as("bytes downloaded by both processes together").isEqualTo(total);
    CacheChecks.assertNothingCorrupt(cache);
    Path view = SnapshotStager.completeView(cache, m.datasetId(), 1).orElseThrow();
    try (BufferAllocator a = new RootAllocator()) {
      assertThat(DatasetValidator.validate(new LocalStorage(view), 1, true, a, null).problems())
          .isEmpty();
    }
  }

  @Test
  void twoProcessesDownloadEachBlobOnce() throws Exception {
    Path source = dir.resolve("source");
    Manifest m = TestDatasets.write(new LocalStorage(source), 1_500_000, 300_000, 3);
    raceTwoProcesses(dir, source.toString(), dir.resolve("cache"), m, null);
  }

  @Test
  void lockOfAKilledProcessIsReclaimed() throws Exception {
    Path source = dir.resolve("source");
    Path cache = dir.resolve("cache");
    Manifest m = TestDatasets.write(new LocalStorage(source), 300_000, 1 << 20, 5);
    String sha = m.files().get(0).sha256();
    Process holder = child(dir.resolve("holder.log"), "hold", cache.toString(), sha);
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(
                Files.newInputStream(dir.resolve("holder.log")), StandardCharsets.UTF_8))) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.readString(dir.resolve("holder.log")).contains("HOLDING")) {
        assertThat(holder.isAlive()).as(Files.readString(dir.resolve("holder.log"))).isTrue();
        assertThat(System.nanoTime()).as("holder started").isLessThan(deadline);
        Thread.sleep(20);
      }
    }
    assertThat(CacheChecks.list(cache.resolve("tmp"))).hasSize(1);
    holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);

    StageReport report =
        new SnapshotStager(cache, SnapshotStagerTest.SMALL_PARTS)
            .stage(new LocalStorage(source), 1);
    assertThat(report.filesDownloaded()).isEqualTo(m.files().size());
    CacheChecks.assertNothingCorrupt(cache);
  }
}
