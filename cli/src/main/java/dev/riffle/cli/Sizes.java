package dev.riffle.cli;

import dev.riffle.format.io.Numbers;

/**
 * How text output writes counts and sizes, the same in every command: counts with thousands
 * separators (20,000), sizes in binary units (140.1 MiB). {@code --json} has the raw numbers.
 */
final class Sizes {
  private Sizes() {}

  /** A count with thousands separators: 20,000. */
  static String count(long n) {
    return Numbers.count(n);
  }

  /** A count and its noun, plural unless 1: "1 file", "20,000 rows". */
  static String count(long n, String noun) {
    return count(n) + " " + (n == 1 ? noun : plural(noun));
  }

  /** "rows", "batches", "files", "retries". */
  static String plural(String noun) {
    if (noun.length() > 1
        && noun.endsWith("y")
        && "aeiou".indexOf(noun.charAt(noun.length() - 2)) < 0) {
      return noun.substring(0, noun.length() - 1) + "ies";
    }
    return noun.endsWith("ch") || noun.endsWith("sh") || noun.endsWith("s")
        ? noun + "es"
        : noun + "s";
  }

  /** A size in binary units: 812 B, 4.0 KiB, 140.1 MiB. */
  static String bytes(long n) {
    return InspectCommand.humanBytes(n);
  }
}
