package dev.riffle.convert.h5ad;

import java.util.Locale;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The value type X is stored with. By default the file's own dtype (float64, int32, uint16...), so
 * that converting loses nothing; float32 halves a float64 X where the user asks for it.
 */
public enum XDtype {
  /** X's dtype in the file. */
  STORED,
  FLOAT32,
  FLOAT64;

  /**
   * From {@code stored}, {@code float32} or {@code float64}.
   *
   * @throws IllegalArgumentException naming the choices
   */
  public static XDtype parse(String s) {
    for (XDtype t : values()) {
      if (t.name().equalsIgnoreCase(s)) {
        return t;
      }
    }
    throw new IllegalArgumentException("X dtype '" + s + "' is none of stored, float32, float64");
  }

  /** The Arrow type X's values get, given the file's. */
  ArrowType apply(ArrowType stored) {
    switch (this) {
      case FLOAT32:
        return Values.FLOAT32;
      case FLOAT64:
        return Values.FLOAT64;
      default:
        return stored;
    }
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
