package dev.riffle.cli;

import java.io.PrintWriter;

/**
 * A percentage on stderr for long runs, redrawn in place at most once a second. It stays silent
 * unless asked for and attached to a terminal, so that logs and tests never see carriage returns.
 */
final class Progress {
  private final PrintWriter err;
  private final long total;
  private final boolean enabled;
  private long lastNanos = System.nanoTime();
  private boolean shown;

  Progress(PrintWriter err, long total, boolean enabled) {
    this.err = err;
    this.total = total;
    this.enabled = enabled && total > 0;
  }

  /** Enabled for {@code total >= threshold} when the process has a terminal. */
  static Progress forTerminal(PrintWriter err, long total, long threshold) {
    return new Progress(err, total, total >= threshold && System.console() != null);
  }

  void update(long done) {
    if (!enabled) {
      return;
    }
    long now = System.nanoTime();
    if (now - lastNanos >= 1_000_000_000L) {
      lastNanos = now;
      shown = true;
      err.print("\rgenerate: " + (100 * done / total) + "%");
      err.flush();
    }
  }

  /** Ends the progress line, if one was drawn. */
  void done() {
    if (shown) {
      err.print("\rgenerate: 100%\n");
      err.flush();
    }
  }
}
