package dev.riffle.format.io;

import java.util.Locale;

/**
 * Numbers as people write them, for messages: counts with thousands separators ({@code
 * 1,000,000,000}), and other numbers with the shortest digits that read back as the same double,
 * laid out as Python's {@code repr} lays them out ({@code 0.25}, {@code 1e-09}, {@code 1.5e+20})
 * rather than as Java's {@code toString} does ({@code 1.0E-9}), which reads oddly. The CLI's JSON
 * writes floats with {@link #repr}, which pandas and NumPy users know.
 */
public final class Numbers {
  private Numbers() {}

  /** A count with thousands separators: {@code 20,000}. */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /**
   * A number for a message: a whole number below 10^16 as a count ({@code 3}, {@code
   * 1,000,000,000}), any other as {@link #repr} ({@code 0.25}, {@code 1e-09}, {@code 1e+20}); NaN
   * and the infinities as Java names them.
   */
  public static String text(double d) {
    if (d == Math.rint(d) && Math.abs(d) < 1e16) {
      return count((long) d);
    }
    return repr(d);
  }

  /**
   * A finite double as Python's repr writes it: plain from 1e-4 up to 1e16 ({@code 0.1}, {@code
   * 123456789.125}, {@code 3.0}), with an exponent outside ({@code 1e+20}, {@code 1.5e-07}). NaN
   * and the infinities as Java names them.
   */
  public static String repr(double d) {
    return Double.isFinite(d) ? layOut(Double.toString(d)) : Double.toString(d);
  }

  /** A finite float as {@link #repr(double)}, with its own shortest digits, not its double's. */
  public static String repr(float f) {
    return Float.isFinite(f) ? layOut(Float.toString(f)) : Float.toString(f);
  }

  /** Java's {@code [-]D.DDD[E[-]X]} as Python's repr lays the same digits out. */
  private static String layOut(String java) {
    if (java.indexOf('E') < 0) {
      // Java writes plain from 1e-3 to 1e7, within Python's plain range: the same text.
      return java;
    }
    boolean negative = java.startsWith("-");
    String s = negative ? java.substring(1) : java;
    int e = s.indexOf('E');
    String mantissa = e < 0 ? s : s.substring(0, e);
    int dot = mantissa.indexOf('.');
    String digits = mantissa.substring(0, dot) + mantissa.substring(dot + 1);
    // Where the decimal point falls within the digits.
    int point = dot + (e < 0 ? 0 : Integer.parseInt(s.substring(e + 1)));
    int first = 0;
    while (first < digits.length() - 1 && digits.charAt(first) == '0') {
      first++;
      point--;
    }
    int end = digits.length();
    while (end > first + 1 && digits.charAt(end - 1) == '0') {
      end--;
    }
    digits = digits.substring(first, end);
    StringBuilder b = new StringBuilder(negative ? "-" : "");
    if (digits.equals("0")) {
      return b.append("0.0").toString();
    }
    int exponent = point - 1;
    if (exponent >= -4 && exponent < 16) {
      if (point <= 0) {
        b.append("0.").append("0".repeat(-point)).append(digits);
      } else if (point >= digits.length()) {
        b.append(digits).append("0".repeat(point - digits.length())).append(".0");
      } else {
        b.append(digits, 0, point).append('.').append(digits, point, digits.length());
      }
    } else {
      b.append(digits.charAt(0));
      if (digits.length() > 1) {
        b.append('.').append(digits, 1, digits.length());
      }
      b.append('e').append(exponent < 0 ? '-' : '+');
      if (Math.abs(exponent) < 10) {
        b.append('0');
      }
      b.append(Math.abs(exponent));
    }
    return b.toString();
  }
}
