package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import dev.riffle.loader.pipeline.LoaderOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadCommandTest {
  @TempDir Path dir;
  String ds;

  @BeforeEach
  void generate() {
    ds = dir.resolve("sparse").toString() + "/";
    Cli.ok("generate", "sparse", ds, "--rows", "3000", "--seed", "1");
  }

  @Test
  void blockShuffleReportsDiversityAndCoverage() throws Exception {
    Cli.Result r =
        Cli.ok(
            "load",
            ds,
            "--sampler",
            "block",
            "--block",
            "16",
            "--fetch",
            "8",
            "--batch",
            "64",
            "--jitter",
            "0",
            "--label",
            "plate",
            "--columns",
            "indices,values",
            "--json");
    JsonNode j = Json.MAPPER.readTree(r.out());
    for (String key :
        new String[] {
          "samplesPerSecond",
          "pi2",
          "meffOverM",
          "distinctBlocksMean",
          "labelEntropyMean",
          "tvMean",
          "coverageExact"
        }) {
      assertThat(j.has(key)).as(key).isTrue();
    }
    assertThat(j.get("coverageExact").asBoolean()).isTrue();
    assertThat(j.get("rows").asLong()).isEqualTo(47 * 64);
    // 3,000 rows: 5 windows of 512 rows (40 batches), then one of 440 rows (7 batches).
    double model = (40 * 15.0 / 511 + 7 * 15.0 / 439) / 47;
    assertThat(j.get("pi2Model").asDouble()).isCloseTo(model, within(1e-12));
    // A short run: only loosely near the model.
    assertThat(j.get("pi2").asDouble()).isBetween(0.5 * model, 1.5 * model);
    assertThat(j.get("labelEntropyMean").asDouble()).isBetween(0.5, Math.log(14) / Math.log(2));
  }

  @Test
  void eachEpochReportsItsOwnCpu() throws Exception {
    // One figure per epoch (a rank's epochs too), and together they are the run's CPU: the first
    // epoch of a fresh JVM carries the JIT compiler, the later ones show a warm sample's cost.
    JsonNode j =
        Json.MAPPER.readTree(
            Cli.ok(
                    "load",
                    ds,
                    "--epochs",
                    "3",
                    "--batch",
                    "64",
                    "--rank",
                    "1",
                    "--world",
                    "2",
                    "--json")
                .out());
    JsonNode epochs = j.get("epochCpu");
    assertThat(epochs).hasSize(3);
    long perEpoch = j.get("rows").asLong() / 3;
    double cpuSeconds = 0;
    for (int e = 0; e < 3; e++) {
      assertThat(epochs.get(e).get("epoch").asInt()).isEqualTo(e);
      // Not positive: the process's CPU time comes in 10 ms ticks (times(2) on Linux), and a warm
      // epoch of these 1,500 rows can cost less than one, so it may read 0 on a fast machine.
      assertThat(epochs.get(e).get("cpuMicrosPerSample").asDouble()).isNotNegative();
      assertThat(epochs.get(e).get("jitCpuMicrosPerSample").asDouble())
          .isBetween(0.0, epochs.get(e).get("cpuMicrosPerSample").asDouble());
      cpuSeconds += epochs.get(e).get("cpuMicrosPerSample").asDouble() * perEpoch / 1e6;
    }
    assertThat(cpuSeconds).isCloseTo(j.get("cpuSeconds").asDouble(), within(1e-6));

    assertThat(Cli.ok("load", ds, "--epochs", "2").out())
        .containsPattern(
            "CPU per epoch: [0-9.]+, [0-9.]+ us/sample \\(of which JIT compiler [0-9.]+, [0-9.]+\\)");
    assertThat(Cli.ok("load", ds, "--epochs", "10", "--fetch", "4").out())
        .containsPattern(
            "CPU per epoch: [0-9.]+, then median [0-9.]+ \\([0-9.]+ to [0-9.]+\\)"
                + " over epochs 2 to 10 us/sample");
    assertThat(Cli.ok("load", ds).out()).doesNotContain("CPU per epoch");
  }

  @Test
  void directReadsDeliverTheSamePlan() throws Exception {
    // O_DIRECT (where the file system allows it) changes how bytes arrive, not which rows do.
    JsonNode cached = Json.MAPPER.readTree(Cli.ok("load", ds, "--fetch", "4", "--json").out());
    JsonNode direct =
        Json.MAPPER.readTree(Cli.ok("load", ds, "--fetch", "4", "--direct", "--json").out());
    assertThat(direct.get("coverageExact").asBoolean()).isTrue();
    assertThat(direct.get("pi2").asDouble()).isEqualTo(cached.get("pi2").asDouble());
    assertThat(direct.get("distinctBlocksMean").asDouble())
        .isEqualTo(cached.get("distinctBlocksMean").asDouble());
    assertThat(direct.get("rows").asLong()).isEqualTo(cached.get("rows").asLong());
  }

  @Test
  void ranksAndSamplersRunAndPrintText() {
    for (String sampler : new String[] {"sequential", "random", "deal", "pool"}) {
      Cli.Result r =
          Cli.ok(
              "load",
              ds,
              "--sampler",
              sampler,
              "--batch",
              "32",
              "--fetch",
              "4",
              "--rank",
              "1",
              "--world",
              "4");
      assertThat(r.out()).contains("samples/s").contains("coverage: exactly once");
    }
  }

  /** #18 item 7: a model value that does not exist is null, as coverageExact is, not "NaN". */
  @Test
  void noModelIsNullInJson() throws Exception {
    JsonNode j =
        Json.MAPPER.readTree(
            Cli.ok("load", ds, "--sampler", "random", "--batch", "64", "--json").out());
    assertThat(j.get("pi2Model").isNull()).isTrue();
    assertThat(j.get("meffOverMModel").isNull()).isTrue();
    assertThat(j.get("pi2").isNumber()).isTrue();
  }

  /** Text says nothing of a model there is none of, and no figure is NaN in text or JSON. */
  @Test
  void noFigureIsNaN() throws Exception {
    String text = Cli.ok("load", ds, "--sampler", "random", "--batch", "64").out();
    assertThat(text).doesNotContain("NaN").contains("diversity: pi2 0.");
    String empty = dir.resolve("empty").toString() + "/";
    Cli.ok("generate", "sparse", empty, "--rows", "0", "--seed", "1");
    assertThat(Cli.ok("load", empty, "--label", "plate").out())
        .doesNotContain("NaN")
        .contains("no label entropy or TV (no labelled rows)");
    JsonNode j = Json.MAPPER.readTree(Cli.ok("load", empty, "--label", "plate", "--json").out());
    assertThat(j.get("labelEntropyMean").isNull()).isTrue();
    assertThat(j.get("tvMean").isNull()).isTrue();
  }

  /** A number out of range names its option and is written as typed numbers are (1e+20). */
  @Test
  void rangesNameTheirOptionAndTheNumber() {
    String[][] cases = {
      {"--jitter", "1e20", "riffle: --jitter must be in [0, 1), not 1e+20"},
      {"--jitter", "1e9", "riffle: --jitter must be in [0, 1), not 1,000,000,000"},
      {"--max-pi2", "0", "riffle: --max-pi2 must be in (0, 1], not 0"},
      {"--min-meff", "2", "riffle: --min-meff must be in (0, 1], not 2"},
      {"--min-distinct-blocks", "0.5", "riffle: --min-distinct-blocks must be 1 or more, not 0.5"},
    };
    for (String[] c : cases) {
      Cli.Result r = Cli.run("load", ds, c[0], c[1]);
      assertThat(r.exitCode()).as(c[0]).isEqualTo(2);
      assertThat(r.errLines()).as(c[0]).hasSize(1);
      assertThat(r.err()).as(c[0]).startsWith(c[2] + " (see 'riffle load --help')");
    }
  }

  /**
   * What the loader refuses reaches the user in the CLI's words: types as inspect prints them (not
   * Arrow Java's Int(8, true) or List), numbers as typed (not Java's 1.0E9).
   */
  @Test
  void loaderRefusalsNameTypesAndNumbersAsTheCliDoes() {
    String[][] cases = {
      {
        "--sampler weighted --weight plate",
        "riffle: weight column 'plate' is dictionary<values=utf8, indices=int8> (categorical); it"
            + " must be a floating-point or integer number"
      },
      {
        "--sampler weighted --weight indices",
        "riffle: weight column 'indices' is list<int32 not null>; it must be a floating-point or"
            + " integer number"
      },
      {
        "--sampler balanced --label indices",
        "riffle: label column 'indices' is list<int32 not null>; it must be categorical"
            + " (dictionary-encoded) or an integer"
      },
      {
        "--min-distinct-blocks 1e9",
        "riffle: diversity target E[distinct blocks] ≥ 1,000,000,000 cannot be met: a batch of 64"
            + " rows holds at most 64 distinct blocks"
      },
    };
    for (String[] c : cases) {
      Cli.Result r = Cli.run(concat(new String[] {"load", ds}, c[0]));
      assertThat(r.exitCode()).as(c[0]).isEqualTo(2);
      assertThat(r.err()).as(c[0]).isEqualTo(c[1] + "\n");
    }
  }

  /**
   * A diversity target that needs a window or pool beyond any memory is refused at once: --max-pi2
   * 1e-30 hung (the fetch factor search ran past the end of a long), 1e-15 suggested a --memory-mb
   * of 2,325,311,267,156.
   */
  @Test
  void targetsBeyondAnyWindowAreRefusedAtOnce() {
    String[][] cases = {
      {"--max-pi2 1e-300", "π₂ ≤ 1e-300 cannot be met: it needs a window of more than"},
      {"--max-pi2 1e-15", "π₂ ≤ 1e-15 cannot be met: it needs a window of more than"},
      {"--sampler pool --max-pi2 1e-30", "π₂ ≤ 1e-30 cannot be met: it needs a pool of more than"},
    };
    for (String[] c : cases) {
      Cli.Result r =
          assertTimeoutPreemptively(
              Duration.ofSeconds(60), () -> Cli.run(concat(new String[] {"load", ds}, c[0])));
      assertThat(r.exitCode()).as(c[0]).isEqualTo(2);
      assertThat(r.errLines()).as(c[0]).hasSize(1);
      assertThat(r.err())
          .as(c[0])
          .startsWith("riffle: diversity target " + c[1])
          .endsWith(" 1,125,899,906,842,624 rows (2^50)\n");
    }
  }

  private static String[] concat(String[] a, String options) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(options.split(" ")));
    return all.toArray(String[]::new);
  }

  /** A count option below 1 is a usage error that names the option. */
  @Test
  void countsBelowOneNameTheirOption() {
    String[][] cases = {
      {"--epochs", "0"},
      {"--threads", "0"},
      {"--in-flight", "-1"},
      {"--memory-mb", "0"},
      {"--memory-mb", "99999999999999"},
    };
    for (String[] c : cases) {
      Cli.Result r = Cli.run("load", ds, c[0], c[1]);
      assertThat(r.exitCode()).as(c[0]).isEqualTo(2);
      assertThat(r.errLines()).as(c[0]).hasSize(1);
      assertThat(r.err()).as(c[0]).startsWith("riffle: " + c[0] + " ");
    }
  }

  /**
   * #18 items 6, 10: named placeholders, the defaults (shared with LoaderOptions.of), an example.
   */
  @Test
  void helpShowsDefaultsPlaceholdersAndAnExample() {
    String help = Cli.ok("load", "--help").out().replaceAll("\\s+", " ");
    assertThat(help)
        .doesNotContain("=<")
        .contains("--batch=G", "--memory-mb=MIB", "--min-meff=TARGET")
        .contains("Global batch rows G (default: 64)")
        .contains("I/O threads (default: " + LoaderOptions.DEFAULT_THREADS + ")")
        .contains("Fetches read ahead (default: " + LoaderOptions.DEFAULT_FETCHES_IN_FLIGHT + ")")
        .contains(
            "MiB; it must hold one fetch (default: " + LoaderOptions.DEFAULT_PREFETCH_MIB + ")")
        .contains("Example: riffle load cells --sampler block");
  }

  /**
   * A batch of more rows than the view has, beyond the budget: said so, not a --memory-mb in the
   * tebibytes (--batch 2147483647 asked for 34,650,112 MiB). A large batch that fits a view still
   * gets the smallest budget, with its size in words.
   */
  @Test
  void aBatchLargerThanTheViewIsRefusedAsSuch() {
    Cli.Result r = Cli.run("load", ds, "--batch", "2147483647");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "riffle: --batch 2147483647 is more than the 3,000 rows to load: a batch would be"
                + " mostly padding (repeats of them); give --batch 3000 or less (see 'riffle load"
                + " --help')\n");
    Cli.Result big = Cli.run("load", ds, "--batch", "3000", "--memory-mb", "1");
    assertThat(big.exitCode()).isEqualTo(2);
    assertThat(big.err())
        .startsWith("riffle: --memory-mb 1 cannot hold one fetch (1 batch of 3,000 rows, about ")
        .containsPattern("--memory-mb [0-9]+ \\([0-9.]+ MiB\\), or lower --fetch or --batch");
  }

  @Test
  void contractThatTheBudgetCannotHoldFailsFast() {
    Cli.Result r = Cli.run("load", ds, "--min-meff", "0.99", "--block", "64", "--memory-mb", "1");
    assertThat(r.exitCode()).isEqualTo(2);
    // In the flags' terms (#18 item 2): the target, the block length the jitter allows, human
    // sizes, and the --memory-mb that would hold it.
    assertThat(r.err())
        .startsWith("riffle: --min-meff 0.99 needs fetch factor f = ")
        .contains("blocks of up to 80 rows (--block 64 with --jitter 0.25) and --batch 64: ")
        .contains(" per rank at about ")
        .containsPattern("over --memory-mb 1; give --memory-mb [0-9]+ or more, lower --block");
    String more = r.err().replaceAll("(?s).*give --memory-mb ([0-9]+) or more.*", "$1").strip();
    Cli.Result enough =
        Cli.run(
            "load",
            ds,
            "--min-meff",
            "0.99",
            "--block",
            "64",
            "--memory-mb",
            more,
            "--epochs",
            "1");
    assertThat(enough.err()).doesNotContain("--memory-mb");
  }

  /** Issue #15 item 9: a budget that cannot hold one fetch is refused, naming the smallest. */
  @Test
  void aMemoryBudgetBelowOneFetchIsRefusedWithTheSmallestThatWorks() throws Exception {
    Cli.Result r = Cli.run("load", ds, "--fetch", "32", "--memory-mb", "1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    Matcher m =
        Pattern.compile(
                "riffle: --memory-mb 1 cannot hold one fetch \\(32 batches of 64 rows, about"
                    + " [0-9,]+ bytes a row\\): the smallest budget that works is --memory-mb"
                    + " (\\d+) \\([0-9.]+ MiB\\), or lower --fetch or --batch")
            .matcher(r.err());
    assertThat(m.find()).as(r.err()).isTrue();
    long minimum = Long.parseLong(m.group(1));
    assertThat(minimum).isGreaterThan(1);

    // That budget works, and the loader held no more than it.
    JsonNode j =
        Json.MAPPER.readTree(
            Cli.ok("load", ds, "--fetch", "32", "--memory-mb", "" + minimum, "--json").out());
    assertThat(j.get("coverageExact").asBoolean()).isTrue();
    assertThat(j.get("memoryBudgetBytes").asLong()).isEqualTo(minimum << 20);
    assertThat(j.get("peakHeldBytes").asLong()).isPositive().isLessThanOrEqualTo(minimum << 20);
    assertThat(Cli.run("load", ds, "--fetch", "32", "--memory-mb", "" + (minimum - 1)).exitCode())
        .isEqualTo(2);
  }

  @Test
  void distinctBlocksTargetDerivesTheFetchFactor() throws Exception {
    JsonNode r =
        Json.MAPPER.readTree(
            Cli.ok(
                    "load",
                    ds,
                    "--min-distinct-blocks",
                    "7.5",
                    "--block",
                    "16",
                    "--batch",
                    "16",
                    "--json")
                .out());
    // Blocks of 16 rows (jitter 0.25) and batches of 16: d = 7.5 needs a window of several fetches.
    String sampler = r.get("sampler").asText();
    assertThat(sampler).startsWith("block(b=16,f=");
    int f = Integer.parseInt(sampler.replaceAll("^block\\(b=16,f=(\\d+),.*", "$1"));
    assertThat(f).isBetween(2, 255);
    assertThat(r.get("distinctBlocksMean").asDouble()).isGreaterThan(7.5 * 0.9);
    assertThat(r.get("coverageExact").asBoolean()).isTrue();
  }

  @Test
  void twoDiversityTargetsAreRefused() {
    Cli.Result r = Cli.run("load", ds, "--min-meff", "0.9", "--max-pi2", "0.01");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("give one diversity target").contains("not 2");
  }

  @Test
  void worldThatDoesNotDivideTheBatchIsRefused() {
    Cli.Result r = Cli.run("load", ds, "--batch", "64", "--world", "3");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("does not divide the global batch of 64");
  }

  /**
   * An Arrow IPC file of n rows: {@code w} (float64 weight: 0 for rows < 100, else 1 or 4) and
   * {@code label} (int32: 0 for 90% of rows, 1 for the rest), converted to a dataset.
   */
  private String weighted(int n) throws Exception {
    Path ipc = dir.resolve("w.arrow");
    org.apache.arrow.vector.types.pojo.Schema schema =
        new org.apache.arrow.vector.types.pojo.Schema(
            java.util.List.of(
                org.apache.arrow.vector.types.pojo.Field.notNullable(
                    "w",
                    new org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint(
                        org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)),
                org.apache.arrow.vector.types.pojo.Field.notNullable(
                    "label", new org.apache.arrow.vector.types.pojo.ArrowType.Int(32, true))));
    try (org.apache.arrow.memory.RootAllocator a = new org.apache.arrow.memory.RootAllocator();
        org.apache.arrow.vector.VectorSchemaRoot root =
            org.apache.arrow.vector.VectorSchemaRoot.create(schema, a);
        java.nio.channels.FileChannel ch =
            java.nio.channels.FileChannel.open(
                ipc,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE);
        org.apache.arrow.vector.ipc.ArrowFileWriter w =
            new org.apache.arrow.vector.ipc.ArrowFileWriter(root, null, ch)) {
      root.allocateNew();
      org.apache.arrow.vector.Float8Vector wv =
          (org.apache.arrow.vector.Float8Vector) root.getVector("w");
      org.apache.arrow.vector.IntVector lv =
          (org.apache.arrow.vector.IntVector) root.getVector("label");
      for (int i = 0; i < n; i++) {
        wv.setSafe(i, i < 100 ? 0 : i % 2 == 0 ? 1 : 4);
        lv.setSafe(i, i < n * 9 / 10 ? 0 : 1);
      }
      root.setRowCount(n);
      w.start();
      w.writeBatch();
      w.end();
    }
    String out = dir.resolve("weighted").toString() + "/";
    Cli.ok("convert", "arrow", ipc.toString(), out);
    return out;
  }

  @Test
  void weightedAndBalancedSamplersReportWithReplacement() throws Exception {
    String w = weighted(4000);
    JsonNode j =
        Json.MAPPER.readTree(
            Cli.ok(
                    "load",
                    w,
                    "--sampler",
                    "weighted",
                    "--weight",
                    "w",
                    "--block",
                    "8",
                    "--fetch",
                    "4",
                    "--batch",
                    "32",
                    "--label",
                    "label",
                    "--json")
                .out());
    assertThat(j.get("sampler").asText()).startsWith("weighted(b=8,f=4");
    assertThat(j.get("coverageExact").isNull()).isTrue();
    assertThat(j.get("distinctRowsFraction").asDouble()).isBetween(0.3, 0.95);
    assertThat(j.get("weight").asText()).isEqualTo("w");
    assertThat(j.get("totalWeight").asDouble()).isEqualTo(3900 / 2 * 5.0);
    assertThat(j.get("rows").asLong()).isEqualTo(4000);
    // The weighted model: above block shuffling's (b−1)/(F−1) by the repeated draws of a block.
    assertThat(j.get("pi2Model").asDouble()).isGreaterThan(7.0 / 127);

    JsonNode bal =
        Json.MAPPER.readTree(
            Cli.ok(
                    "load",
                    w,
                    "--sampler",
                    "balanced",
                    "--label",
                    "label",
                    "--block",
                    "8",
                    "--fetch",
                    "4",
                    "--batch",
                    "32",
                    "--json")
                .out());
    assertThat(bal.get("classes").asInt()).isEqualTo(2);
    assertThat(bal.get("pi2Model").asDouble()).isEqualTo(7.0 / 127);
    // Balanced batches are half class 1 where the data has 10%: entropy near 1 bit, TV to the
    // global distribution near 0.4.
    assertThat(bal.get("labelEntropyMean").asDouble()).isGreaterThan(0.8);
    assertThat(bal.get("tvMean").asDouble()).isBetween(0.3, 0.5);

    Cli.Result bad = Cli.run("load", w, "--sampler", "weighted", "--weight", "label2");
    assertThat(bad.exitCode()).isNotZero();
    Cli.Result noWeight = Cli.run("load", w, "--sampler", "weighted");
    assertThat(noWeight.err()).contains("--sampler weighted needs --weight COLUMN");
  }

  /**
   * Padding and dropped rows are reported apart from the view's rows (3000 rows, batches of 64: 8
   * padding rows, or 56 dropped), and a diversity target the view cannot meet is a warning.
   */
  @Test
  void reportSaysPaddingDroppedRowsAndUnmetTargets() throws Exception {
    JsonNode pad = Json.MAPPER.readTree(Cli.ok("load", ds, "--batch", "64", "--json").out());
    assertThat(pad.get("rows").asLong()).isEqualTo(3008);
    assertThat(pad.get("viewRows").asLong()).isEqualTo(3000);
    assertThat(pad.get("paddingRows").asLong()).isEqualTo(8);
    assertThat(pad.get("droppedRows").asLong()).isZero();
    assertThat(pad.get("warnings")).isEmpty();
    JsonNode drop =
        Json.MAPPER.readTree(Cli.ok("load", ds, "--batch", "64", "--drop-last", "--json").out());
    assertThat(drop.get("rows").asLong()).isEqualTo(2944);
    assertThat(drop.get("paddingRows").asLong()).isZero();
    assertThat(drop.get("droppedRows").asLong()).isEqualTo(56);
    String text = Cli.ok("load", ds, "--batch", "64", "--drop-last").out();
    assertThat(text).contains("coverage: exactly once, 2,944 of 3,000 rows, 56 rows dropped");
    Cli.Result unmet =
        Cli.ok(
            "load",
            ds,
            "--sampler",
            "block",
            "--block",
            "16",
            "--min-meff",
            "0.95",
            "--batch",
            "64",
            "--memory-mb",
            "4096");
    assertThat(unmet.out()).contains("warning: --min-meff 0.950 cannot hold for this view");
  }
}
