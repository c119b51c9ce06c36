package dev.riffle.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import java.io.IOException;

/**
 * How every command writes a float or double in JSON (README, "one convention throughout"): the
 * digits Java finds for it (the shortest that read back as the same value), laid out as Python's
 * {@code repr} lays them out, which is what pandas and NumPy users see: plain from 1e-4 up to 1e16
 * ({@code 0.1}, {@code 123456789.125}, {@code 3.0}), with an exponent outside ({@code 1e+20},
 * {@code 1.5e-07}). Java's own form ({@code 1.0E20}, {@code 1.23456789125E8}) is valid JSON but
 * reads oddly. NaN and the infinities stay the strings Jackson writes for them.
 */
final class JsonNumbers {
  private JsonNumbers() {}

  /** Wraps a generator so that its floats and doubles are written as {@link #text}. */
  static JsonGenerator decorate(JsonGenerator g) {
    return new JsonGeneratorDelegate(g, false) {
      @Override
      public void writeNumber(double d) throws IOException {
        if (Double.isFinite(d)) {
          delegate.writeNumber(text(d));
        } else {
          delegate.writeNumber(d);
        }
      }

      @Override
      public void writeNumber(float f) throws IOException {
        if (Float.isFinite(f)) {
          delegate.writeNumber(text(f));
        } else {
          delegate.writeNumber(f);
        }
      }
    };
  }

  /** A finite double as JSON text. */
  static String text(double d) {
    return layOut(Double.toString(d));
  }

  /** A finite float as JSON text: its own shortest digits, not those of its double. */
  static String text(float f) {
    return layOut(Float.toString(f));
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
