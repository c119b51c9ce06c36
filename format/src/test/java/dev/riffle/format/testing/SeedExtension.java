package dev.riffle.format.testing;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Seeds randomized tests and, when one fails, says how to replay it.
 *
 * <p>A class registers it with {@code @ExtendWith(SeedExtension.class)} and takes the seed as a
 * parameter, {@code @Seed long seed}, of a test method or of a {@code @BeforeEach} or
 * {@code @AfterEach} method; all of one test's methods get the same seed. The seed is drawn once
 * per test, and each invocation of a parameterized or repeated test is a test of its own: from
 * {@code -Dtests.seed=<hex>} when that is set, so that a failure replays exactly, otherwise at
 * random, so that every run explores new inputs.
 *
 * <p>When a test that took a seed fails, in the test method or in a {@code @BeforeEach} or
 * {@code @AfterEach} method, the line
 *
 * <pre>reproduce with: mvn -pl MODULE test -Dtest=Cls#method -Dtests.seed=HEX</pre>
 *
 * is printed on stderr and attached to the failure as a suppressed exception: the failure keeps its
 * type and message (an IDE still shows its diff), and the line comes with its stack trace in
 * surefire's and failsafe's console output and reports. The module is the Maven module whose {@code
 * target/test-classes} hold the test class, so that a contract test inherited from another module's
 * test-jar names the module that ran it. A test that took no seed is left alone, and so is a
 * skipped one.
 */
public final class SeedExtension
    implements ParameterResolver,
        TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler {

  /** System property that pins the seed, as unsigned hex (e.g. {@code -Dtests.seed=1f3a}). */
  public static final String PROPERTY = "tests.seed";

  private static final Namespace NAMESPACE = Namespace.create(SeedExtension.class);
  private static final String SEED = "seed";
  private static final String REPORTED = "reported";

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.isAnnotated(Seed.class);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    if (parameter.getParameter().getType() != long.class) {
      throw new ParameterResolutionException(
          "@Seed goes on a long parameter, not on " + parameter.getParameter());
    }
    if (context.getTestMethod().isEmpty()) {
      // A class-level seed would be shared by tests that each need their own replay line.
      throw new ParameterResolutionException(
          "@Seed is drawn per test: take it in a test, @BeforeEach or @AfterEach method, not in "
              + parameter.getDeclaringExecutable());
    }
    return context
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(SEED, key -> draw(System.getProperty(PROPERTY)), Long.class);
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    throw attachReproduceLine(context, failure);
  }

  @Override
  public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    throw attachReproduceLine(context, failure);
  }

  @Override
  public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    throw attachReproduceLine(context, failure);
  }

  private static Throwable attachReproduceLine(ExtensionContext context, Throwable failure) {
    if (failure instanceof TestAbortedException) {
      return failure;
    }
    ExtensionContext.Store store = context.getStore(NAMESPACE);
    Long seed = store.get(SEED, Long.class);
    // Once per test: an @AfterEach failure after a failed test joins that failure as suppressed.
    if (seed == null || store.get(REPORTED) != null) {
      return failure;
    }
    store.put(REPORTED, Boolean.TRUE);
    Class<?> c = context.getRequiredTestClass();
    String line = reproduceLine(module(c), c, context.getRequiredTestMethod().getName(), seed);
    System.err.println(line);
    failure.addSuppressed(new ReproduceWith(line));
    return failure;
  }

  /** The seed {@code -Dtests.seed} gives (unsigned hex, optional {@code 0x}), or a random one. */
  static long draw(String property) {
    if (property == null || property.isBlank()) {
      return ThreadLocalRandom.current().nextLong();
    }
    String s = property.strip();
    if (s.startsWith("0x") || s.startsWith("0X")) {
      s = s.substring(2);
    }
    try {
      return Long.parseUnsignedLong(s, 16);
    } catch (NumberFormatException e) {
      throw new ParameterResolutionException(
          "-D" + PROPERTY + "=" + property + " is not an unsigned hex long", e);
    }
  }

  /**
   * {@code reproduce with: mvn -pl MODULE test -Dtest=Cls#method -Dtests.seed=HEX}. A nested class
   * is {@code Outer$Inner}, the name surefire matches, quoted for the shell. An {@code *IT} class
   * replays the same way: an explicit {@code -Dtest} runs it under surefire too.
   */
  static String reproduceLine(String module, Class<?> c, String method, long seed) {
    String name =
        c.getName().substring(c.getPackageName().isEmpty() ? 0 : c.getPackageName().length() + 1);
    String test = "-Dtest=" + name + "#" + method;
    if (name.indexOf('$') >= 0) {
      test = "'" + test + "'";
    }
    return "reproduce with: mvn "
        + (module.isEmpty() ? "" : "-pl " + module + " ")
        + "test "
        + test
        + " -D"
        + PROPERTY
        + "="
        + Long.toHexString(seed);
  }

  /**
   * The Maven module that holds the test class, as {@code -pl} takes it: its directory relative to
   * the reactor root (the top-most directory above it with a pom.xml); empty for a lone project.
   */
  static String module(Class<?> c) {
    Path dir = moduleDir(c);
    Path root = dir;
    while (root.getParent() != null && Files.isRegularFile(root.getParent().resolve("pom.xml"))) {
      root = root.getParent();
    }
    return root.relativize(dir).toString().replace('\\', '/');
  }

  /**
   * The directory of {@code target/test-classes} (or {@code target/classes}) the class was loaded
   * from; otherwise the working directory, which surefire and failsafe set to the module's.
   */
  private static Path moduleDir(Class<?> c) {
    try {
      CodeSource source = c.getProtectionDomain().getCodeSource();
      if (source != null && source.getLocation() != null) {
        Path p = Paths.get(source.getLocation().toURI()).toAbsolutePath().normalize();
        Path target = p.getParent();
        if (Files.isDirectory(p)
            && target != null
            && target.getParent() != null
            && Files.isRegularFile(target.getParent().resolve("pom.xml"))) {
          return target.getParent();
        }
      }
    } catch (URISyntaxException | RuntimeException e) {
      // A location that is no local directory (a jar in a jar, a custom loader): use user.dir.
    }
    return Paths.get(System.getProperty("user.dir")).toAbsolutePath().normalize();
  }

  /** Carries the reproduce line as a suppressed exception; its stack trace would say nothing. */
  static final class ReproduceWith extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ReproduceWith(String line) {
      super(line, null, false, false);
    }
  }
}
