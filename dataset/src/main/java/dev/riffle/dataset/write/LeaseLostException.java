package dev.riffle.dataset.write;

import java.io.IOException;

/**
 * A writer's lease on a dataset was lost (removed by gc, or left unrenewed so long that gc may have
 * taken the writer for gone), so its data files may have been deleted: it publishes nothing.
 */
public final class LeaseLostException extends IOException {
  private static final long serialVersionUID = 1L;

  public LeaseLostException(String uri, String why) {
    super("not publishing to " + uri + ": " + why + "; nothing was published");
  }
}
