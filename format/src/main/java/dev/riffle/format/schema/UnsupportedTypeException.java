package dev.riffle.format.schema;

/** A schema names a type, or a type in a place, that Riffle cannot store. */
public final class UnsupportedTypeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public UnsupportedTypeException(String fieldPath, String type, String why) {
    super("field '" + fieldPath + "' has type " + type + ", which Riffle cannot store: " + why);
  }
}
