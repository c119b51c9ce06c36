package dev.riffle.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import dev.riffle.format.io.Numbers;
import java.io.IOException;

/**
 * How every command writes a float or double in JSON (README, "one convention throughout"): as
 * {@link Numbers#repr} does, the digits Java finds for it (the shortest that read back as the same
 * value) laid out as Python's {@code repr} lays them out, which is what pandas and NumPy users see:
 * plain from 1e-4 up to 1e16 ({@code 0.1}, {@code 123456789.125}, {@code 3.0}), with an exponent
 * outside ({@code 1e+20}, {@code 1.5e-07}). Java's own form ({@code 1.0E20}, {@code
 * 1.23456789125E8}) is valid JSON but reads oddly. NaN and the infinities stay the strings Jackson
 * writes for them.
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
    return Numbers.repr(d);
  }

  /** A finite float as JSON text: its own shortest digits, not those of its double. */
  static String text(float f) {
    return Numbers.repr(f);
  }
}
