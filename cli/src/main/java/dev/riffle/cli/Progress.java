package dev.riffle.cli;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The one progress line of every long command, on stderr: amount done of the total, percentage,
 * rate and ETA, e.g. "convert: 1.2 GiB / 4.0 GiB (30%), 85.3 MiB/s, ETA 34 s". Redrawn in place at
 * most once a second, so runs under a second print nothing. It stays silent unless attached to a
 * terminal (or asked for), so that logs, pipes and tests never see carriage returns. Thread-safe: a
 * library may report from its own thread.
 */
final class Progress {
  private final PrintWriter err;
  private final String label;
  private final long total;
  private final boolean enabled;
  // Null for bytes; otherwise the noun of a count ("row", "batch").
  private final String noun;
  private final long startNanos = System.nanoTime();
  private long lastNanos = startNanos;
  private boolean shown;

  Progress(PrintWriter err, String label, long total, boolean enabled, String noun) {
    this.err = err;
    this.label = label;
    this.total = total;
    this.enabled = enabled && total > 0;
    this.noun = noun;
  }

  /** Bytes done of {@code total}, on a terminal only. */
  static Progress bytes(PrintWriter err, String label, long total) {
    return new Progress(err, label, total, onTerminal(), null);
  }

  /** A count of {@code noun}s done of {@code total} ("rows", "batches"), on a terminal only. */
  static Progress count(PrintWriter err, String label, long total, String noun) {
    return new Progress(err, label, total, onTerminal(), noun);
  }

  /** Whether stdin and stdout are a terminal: the only time a redrawn line is welcome. */
  static boolean onTerminal() {
    return System.console() != null;
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
      err.print("\r" + label + ": " + line(done, total, (now - startNanos) / 1e9, noun) + "    ");
      err.flush();
    }
  }

  /** Ends the progress line, if one was drawn. */
  synchronized void done() {
    if (shown) {
      double seconds = (System.nanoTime() - startNanos) / 1e9;
      err.print("\r" + label + ": " + line(total, total, seconds, noun) + "    \n");
      err.flush();
    }
  }

  /**
   * E.g. "1.0 MiB / 4.0 MiB (25%), 1.0 MiB/s, ETA 3 s" for bytes ({@code noun} null), or "12,000 /
   * 40,000 rows (30%), 4,000 rows/s, ETA 7 s" for a count.
   */
  static String line(long done, long total, double seconds, String noun) {
    double rate = seconds > 0 ? done / seconds : 0;
    String amount =
        noun == null
            ? Sizes.bytes(done) + " / " + Sizes.bytes(total)
            : Sizes.count(done) + " / " + Sizes.count(total, noun);
    String perSecond =
        noun == null
            ? Sizes.bytes(Math.round(rate)) + "/s"
            : Sizes.count(Math.round(rate)) + " " + Sizes.plural(noun) + "/s";
    String eta =
        rate > 0 && done < total ? eta((total - done) / rate) : done >= total ? "0 s" : "?";
    long percent = total == 0 ? 100 : 100 * done / total;
    return amount + " (" + percent + "%), " + perSecond + ", ETA " + eta;
  }

  /** "7 s", "3 min 05 s", "2 h 10 min". */
  static String eta(double seconds) {
    long s = (long) Math.ceil(seconds);
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%d h %02d min", s / 3600, (s % 3600) / 60);
  }
}
