package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code riffle stage}: the report, the view other commands read, reuse, and errors. */
class StageCommandTest {
  @TempDir Path dir;
  Path source;
  Manifest manifest;

  @BeforeEach
  void writeDataset() throws Exception {
    source = dir.resolve("ds");
    Schema schema =
        new Schema(
            List.of(new Field("x", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
    try (BufferAllocator a = new RootAllocator();
        DatasetWriter w =
            DatasetWriter.create(
                new LocalStorage(source), schema, null, DatasetOptions.defaults());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
      BigIntVector x = (BigIntVector) root.getVector("x");
      x.allocateNew(1000);
      for (int i = 0; i < 1000; i++) {
        x.set(i, i * 3L);
      }
      root.setRowCount(1000);
      w.write(root);
      manifest = w.publish();
    }
  }

  @Test
  void aCompleteViewNeedsNoManifestAndAnEvictedViewSaysHowToStageItAgain() throws Exception {
    Path cache = dir.resolve("cache");
    List<String> staged = Cli.ok("stage", source + "@1", "--cache", cache.toString()).outLines();
    Path view = Path.of(staged.get(0));
    // Sizes in binary units, as everywhere in text output (it was "… 8192 bytes").
    assertThat(staged.get(1)).matches("staged: version 1 of .*, 1 file, [0-9.]+ KiB");
    Cli.Result again = Cli.ok("stage", source + "@1", "--cache", cache.toString());
    assertThat(again.outLines().get(1))
        .startsWith("already staged: version 1")
        .endsWith("(complete in the cache; the store was not read)");
    // A take of the view reads local disk: --stats says nothing was fetched.
    Cli.Result stats = Cli.run("take", view.toString(), "--rows", "5", "--stats");
    assertThat(stats.exitCode()).isZero();
    assertThat(stats.out()).contains("15");
    assertThat(stats.err()).contains("\"staged\":{\"gets\":0,\"bytesFetched\":0}");
    // Evicted (an evictor deletes the marker first): not "no such file", but how to stage again.
    Files.delete(view.resolve("COMPLETE"));
    Cli.Result evicted = Cli.run("take", view.toString(), "--rows", "0");
    assertThat(evicted.exitCode()).isNotZero();
    assertThat(evicted.err())
        .contains("is a staged view that is not complete: evicted from its cache")
        .contains("stage it again with 'riffle stage ")
        .contains("@1 --cache " + cache.toRealPath() + "'");
  }

  @Test
  void stagesThenReusesAndTheViewReadsAsADataset() throws Exception {
    Path cache = dir.resolve("cache");
    Cli.Result r =
        Cli.ok("stage", source + "@1", "--cache", cache.toString(), "--json", "--parts-mib", "1");
    JsonNode j = Json.MAPPER.readTree(r.out());
    long bytes = manifest.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    assertThat(j.get("version").asLong()).isEqualTo(1);
    assertThat(j.get("files").asInt()).isEqualTo(manifest.files().size());
    assertThat(j.get("bytes").asLong()).isEqualTo(bytes);
    assertThat(j.get("bytesDownloaded").asLong()).isEqualTo(bytes);
    assertThat(j.get("filesReused").asInt()).isZero();
    assertThat(j.get("alreadyComplete").asBoolean()).isFalse();
    Path view = Path.of(j.get("view").asText());
    assertThat(view.resolve("COMPLETE")).exists();
    try (BufferAllocator a = new RootAllocator();
        Dataset d = Dataset.open(new LocalStorage(view), a)) {
      assertThat(d.rowCount()).isEqualTo(1000);
    }
    // Other commands read the view like any local dataset.
    assertThat(Cli.ok("validate", view.toString()).out()).startsWith("OK: version 1");

    Cli.Result again = Cli.ok("stage", source.toString(), "--cache", cache.toString());
    assertThat(again.outLines().get(0)).isEqualTo(view.toString());
    assertThat(again.outLines().get(1)).startsWith("already staged: version 1 of ");
    assertThat(Files.list(cache.resolve("tmp")).count()).isZero();
  }

  @Test
  void pageCacheWritesStageTheSameVerifiedView() throws Exception {
    Path cache = dir.resolve("cache-pc");
    JsonNode j =
        Json.MAPPER.readTree(
            Cli.ok("stage", source + "@1", "--cache", cache.toString(), "--page-cache", "--json")
                .out());
    assertThat(j.get("bytesDownloaded").asLong())
        .isEqualTo(manifest.files().stream().mapToLong(Manifest.DataFile::byteLength).sum());
    assertThat(Cli.ok("validate", j.get("view").asText(), "--deep").out())
        .startsWith("OK: version 1");
  }

  @Test
  void unknownVersionAndBadOptionsAreErrors() {
    Cli.Result r = Cli.run("stage", source + "@7", "--cache", dir.resolve("c").toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err()).startsWith("riffle: ").contains("no version 7");
    Cli.Result bad =
        Cli.run(
            "stage", source.toString(), "--cache", dir.resolve("c").toString(), "--threads", "0");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(Cli.run("stage", source.toString()).exitCode()).isEqualTo(2);
  }

  @Test
  void limitEvictsOtherSnapshotsAndTooSmallLimitsFailFast() throws Exception {
    Path cache = dir.resolve("cache");
    long bytes = manifest.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    long largest =
        manifest.files().stream().mapToLong(Manifest.DataFile::byteLength).max().orElseThrow();
    Cli.Result tooSmall =
        Cli.run("stage", source.toString(), "--cache", cache.toString(), "--limit", "1K");
    assertThat(tooSmall.exitCode()).isNotZero();
    assertThat(tooSmall.err())
        .contains("cache limit of 1024 bytes")
        .contains("(" + largest + " bytes)");
    // A failed first stage leaves no empty cache behind.
    assertThat(cache).doesNotExist();

    // Eviction order itself is tested in the stage module (CacheEvictionTest); here the wiring.
    Cli.Result a =
        Cli.ok(
            "stage",
            source.toString(),
            "--cache",
            cache.toString(),
            "--limit",
            Long.toString(4 * largest + bytes),
            "--policy",
            "furthest",
            "--json");
    assertThat(Json.MAPPER.readTree(a.out()).get("blobsEvicted").asInt()).isZero();
    assertThat(Json.MAPPER.readTree(a.out()).get("bytesEvicted").asLong()).isZero();
    Cli.Result badPolicy =
        Cli.run(
            "stage",
            source.toString(),
            "--cache",
            cache.toString(),
            "--policy",
            "mru",
            "--limit",
            "1G");
    assertThat(badPolicy.exitCode()).isEqualTo(2);
    assertThat(badPolicy.err()).contains("--policy must be lru or furthest");
    assertThat(
            Cli.run("stage", source.toString(), "--cache", cache.toString(), "--limit", "lots")
                .err())
        .contains("--limit must be a byte count");
    assertThat(StageCommand.parseBytes("x", "64K")).isEqualTo(65536);
    assertThat(StageCommand.parseBytes("x", "2GiB")).isEqualTo(2L << 30);
    assertThat(StageCommand.parseBytes("x", "1000")).isEqualTo(1000);
  }

  @Test
  void progressLineShowsBytesRateAndEta() {
    assertThat(StageCommand.describe(1 << 20, 4 << 20, 1.0))
        .isEqualTo("1.0 MiB / 4.0 MiB (25%), 1.0 MiB/s, ETA 3 s");
  }

  /** A cache that cannot be a directory: the error says why, not just the path. */
  @Test
  void aCacheThatIsAFileIsNamedAsSuch() throws Exception {
    Path file = dir.resolve("file");
    Files.writeString(file, "x");
    Cli.Result r = Cli.run("stage", source.toString(), "--cache", file.toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errLines())
        .containsExactly("riffle: " + file + ": exists already, and is not a directory");
  }

  /**
   * A source with no dataset is said so, and leaves nothing new in the cache: a new cache is not
   * created, an existing directory gets no empty cache layout, and an existing cache keeps its own.
   */
  @Test
  void aSourceWithNoDatasetLeavesNothingBehind() throws Exception {
    String nowhere = dir.resolve("nowhere").toString();
    Path fresh = dir.resolve("new").resolve("cache");
    for (String source : List.of(nowhere, nowhere + "@1")) {
      Cli.Result r = Cli.run("stage", source, "--cache", fresh.toString());
      assertThat(r.exitCode()).as(source).isEqualTo(1);
      assertThat(r.errLines())
          .as(source)
          .containsExactly("riffle: no Riffle dataset at " + nowhere);
      assertThat(dir.resolve("new")).as(source).doesNotExist();
    }
    Path mine = dir.resolve("mine");
    Files.createDirectories(mine.resolve("keep"));
    assertThat(Cli.run("stage", nowhere, "--cache", mine.toString()).exitCode()).isEqualTo(1);
    try (var entries = Files.list(mine)) {
      assertThat(entries).containsExactly(mine.resolve("keep"));
    }
    Path cache = dir.resolve("cache");
    Cli.ok("stage", source.toString(), "--cache", cache.toString());
    List<Path> before;
    try (var all = Files.walk(cache)) {
      before = all.sorted().toList();
    }
    assertThat(Cli.run("stage", nowhere, "--cache", cache.toString()).exitCode()).isEqualTo(1);
    try (var all = Files.walk(cache)) {
      assertThat(all.sorted().toList()).isEqualTo(before);
    }
  }
}
