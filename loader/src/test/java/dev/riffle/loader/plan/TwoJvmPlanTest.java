package dev.riffle.loader.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The plan is a pure function: a second JVM computes the same global batches. */
class TwoJvmPlanTest {

  static EpochPlan plan() {
    return EpochPlan.create(new BlockShuffle(16, 32, 0.25, false), 200_003, 64, 2024, 3, Tail.PAD);
  }

  /** The weighted and balanced samplers over fixed, data-like weights and labels. */
  static List<EpochPlan> dataPlans() {
    int n = 50_001;
    double[] w = new double[n];
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      w[i] = (i * 7919L) % 13 * 0.25;
      labels[i] = i * 9 / n;
    }
    return List.of(
        EpochPlan.create(new WeightedBlocks(16, 8, 0.25, "w", w), n, 64, 2024, 3, Tail.PAD),
        EpochPlan.create(new BalancedBlocks(16, 8, "label", labels), n, 64, 2024, 3, Tail.DROP));
  }

  static String hashes() {
    StringBuilder s = new StringBuilder(PlanHashes.of(plan()));
    for (EpochPlan p : dataPlans()) {
      s.append(' ').append(PlanHashes.of(p));
    }
    return s.toString();
  }

  @Test
  void samePlanInAnotherJvm() throws IOException, InterruptedException {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "-cp",
            System.getProperty("java.class.path"),
            PlanHashes.class.getName());
    Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out;
    try {
      out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }
    assertThat(child.exitValue()).as(out).isZero();
    assertThat(out).isEqualTo(hashes());
  }
}
