package dev.riffle.stage;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.riffle.dataset.ManifestCodec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The warm-up of a stage runs to its end without errors: in a stage its failures are swallowed
 * (they cost speed only), so this test is what notices one, such as a warm-up manifest that the
 * manifest checks no longer accept.
 */
class StageWarmUpTest {
  @Test
  void warmUpRunsToItsEnd() {
    ManifestCodec.warmUp();
    assertTimeoutPreemptively(Duration.ofSeconds(30), StageWarmUp::warmSha256);
  }
}
