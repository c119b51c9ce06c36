package dev.riffle.format.testing;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Seeds for randomized tests. A failing randomized test must print the seed it ran with, so that
 * the failure can be replayed exactly with {@code -Dtests.seed=<hex>}.
 */
public final class Seeds {

  /** System property that pins the seed, as unsigned hex (e.g. {@code -Dtests.seed=1f3a}). */
  public static final String PROPERTY = "tests.seed";

  private Seeds() {}

  /**
   * The seed from system property {@code tests.seed} (unsigned hex, optional {@code 0x}) when set,
   * otherwise a fresh random one, so that repeated runs explore new inputs.
   */
  public static long seed() {
    String s = System.getProperty(PROPERTY);
    if (s == null || s.isBlank()) {
      return ThreadLocalRandom.current().nextLong();
    }
    s = s.strip();
    if (s.startsWith("0x") || s.startsWith("0X")) {
      s = s.substring(2);
    }
    try {
      return Long.parseUnsignedLong(s, 16);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "-D" + PROPERTY + "=" + s + " is not an unsigned hex long", e);
    }
  }

  /**
   * The line to append to a failure message of a test in module {@code format}: {@code reproduce
   * with: mvn -pl format test -Dtest=Cls#method -Dtests.seed=<hex>}.
   */
  public static String reproduce(Class<?> c, String method, long seed) {
    return reproduce("format", c, method, seed);
  }

  /** As {@link #reproduce(Class, String, long)}, for a test in the given Maven module. */
  public static String reproduce(String module, Class<?> c, String method, long seed) {
    return "reproduce with: mvn -pl "
        + module
        + " test -Dtest="
        + c.getSimpleName()
        + "#"
        + method
        + " -D"
        + PROPERTY
        + "="
        + Long.toHexString(seed);
  }
}
