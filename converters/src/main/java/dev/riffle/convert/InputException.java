package dev.riffle.convert;

import java.io.IOException;

/**
 * Input that cannot be converted: not the expected format, truncated, an unsupported type, or a
 * schema that differs from the other inputs'. The message is one line that starts with the file.
 */
public final class InputException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * @param file the input, as the user named it
   * @param problem what is wrong with it
   */
  public InputException(String file, String problem) {
    super(file + ": " + problem);
  }

  public InputException(String file, String problem, Throwable cause) {
    super(file + ": " + problem, cause);
  }
}
