package dev.riffle.dataset.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.testing.RandomData;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import dev.riffle.format.testing.TypeCase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writer process (SIGKILL) at random points while it appends and publishes: afterwards
 * either the new version is complete and valid, or it does not exist; the old version always
 * validates, and gc removes whatever the dead writer left.
 */
@ExtendWith(SeedExtension.class)
class KilledWriterTest {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              TypeCase.f("x", new ArrowType.Int(64, true)),
              TypeCase.f("s", ArrowType.Utf8.INSTANCE)));

  @TempDir Path dir;

  /** The child: appends {@code batches} batches to the dataset, then publishes. */
  public static void main(String[] args) throws Exception {
    Storage storage = new LocalStorage(Path.of(args[0]));
    int batches = Integer.parseInt(args[1]);
    try (BufferAllocator a = new RootAllocator();
        DatasetWriter w =
            DatasetWriter.append(
                storage, SCHEMA, null, DatasetOptions.defaults().withTargetFileBytes(64 * 1024))) {
      for (int b = 0; b < batches; b++) {
        try (VectorSchemaRoot root = RandomData.generate(SCHEMA, 2000, b, 0.1, a)) {
          w.write(root);
        }
        Thread.sleep(5);
      }
      w.publish();
    }
    System.out.println("published");
  }

  @Test
  void killedWriterLeavesOldVersionsIntact(@Seed long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    try (BufferAllocator a = new RootAllocator()) {
      for (int attempt = 0; attempt < 3; attempt++) {
        Path root = dir.resolve("ds" + attempt);
        Storage storage = new LocalStorage(root);
        try (DatasetWriter w =
                DatasetWriter.create(storage, SCHEMA, null, DatasetOptions.defaults());
            VectorSchemaRoot rows = RandomData.generate(SCHEMA, 100, 1, 0.1, a)) {
          w.write(rows);
          w.publish();
        }
        List<String> cmd =
            new ArrayList<>(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    KilledWriterTest.class.getName(),
                    root.toString(),
                    "40"));
        Process p =
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("child" + attempt + ".log").toFile())
                .start();
        // Somewhere between start-up and well past the publish of a typical run.
        long killAfterMs = 200 + r.nextInt(1500);
        boolean finished = p.waitFor(killAfterMs, TimeUnit.MILLISECONDS);
        if (!finished) {
          p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        } else {
          // A child that ended by itself must have published (not died of a classpath error).
          assertThat(p.exitValue())
              .as(java.nio.file.Files.readString(dir.resolve("child" + attempt + ".log")))
              .isZero();
          assertThat(Dataset.versions(storage)).containsExactly(1L, 2L);
        }
        List<Long> versions = Dataset.versions(storage);
        assertThat(versions).as("attempt " + attempt).isSubsetOf(1L, 2L).contains(1L);
        for (long v : versions) {
          DatasetValidator.Report report = DatasetValidator.validate(storage, v, true, a, null);
          assertThat(report.problems())
              .as("version " + v + " after a kill at " + killAfterMs + " ms")
              .isEmpty();
        }
        // The dead writer's files go at once (its lease names them), without --grace.
        DatasetGc.collect(storage, DatasetGc.Options.defaults());
        assertThat(storage.list(dev.riffle.dataset.DatasetLayout.LEASES_DIR)).isEmpty();
        assertThat(DatasetValidator.validate(storage, 1, false, a, null).orphans()).isEmpty();
      }
    }
  }
}
