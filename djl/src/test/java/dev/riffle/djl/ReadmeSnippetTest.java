package dev.riffle.djl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import dev.riffle.dataset.Dataset;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.Tail;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;

/**
 * The README's DJL snippet is the region of {@link #readmeSnippet} between its markers: this file
 * compiles it against the real API, and the test fails when the two drift apart.
 */
class ReadmeSnippetTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @SuppressWarnings("unused") // compiled, not run: TrainCellTypesTest trains through this API
  static void readmeSnippet(
      Dataset dataset,
      long seed,
      int epochs,
      int genes,
      BufferAllocator allocator,
      Trainer trainer,
      RiffleDataset test)
      throws Exception {
    // README:begin
    try (RiffleDataset train =
        RiffleDataset.builder(dataset.split("train"))
            .options(
                LoaderOptions.of(new BlockShuffle(16, 256, 0.25, false), 256, seed)
                    .withEpochs(epochs)
                    .withTail(Tail.DROP))
            .sparse("indices", "values", genes) // float32 [batch, genes]; .csr(...) keeps CSR
            .label("cell_type") // int64 [batch]
            .normalization(Normalization.librarySizeLog1p(1e4))
            .allocator(allocator)
            .build()) {
      EasyTrain.fit(trainer, epochs, train, test); // each getData() is the next epoch
    }
    // README:end
  }

  @Test
  void readmeQuotesTheCompiledSnippet() throws Exception {
    List<String> region = new ArrayList<>();
    boolean in = false;
    for (String line :
        Files.readAllLines(
            ROOT.resolve("djl/src/test/java/dev/riffle/djl/ReadmeSnippetTest.java"))) {
      if (line.trim().equals("// README:end")) {
        in = false;
      }
      if (in) {
        region.add(line.length() >= 4 ? line.substring(4) : line.trim());
      }
      if (line.trim().equals("// README:begin")) {
        in = true;
      }
    }
    String expected = String.join("\n", region) + "\n";
    List<String> blocks = new ArrayList<>();
    StringBuilder cur = null;
    for (String line : Files.readAllLines(ROOT.resolve("README.md"))) {
      if (cur == null && line.equals("```java")) {
        cur = new StringBuilder();
      } else if (cur != null && line.equals("```")) {
        blocks.add(cur.toString());
        cur = null;
      } else if (cur != null) {
        cur.append(line).append('\n');
      }
    }
    assertThat(blocks)
        .as("README.md's DJL block against ReadmeSnippetTest's README region (copy it over)")
        .filteredOn(b -> b.contains("RiffleDataset.builder("))
        .containsExactly(expected);
  }
}
