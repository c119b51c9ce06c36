package dev.riffle.djl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A small end-to-end training run with DJL's PyTorch engine on generated cells (a few hundred rows,
 * two epochs), a run interrupted mid-epoch and resumed from its checkpoint, and the command line's
 * one-line errors.
 */
class TrainCellTypesTest {
  @TempDir static Path dir;
  static Path cells;

  @BeforeAll
  static void writeCells() throws IOException {
    cells = dir.resolve("cells");
    // Sorted by plate (the generator's order). 2,000 genes: each type's program then has 41
    // marker genes (fewer genes, fewer markers), enough for a small run to learn in two epochs.
    CellsDatasets.write(cells, 480, 2000, 1, CellsDatasets.Order.PLATE, 0.8);
  }

  static TrainCellTypes command(String... args) {
    TrainCellTypes t = new TrainCellTypes();
    new CommandLine(t).parseArgs(args);
    return t;
  }

  @Test
  void lossFallsAndHeldOutAccuracyBeatsChance() throws Exception {
    TrainCellTypes t =
        command(
            "--data",
            cells.toString(),
            "--epochs",
            "2",
            "--batch",
            "16",
            "--block",
            "4",
            "--fetch",
            "4",
            "--hidden",
            "32",
            "--optimizer",
            "adam",
            "--lr",
            "0.003");
    List<TrainCellTypes.EpochResult> r = t.run();
    assertThat(r).hasSize(2);
    assertThat(r.get(1).loss()).isLessThan(r.get(0).loss());
    // Twelve types of unequal frequency: always guessing the commonest is right about 1 in 5.
    assertThat(r.get(1).heldOutAccuracy()).isGreaterThan(0.5);
    assertThat(r.get(0).rows()).isEqualTo(r.get(1).rows()).isPositive();
  }

  @Test
  void aRunResumedMidEpochEndsWithTheSameParameters(@TempDir Path work) throws Exception {
    String[] common = {
      "--data",
      cells.toString(),
      "--epochs",
      "2",
      "--batch",
      "16",
      "--block",
      "4",
      "--fetch",
      "4",
      "--hidden",
      "16",
      "--optimizer",
      "sgd",
      "--lr",
      "0.05",
      "--checkpoint-every",
      "3"
    };
    Path whole = work.resolve("whole");
    Path parts = work.resolve("parts");
    List<TrainCellTypes.EpochResult> a =
        command(concat(common, "--checkpoint", whole.toString())).run();
    // Interrupted after 7 batches of epoch 0: the last checkpoint is after batch 6 (every 3).
    command(concat(common, "--checkpoint", parts.toString(), "--stop-after", "7")).run();
    CheckpointListener.Checkpoint cp = CheckpointListener.latest(parts);
    assertThat(cp.state().epoch()).isZero();
    assertThat(cp.state().batchCursor()).isEqualTo(5);
    assertThat(cp.steps()).isEqualTo(5);
    List<TrainCellTypes.EpochResult> b =
        command(concat(common, "--checkpoint", parts.toString(), "--resume")).run();
    // The resumed run saw the rest of epoch 0 and all of epoch 1 and ends where the whole run did:
    // the same batches and plain SGD give the same parameters, bit for bit.
    Path lastWhole = whole.resolve(Files.readString(whole.resolve("latest")).trim());
    Path lastParts = parts.resolve(Files.readString(parts.resolve("latest")).trim());
    assertThat(lastParts.getFileName()).isEqualTo(lastWhole.getFileName());
    assertThat(params(lastParts)).isEqualTo(params(lastWhole));
    assertThat(b.get(b.size() - 1).heldOutAccuracy())
        .isEqualTo(a.get(a.size() - 1).heldOutAccuracy());
    assertThat(b.get(b.size() - 1).loss()).isEqualTo(a.get(a.size() - 1).loss());
  }

  private static byte[] params(Path checkpoint) throws IOException {
    try (Stream<Path> files = Files.list(checkpoint)) {
      Path p = files.filter(f -> f.toString().endsWith(".params")).findFirst().orElseThrow();
      return Files.readAllBytes(p);
    }
  }

  private static String[] concat(String[] a, String... b) {
    return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
  }

  @Test
  void badInputIsOneLineNamingTheColumn() {
    assertThat(run("--data", cells.toString(), "--label", "values"))
        .isEqualTo(
            "train-cell-types: label column 'values' is list<float32 not null>; it must be categorical"
                + " (dictionary-encoded) or an integer");
    assertThat(run("--data", cells.toString(), "--values", "plate"))
        .startsWith("train-cell-types: column 'plate' is categorical");
    assertThat(run("--data", cells.toString(), "--indices", "gene_ids"))
        .startsWith("train-cell-types: no column 'gene_ids' in ");
    assertThat(run("--data", dir.resolve("nowhere").toString()))
        .startsWith("train-cell-types: ")
        .doesNotContain("Exception");
  }

  private static String run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = TrainCellTypes.commandLine();
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    int code = cl.execute(args);
    assertThat(code).isEqualTo(1);
    String s = err.toString().strip();
    assertThat(s.lines().count()).as(s).isEqualTo(1);
    return s;
  }
}
