package dev.riffle.format.io;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them: {@code 90s}, {@code 15m}, {@code 1h}, {@code 2d}, {@code 0}. */
public final class Durations {
  private Durations() {}

  private static final Pattern TEXT = Pattern.compile("([0-9]+)\\s*(ms|s|m|min|h|d)?");

  /**
   * The largest number of any unit: nine digits (in days 2.7 million years, beyond any grace period
   * and still far from where time arithmetic overflows).
   */
  static final long MAX_NUMBER = 999_999_999;

  /**
   * Parses a whole number with a unit: {@code ms}, {@code s}, {@code m} or {@code min}, {@code h},
   * {@code d}; a bare number is seconds.
   *
   * @throws IllegalArgumentException naming the text if it is none of these, or if its number is
   *     over {@link #MAX_NUMBER}
   */
  public static Duration parse(String text) {
    Matcher m = TEXT.matcher(text.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "not a duration: '" + text + "' (write e.g. 90s, 15m, 1h or 2d)");
    }
    String unit = m.group(2) == null ? "s" : m.group(2);
    String digits = m.group(1).replaceFirst("^0+(?=.)", "");
    if (digits.length() > 9) {
      throw new IllegalArgumentException(
          "duration too large: '" + text + "' (at most " + MAX_NUMBER + unit + ")");
    }
    long n = Long.parseLong(digits);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m", "min" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  /** A duration for messages, to the largest two units: {@code 45 s}, {@code 12 min 5 s}, ... */
  public static String format(Duration d) {
    if (d.isNegative()) {
      return "-" + format(d.negated());
    }
    long s = d.getSeconds();
    if (s < 60) {
      return s == 0 && d.toMillis() > 0 ? d.toMillis() + " ms" : s + " s";
    }
    if (s < 3600) {
      return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
    }
    if (s < 86400) {
      return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
    }
    return s / 86400 + " d" + (s % 86400 / 3600 == 0 ? "" : " " + s % 86400 / 3600 + " h");
  }
}
