package dev.riffle.cli;

import java.io.PrintWriter;
import java.util.function.LongFunction;

/**
 * A progress line on stderr for long runs, redrawn in place at most once a second. It stays silent
 * unless asked for and attached to a terminal, so that logs and tests never see carriage returns.
 * Thread-safe: a library may report from its own thread.
 */
final class Progress {
  private final PrintWriter err;
  private final String label;
  private final long total;
  private final boolean enabled;
  private final LongFunction<String> describe;
  private long lastNanos = System.nanoTime();
  private boolean shown;

  Progress(PrintWriter err, long total, boolean enabled) {
    this(err, "generate", total, enabled, null);
  }

  /**
   * @param describe how to show an amount done (after the label), or null for a percentage
   */
  Progress(
      PrintWriter err, String label, long total, boolean enabled, LongFunction<String> describe) {
    this.err = err;
    this.label = label;
    this.total = total;
    this.enabled = enabled && total > 0;
    this.describe = describe != null ? describe : done -> (100 * done / total) + "%";
  }

  /** Enabled for {@code total >= threshold} when the process has a terminal. */
  static Progress forTerminal(PrintWriter err, long total, long threshold) {
    return new Progress(err, total, total >= threshold && System.console() != null);
  }

  /** Bytes done of {@code total}, e.g. "validate: 1.2 GiB / 4.0 GiB (30%)", on a terminal only. */
  static Progress bytes(PrintWriter err, String label, long total) {
    return new Progress(
        err,
        label,
        total,
        System.console() != null,
        done ->
            InspectCommand.humanBytes(done)
                + " / "
                + InspectCommand.humanBytes(total)
                + " ("
                + (100 * done / total)
                + "%)");
  }

  synchronized void update(long done) {
    if (!enabled) {
      return;
    }
    long now = System.nanoTime();
    if (now - lastNanos >= 1_000_000_000L) {
      lastNanos = now;
      shown = true;
      // Trailing spaces wipe what a longer previous line left behind.
      err.print("\r" + label + ": " + describe.apply(done) + "    ");
      err.flush();
    }
  }

  /** Ends the progress line, if one was drawn. */
  synchronized void done() {
    if (shown) {
      err.print("\r" + label + ": " + describe.apply(total) + "    \n");
      err.flush();
    }
  }
}
