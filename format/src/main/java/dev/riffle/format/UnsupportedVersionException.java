package dev.riffle.format;

/** The file is a Riffle file of a version this reader does not read. */
public final class UnsupportedVersionException extends CorruptFileException {
  private static final long serialVersionUID = 1L;

  public UnsupportedVersionException(String resource, long offset, int major, int minor) {
    super(
        resource,
        offset,
        "format version "
            + major
            + "."
            + minor
            + " is not supported; this "
            + "reader reads "
            + FileLayout.VERSION_MAJOR
            + ".0 to "
            + FileLayout.VERSION_MAJOR
            + "."
            + FileLayout.VERSION_MINOR_SUPPORTED);
  }
}
