package dev.riffle.format.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * {@link SeedExtension} on small test classes run through JUnit's {@link EngineTestKit}: the seed a
 * test gets, pinned and random, and the reproduce line a failure carries.
 */
class SeedExtensionTest {

  /** Set on the kit's runs only, so that the classes below do nothing when run on their own. */
  static final String KIT = "riffle.seedExtensionTest";

  /** Seeds the classes below saw, in order. */
  static final List<Long> seen = new ArrayList<>();

  @Test
  void aFailureCarriesTheReproduceLineWithThePinnedSeed() {
    EngineExecutionResults r = run(Failing.class, "1f3a");
    assertThat(r.testEvents().failed().count()).isEqualTo(1);
    Throwable t = failure(r, "fails");
    String line =
        "reproduce with: mvn -pl format test"
            + " '-Dtest=SeedExtensionTest$Failing#fails' -Dtests.seed=1f3a";
    assertThat(t).isInstanceOf(AssertionError.class).hasMessage("boom");
    assertThat(t.getSuppressed()).hasSize(1);
    assertThat(t.getSuppressed()[0]).hasMessage(line);
    // @BeforeEach and the test got the same seed, the pinned one.
    assertThat(seen).containsExactly(0x1f3aL, 0x1f3aL);
  }

  @Test
  void aPinnedSeedIsTheSameForEveryTestAndMayHaveA0xPrefix() {
    run(Passing.class, "0xFFFFFFFFFFFFFFFF");
    assertThat(seen).containsExactly(-1L, -1L);
  }

  @Test
  void withoutAPinnedSeedEachTestDrawsItsOwn() {
    EngineExecutionResults r = run(Passing.class, null);
    assertThat(r.testEvents().succeeded().count()).isEqualTo(2);
    // Two equal draws of 64 random bits would take a broken extension, or about 2^64 runs.
    assertThat(seen).hasSize(2).doesNotHaveDuplicates();
  }

  @Test
  void aFailureInAfterEachCarriesTheLineAndATestFailureCarriesItOnce() {
    EngineExecutionResults r = run(FailingAfterEach.class, "2a");
    Throwable afterOnly = failure(r, "passes");
    assertThat(afterOnly).hasMessage("leak");
    assertThat(afterOnly.getSuppressed()).hasSize(1);
    assertThat(afterOnly.getSuppressed()[0].getMessage())
        .endsWith("'-Dtest=SeedExtensionTest$FailingAfterEach#passes' -Dtests.seed=2a");
    // The test failed and so did @AfterEach: JUnit adds the second as suppressed to the first,
    // which carries the line; the second does not repeat it.
    Throwable both = failure(r, "fails");
    assertThat(both).hasMessage("boom");
    assertThat(both.getSuppressed()).hasSize(2);
    assertThat(both.getSuppressed()[0].getMessage()).startsWith("reproduce with: ");
    assertThat(both.getSuppressed()[1]).hasMessage("leak");
    assertThat(both.getSuppressed()[1].getSuppressed()).isEmpty();
  }

  @Test
  void aParameterizedTestIsReplayedByItsMethodName() {
    EngineExecutionResults r = run(Parameterized.class, "7");
    assertThat(r.testEvents().failed().count()).isEqualTo(1);
    Throwable t = failure(r, "fails");
    assertThat(t.getSuppressed()[0].getMessage())
        .endsWith("'-Dtest=SeedExtensionTest$Parameterized#fails' -Dtests.seed=7");
    assertThat(seen).containsExactly(7L, 7L, 7L);
  }

  @Test
  void aTestWithoutASeedAndASkippedOneAreLeftAlone() {
    EngineExecutionResults r = run(Unseeded.class, "1");
    assertThat(failure(r, "failsWithoutSeed").getSuppressed()).isEmpty();
    assertThat(r.testEvents().aborted().count()).isEqualTo(1);
    Throwable aborted =
        r.testEvents().aborted().stream()
            .findFirst()
            .flatMap(e -> e.getPayload(TestExecutionResult.class))
            .flatMap(TestExecutionResult::getThrowable)
            .orElseThrow();
    assertThat(aborted.getSuppressed()).isEmpty();
  }

  @Test
  void aBadPinnedSeedFailsTheTestAndSaysWhy() {
    EngineExecutionResults r = run(Passing.class, "xyz");
    assertThat(r.testEvents().failed().count()).isEqualTo(2);
    assertThat(failure(r, "passes"))
        .hasStackTraceContaining("-Dtests.seed=xyz is not an unsigned hex long");
  }

  @Test
  void reproduceLineNamesModuleClassMethodAndSeedAsHex() {
    assertThat(SeedExtension.reproduceLine("loader", SeedExtensionTest.class, "m", -2))
        .isEqualTo(
            "reproduce with: mvn -pl loader test -Dtest=SeedExtensionTest#m"
                + " -Dtests.seed=fffffffffffffffe");
    // This class is in format/target/test-classes.
    assertThat(SeedExtension.module(SeedExtensionTest.class)).isEqualTo("format");
    assertThat(SeedExtension.draw("fffffffffffffffe")).isEqualTo(-2);
  }

  // ---------------------------------------------------------------------------------------------

  private static EngineExecutionResults run(Class<?> c, String pinned) {
    seen.clear();
    return withProperty(
        pinned,
        () ->
            EngineTestKit.engine("junit-jupiter")
                .configurationParameter(KIT, "true")
                .selectors(selectClass(c))
                .execute());
  }

  private static <T> T withProperty(String value, Callable<T> body) {
    String before = System.getProperty(SeedExtension.PROPERTY);
    try {
      if (value == null) {
        System.clearProperty(SeedExtension.PROPERTY);
      } else {
        System.setProperty(SeedExtension.PROPERTY, value);
      }
      return body.call();
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      if (before == null) {
        System.clearProperty(SeedExtension.PROPERTY);
      } else {
        System.setProperty(SeedExtension.PROPERTY, before);
      }
    }
  }

  /** What the first failed test whose method is {@code method} threw. */
  private static Throwable failure(EngineExecutionResults r, String method) {
    return r.testEvents().failed().stream()
        .filter(e -> method.equals(methodName(e)))
        .findFirst()
        .flatMap(e -> e.getPayload(TestExecutionResult.class))
        .flatMap(TestExecutionResult::getThrowable)
        .orElseThrow(() -> new AssertionError("no failure of " + method + ": " + r.testEvents()));
  }

  private static String methodName(Event e) {
    return e.getTestDescriptor()
        .getSource()
        .filter(s -> s instanceof MethodSource)
        .map(s -> ((MethodSource) s).getMethodName())
        .orElse("");
  }

  /** Runs the classes below on the kit's runs only. */
  static final class OnlyInTheKit implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      Optional<String> kit = context.getConfigurationParameter(KIT);
      return kit.isPresent()
          ? ConditionEvaluationResult.enabled("run by SeedExtensionTest")
          : ConditionEvaluationResult.disabled("run by SeedExtensionTest only");
    }
  }

  @ExtendWith({OnlyInTheKit.class, SeedExtension.class})
  static class Failing {
    @BeforeEach
    void before(@Seed long seed) {
      seen.add(seed);
    }

    @Test
    void fails(@Seed long seed) {
      seen.add(seed);
      throw new AssertionError("boom");
    }
  }

  @ExtendWith({OnlyInTheKit.class, SeedExtension.class})
  static class Passing {
    @Test
    void passes(@Seed long seed) {
      seen.add(seed);
    }

    @Test
    void passesToo(@Seed long seed) {
      seen.add(seed);
    }
  }

  @ExtendWith({OnlyInTheKit.class, SeedExtension.class})
  static class FailingAfterEach {
    @AfterEach
    void after(@Seed long seed) {
      throw new IllegalStateException("leak");
    }

    @Test
    void passes(@Seed long seed) {}

    @Test
    void fails(@Seed long seed) {
      throw new AssertionError("boom");
    }
  }

  @ExtendWith({OnlyInTheKit.class, SeedExtension.class})
  static class Parameterized {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void fails(int n, @Seed long seed) {
      seen.add(seed);
      assertThat(n).isNotEqualTo(2);
    }
  }

  @ExtendWith({OnlyInTheKit.class, SeedExtension.class})
  static class Unseeded {
    @Test
    void failsWithoutSeed() {
      throw new AssertionError("no seed taken");
    }

    @Test
    void skipped(@Seed long seed) {
      Assumptions.abort("not here");
    }
  }
}
