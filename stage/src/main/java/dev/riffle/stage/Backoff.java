package dev.riffle.stage;

import java.io.InterruptedIOException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with full jitter: attempt {@code k} (from 1) sleeps a uniform random time in
 * {@code [0, min(cap, base * 2^(k-1))]}. The jitter keeps many threads that failed together (a
 * server restart) from retrying in lock step.
 */
final class Backoff {
  private Backoff() {}

  /** The sleep before retry number {@code attempt}, in milliseconds. */
  static long delayMillis(int attempt, long baseMillis, long capMillis) {
    long ceiling = Math.min(capMillis, baseMillis << Math.min(attempt - 1, 20));
    return ceiling <= 0 ? 0 : ThreadLocalRandom.current().nextLong(ceiling + 1);
  }

  static void sleep(int attempt, long baseMillis, long capMillis, String what)
      throws InterruptedIOException {
    try {
      Thread.sleep(delayMillis(attempt, baseMillis, capMillis));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while retrying " + what);
    }
  }
}
