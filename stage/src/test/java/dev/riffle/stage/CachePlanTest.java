package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plan file itself: its name and content, replacement, withdrawal and bad input. */
class CachePlanTest {
  @TempDir Path cache;

  static final String A = "a".repeat(64);
  static final String B = "b".repeat(64);
  static final String C = "c".repeat(64);

  @Test
  void aPlanIsOneFileOfShasSoonestFirstReplacedWholeAndDeletedOnClose() throws Exception {
    Path file;
    try (CachePlan plan = CachePlan.publish(cache, List.of(B, A, B))) {
      file = plan.file();
      assertThat(file.getParent()).isEqualTo(cache.toRealPath().resolve(CacheLayout.PLANS_DIR));
      assertThat(file.getFileName().toString())
          .startsWith(ProcessHandle.current().pid() + ".")
          .endsWith(CachePlan.SUFFIX);
      assertThat(Files.readAllLines(file, StandardCharsets.US_ASCII)).containsExactly(B, A, B);
      NextUse n = NextUse.fromPlans(cache);
      assertThat(n.of(B)).isZero();
      assertThat(n.of(A)).isEqualTo(1);
      assertThat(n.of(C)).isEqualTo(NextUse.NEVER);

      plan.update(List.of(C, A));
      assertThat(Files.readAllLines(file, StandardCharsets.US_ASCII)).containsExactly(C, A);
      NextUse frozen = NextUse.fromPlans(cache).snapshot();
      assertThat(frozen.of(B)).isEqualTo(NextUse.NEVER);
      assertThat(frozen.of(C)).isZero();
      // Nothing half-written is left beside it.
      assertThat(CacheChecks.list(file.getParent())).containsExactly(file);

      plan.close();
      assertThat(file).doesNotExist();
      // A snapshot is fixed: it does not follow the files.
      assertThat(frozen.of(A)).isEqualTo(1);
      assertThatThrownBy(() -> plan.update(List.of(A))).isInstanceOf(IllegalStateException.class);
    }
    assertThat(NextUse.fromPlans(cache).of(A)).isEqualTo(NextUse.NEVER);
  }

  @Test
  void badShasAreRefusedAndTheOldPlanStays() throws Exception {
    try (CachePlan plan = CachePlan.publish(cache, List.of(A))) {
      assertThatThrownBy(() -> plan.update(List.of(B, "ABC")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("ABC");
      assertThatThrownBy(() -> plan.update(List.of(A.toUpperCase())))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(Files.readAllLines(plan.file(), StandardCharsets.US_ASCII)).containsExactly(A);
      assertThat(CacheChecks.list(plan.file().getParent())).containsExactly(plan.file());
    }
  }

  @Test
  void theSmallestPositionOverLivePlansWins() throws Exception {
    try (CachePlan one = CachePlan.publish(cache, List.of(A, B, C));
        CachePlan two = CachePlan.publish(cache, List.of(C))) {
      NextUse n = NextUse.fromPlans(cache);
      assertThat(n.of(A)).isZero();
      assertThat(n.of(B)).isEqualTo(1);
      assertThat(n.of(C)).isZero();
      assertThat(one.file()).isNotEqualTo(two.file());
    }
  }

  @Test
  void aViewIsRecognisedByItsPlaceInACache() throws Exception {
    CacheLayout layout = new CacheLayout(cache);
    Path view = Files.createDirectories(layout.view("ds", 3));
    assertThat(CacheLayout.cacheOf(view)).contains(cache.toRealPath());
    assertThat(CacheLayout.cacheOf(view.getParent())).isEmpty();
    assertThat(CacheLayout.cacheOf(cache)).isEmpty();
    assertThat(CacheLayout.cacheOf(cache.resolve("missing"))).isEmpty();
    Path notACache = Files.createDirectories(cache.resolve("x/snapshots/ds/3"));
    assertThat(CacheLayout.cacheOf(notACache)).isEmpty();
    Path notAVersion = Files.createDirectories(layout.snapshotsDir().resolve("ds/v3"));
    assertThat(CacheLayout.cacheOf(notAVersion)).isEmpty();
  }
}
