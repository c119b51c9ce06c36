package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ProgressTest {
  @Test
  void countLineHasSeparatorsRateAndEta() {
    assertThat(Progress.line(12_000, 40_000, 3.0, "row"))
        .isEqualTo("12,000 / 40,000 rows (30%), 4,000 rows/s, ETA 7 s");
    assertThat(Progress.line(5, 20, 1.0, "batch"))
        .isEqualTo("5 / 20 batches (25%), 5 batches/s, ETA 3 s");
  }

  @Test
  void bytesLineUsesBinaryUnits() {
    assertThat(Progress.line(3L << 30, 4L << 30, 3.0, null))
        .isEqualTo("3.0 GiB / 4.0 GiB (75%), 1.0 GiB/s, ETA 1 s");
  }

  @Test
  void unknownRateAndFinishedRunHaveClearEtas() {
    assertThat(Progress.line(0, 10, 0, "row")).endsWith("ETA ?");
    assertThat(Progress.line(10, 10, 2.0, "row")).endsWith("ETA 0 s");
    assertThat(Progress.eta(185)).isEqualTo("3 min 05 s");
    assertThat(Progress.eta(7_800)).isEqualTo("2 h 10 min");
  }

  @Test
  void disabledProgressWritesNothing() {
    StringWriter s = new StringWriter();
    Progress p = new Progress(new PrintWriter(s), "load", 10, false, "batch");
    p.update(5);
    p.done();
    assertThat(s.toString()).isEmpty();
  }
}
