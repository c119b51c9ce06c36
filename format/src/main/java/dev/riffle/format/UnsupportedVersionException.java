package dev.riffle.format;

/** The file is a Riffle file of a version this reader does not read. */
public final class UnsupportedVersionException extends CorruptFileException {
  private static final long serialVersionUID = 1L;

  public UnsupportedVersionException(String resource, long offset, int major, int minor) {
    super(resource, offset, message(major, minor));
  }

  private static String message(int major, int minor) {
    String supported =
        FileLayout.VERSION_MAJOR
            + ".0 and "
            + FileLayout.VERSION_MAJOR
            + "."
            + FileLayout.VERSION_MINOR;
    String refused =
        "format version " + major + "." + minor + " is not supported; this reader reads ";
    if (major == FileLayout.VERSION_MAJOR && minor > 0 && minor <= FileLayout.LAST_DRAFT_MINOR) {
      return refused
          + supported
          + " (a pre-release draft of 1.0, written before the drafts were folded into it: write the"
          + " file again)";
    }
    return refused + supported;
  }
}
