package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
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
    assertThat(j.get("pi2Model").asDouble()).isEqualTo(15.0 / 511);
    // A short run: only loosely near the model.
    assertThat(j.get("pi2").asDouble()).isBetween(0.5 * 15 / 511, 1.5 * 15 / 511);
    assertThat(j.get("labelEntropyMean").asDouble()).isBetween(0.5, Math.log(14) / Math.log(2));
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

  @Test
  void contractThatTheBudgetCannotHoldFailsFast() {
    Cli.Result r = Cli.run("load", ds, "--min-meff", "0.99", "--block", "64", "--memory-mb", "1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("m_eff/m ≥ 0.99").contains("memory budget of 1048576 bytes");
  }

  @Test
  void worldThatDoesNotDivideTheBatchIsRefused() {
    Cli.Result r = Cli.run("load", ds, "--batch", "64", "--world", "3");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("does not divide the global batch of 64");
  }
}
