package dev.riffle.dataset.storage;

import dev.riffle.format.CorruptFileException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The one retry policy of Riffle's remote reads: {@code HadoopStorage}'s metadata calls and reads,
 * the stager's ranged parts and the lazy cache's fetches all retry through it, and S3A's own
 * retries are turned off underneath ({@code HadoopStorage}), so that retries never multiply.
 * Uploads of data files, which S3A streams in the background and Riffle cannot repeat, are retried
 * by S3A alone, with this policy's attempts and within its retry window; {@code UploadRetries}
 * tells the {@link Listener} of each such retry and starts none after the deadline.
 *
 * <p>A failing request is tried at most {@code maxAttempts} times, with exponential backoff and
 * full jitter (attempt {@code k} sleeps a uniform time in {@code [0, min(cap, base·2^(k-1))]}, so
 * that many threads that failed together do not retry in lock step), and is not tried again once
 * {@code retrySeconds} have passed since its first attempt began. A command may add a total
 * deadline ({@link #withDeadline}): no attempt starts after it. How long one attempt may hang is
 * the connection's business (S3A's connect and socket timeouts, which {@link HadoopStorage}
 * bounds).
 *
 * @param maxAttempts tries per request, the first included (default 8)
 * @param baseMillis the first backoff's ceiling, doubled per attempt (default 250)
 * @param capMillis the largest backoff ceiling (default 4000)
 * @param retrySeconds no retry starts this long after a request's first attempt began (default 15)
 * @param deadlineNanos {@link System#nanoTime()} after which no attempt starts, or 0 for none
 */
public record RetryPolicy(
    int maxAttempts, long baseMillis, long capMillis, double retrySeconds, long deadlineNanos) {

  public static final int DEFAULT_MAX_ATTEMPTS = 8;
  public static final double DEFAULT_RETRY_SECONDS = 15;

  /**
   * How long a request retries errors that reached no server ({@link #reachedNoServer}) while its
   * endpoint has not answered once: a mistyped or dead endpoint then fails in seconds (issue 18),
   * while a server that did answer, and is now restarting or briefly unreachable, gets the whole
   * {@code retrySeconds}.
   */
  public static final double FIRST_CONTACT_SECONDS = 3;

  private static final String NEVER_ANSWERED =
      "the endpoint never answered: check that it is right and up";

  /** Told of each retry, for progress lines; called from any thread. */
  public interface Listener {
    Listener NONE = (what, attempt, maxAttempts, cause) -> {};

    /**
     * Attempt {@code attempt} of {@code what} failed with a transient error and will be retried.
     *
     * @param cause a few words: "connection refused", "timed out", ...
     */
    void retrying(String what, int attempt, int maxAttempts, String cause);
  }

  /** A call that may fail with an I/O error. */
  public interface IoCall<T> {
    T call() throws IOException;
  }

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("retry attempts must be at least 1: " + maxAttempts);
    }
    if (baseMillis < 0 || capMillis < 0 || !(retrySeconds >= 0)) {
      throw new IllegalArgumentException("negative backoff or retry time");
    }
  }

  public static RetryPolicy defaults() {
    return new RetryPolicy(DEFAULT_MAX_ATTEMPTS, 250, 4000, DEFAULT_RETRY_SECONDS, 0);
  }

  public RetryPolicy withAttempts(int attempts) {
    return new RetryPolicy(attempts, baseMillis, capMillis, retrySeconds, deadlineNanos);
  }

  public RetryPolicy withBackoff(long base, long cap) {
    return new RetryPolicy(maxAttempts, base, cap, retrySeconds, deadlineNanos);
  }

  public RetryPolicy withRetrySeconds(double seconds) {
    return new RetryPolicy(maxAttempts, baseMillis, capMillis, seconds, deadlineNanos);
  }

  /** No attempt starts more than {@code seconds} from now (0: no deadline). */
  public RetryPolicy withDeadline(double seconds) {
    if (!(seconds >= 0)) {
      throw new IllegalArgumentException("negative deadline: " + seconds);
    }
    long at = 0;
    if (seconds > 0) {
      at = System.nanoTime() + (long) (seconds * 1e9);
      // 0 means "none"; a clock that reads exactly 0 then is one nanosecond off.
      at = at == 0 ? 1 : at;
    }
    return new RetryPolicy(maxAttempts, baseMillis, capMillis, retrySeconds, at);
  }

  /** Whether a command deadline is set. */
  public boolean hasDeadline() {
    return deadlineNanos != 0;
  }

  /**
   * Runs {@code call}, retrying transient errors under this policy.
   *
   * @param what the request, for messages ("reading s3a://b/k")
   * @param endpoint the server, named in the final error (null if none)
   */
  public <T> T call(String what, String endpoint, Listener listener, IoCall<T> call)
      throws IOException {
    return call(what, endpoint, listener, true, call);
  }

  /**
   * As {@link #call(String, String, Listener, IoCall)}; unless {@code answered} (the endpoint
   * answered an earlier request), errors that reached no server are retried for at most {@link
   * #FIRST_CONTACT_SECONDS}.
   */
  public <T> T call(
      String what, String endpoint, Listener listener, boolean answered, IoCall<T> call)
      throws IOException {
    if (RETRYING.get()) {
      // An outer loop on this thread retries (and reports): once here, or retries multiply.
      return call.call();
    }
    RETRYING.set(true);
    try {
      long start = System.nanoTime();
      for (int attempt = 1; ; attempt++) {
        checkDeadline(what, endpoint);
        try {
          return call.call();
        } catch (IOException e) {
          boolean neverAnswered = !answered && reachedNoServer(e);
          long wait;
          try {
            wait = retryAfter(e, attempt, start, what, endpoint);
          } catch (RetriesExhausted exhausted) {
            // Short backoffs can use up the attempts inside the first-contact window: the reason
            // to give is still that nothing ever answered.
            if (!neverAnswered) {
              throw exhausted;
            }
            wait = Long.MAX_VALUE / 2_000_000L;
          }
          double elapsed = (System.nanoTime() - start) / 1e9;
          if (neverAnswered && elapsed + wait / 1e3 > FIRST_CONTACT_SECONDS) {
            throw giveUp(e, attempt, elapsed, what, endpoint, NEVER_ANSWERED);
          }
          listener.retrying(what, attempt, maxAttempts, describe(e));
          sleep(wait, what);
        }
      }
    } finally {
      RETRYING.set(false);
    }
  }

  /** Whether this thread is inside a retry loop ({@link #call} or {@link #owning}). */
  private static final ThreadLocal<Boolean> RETRYING = ThreadLocal.withInitial(() -> false);

  /**
   * Runs one attempt of a caller's own retry loop (one that uses {@link #retryAfter}): calls of any
   * policy inside it are tried once, their errors left to that loop, so retries never nest.
   */
  public static <T> T owning(IoCall<T> attempt) throws IOException {
    boolean outer = RETRYING.get();
    RETRYING.set(true);
    try {
      return attempt.call();
    } finally {
      RETRYING.set(outer);
    }
  }

  /**
   * What to do after attempt {@code attempt} of a request that began at {@code startNanos} failed
   * with {@code e}: the milliseconds to wait before the next attempt, or an exception to give up
   * with ({@code e} itself if it is not transient).
   */
  public long retryAfter(IOException e, int attempt, long startNanos, String what, String endpoint)
      throws IOException {
    if (!isTransient(e)) {
      throw e;
    }
    long wait = backoffMillis(attempt);
    long now = System.nanoTime();
    double elapsed = (now - startNanos) / 1e9;
    boolean pastDeadline = hasDeadline() && now + wait * 1_000_000L - deadlineNanos > 0;
    if (attempt >= maxAttempts || elapsed + wait / 1e3 > retrySeconds || pastDeadline) {
      String why =
          pastDeadline
              ? "the command's deadline would pass: --deadline, riffle.deadline.seconds"
              : attempt >= maxAttempts
                  ? "the most per request: --retries, riffle.retry.attempts"
                  : "the retry time per request, "
                      + fmt(retrySeconds)
                      + " s, is spent: --retry-seconds, riffle.retry.seconds";
      throw giveUp(e, attempt, elapsed, what, endpoint, why);
    }
    return wait;
  }

  /** Fails with a clear error if the command's deadline has passed. */
  public void checkDeadline(String what, String endpoint) throws IOException {
    if (hasDeadline() && System.nanoTime() - deadlineNanos > 0) {
      throw new InterruptedIOException(
          what
              + ": the command's deadline passed (--deadline, riffle.deadline.seconds)"
              + (endpoint == null ? "" : "; endpoint " + endpoint));
    }
  }

  private static IOException giveUp(
      IOException e, int attempt, double elapsed, String what, String endpoint, String why) {
    return new RetriesExhausted(
        what
            + ": gave up after "
            + attempt
            + (attempt == 1 ? " attempt" : " attempts")
            + " in "
            + fmt(elapsed)
            + " s ("
            + why
            + "); last error: "
            + describe(e)
            + (endpoint == null ? "" : "; endpoint " + endpoint),
        e);
  }

  /** The error a request gives up with: not transient, so outer loops do not retry it again. */
  public static final class RetriesExhausted extends IOException {
    private static final long serialVersionUID = 1L;

    RetriesExhausted(String message, IOException cause) {
      super(message, cause);
    }
  }

  /** The sleep before retry number {@code attempt} (from 1), in milliseconds. */
  public long backoffMillis(int attempt) {
    long ceiling = Math.min(capMillis, baseMillis << Math.min(attempt - 1, 20));
    return ceiling <= 0 ? 0 : ThreadLocalRandom.current().nextLong(ceiling + 1);
  }

  static void sleep(long millis, String what) throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while retrying " + what);
    }
  }

  /**
   * Network and server errors are transient; a missing, short, corrupt or forbidden object (or a
   * missing bucket) is not (retrying cannot change the answer), nor is an interrupt of this thread,
   * nor a request that already gave up. Socket timeouts are {@link InterruptedIOException}s too, so
   * only a set interrupt flag makes one permanent.
   */
  public static boolean isTransient(IOException e) {
    if (e instanceof RetriesExhausted) {
      return false;
    }
    // S3A reports a connection the server dropped as HttpChannelEOFException, an EOFException:
    // a network error, unlike a read past the end. Matched by name so S3A classes load only
    // where S3A is used.
    if (e.getClass().getName().equals("org.apache.hadoop.fs.s3a.HttpChannelEOFException")) {
      return true;
    }
    // S3A also turns some client-side failures (a server that stopped responding while a stream
    // was re-opened, a body shorter than its Content-Length) into a plain EOFException whose
    // cause is the SDK's client exception. A true read past the end has no such cause.
    if (e instanceof EOFException && causedByHttpClient(e)) {
      return true;
    }
    if (e instanceof NoSuchFileException
        || e instanceof FileNotFoundException
        || e instanceof EOFException
        || e instanceof CorruptFileException
        || e instanceof AccessDeniedException
        || e.getClass().getName().equals("org.apache.hadoop.fs.s3a.RemoteFileChangedException")
        // No such bucket: as permanent as a missing object.
        || e.getClass().getName().equals("org.apache.hadoop.fs.s3a.UnknownStoreException")) {
      return false;
    }
    if (e instanceof InterruptedIOException && Thread.currentThread().isInterrupted()) {
      return false;
    }
    return true;
  }

  /**
   * Whether {@code e} shows that no server was reached: connection refused, unknown host, no route
   * to host, or a connect (not read) timeout, anywhere in its causes.
   */
  public static boolean reachedNoServer(Throwable e) {
    int depth = 0;
    for (Throwable c = e; c != null && depth < 16; c = c.getCause(), depth++) {
      String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
      if (c instanceof ConnectException
          || c instanceof UnknownHostException
          || c instanceof NoRouteToHostException
          || c.getClass().getSimpleName().equals("ConnectTimeoutException")
          || m.contains("connection refused")
          || m.contains("connect timed out")) {
        return true;
      }
    }
    return false;
  }

  private static boolean causedByHttpClient(Throwable e) {
    int depth = 0;
    for (Throwable c = e.getCause(); c != null && depth < 16; c = c.getCause(), depth++) {
      if (c instanceof java.net.SocketException) {
        return true;
      }
      for (Class<?> k = c.getClass(); k != null; k = k.getSuperclass()) {
        String name = k.getName();
        if (name.equals("software.amazon.awssdk.core.exception.SdkClientException")
            || name.endsWith(".NoHttpResponseException")) {
          return true;
        }
      }
    }
    return false;
  }

  /** A few words for a progress line: "connection refused", "timed out", or the message. */
  public static String describe(Throwable e) {
    int depth = 0;
    for (Throwable c = e; c != null && depth < 16; c = c.getCause(), depth++) {
      String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
      if (c instanceof ConnectException || m.contains("connection refused")) {
        return "connection refused";
      }
      if (c instanceof SocketTimeoutException
          || c.getClass().getSimpleName().contains("Timeout")
          || m.contains("timed out")) {
        // A connect timeout reached no server; a read timeout did (and it stopped answering).
        return c.getClass().getSimpleName().equals("ConnectTimeoutException")
                || m.contains("connect timed out")
            ? "connect timed out"
            : "timed out";
      }
      if (c instanceof UnknownHostException) {
        return "unknown host " + hostName(c);
      }
      if (c instanceof NoRouteToHostException) {
        return "no route to host";
      }
      if (m.contains("connection reset")) {
        return "connection reset";
      }
    }
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      return e.getClass().getSimpleName();
    }
    // One line, not the SDK's multi-line dumps.
    int nl = m.indexOf('\n');
    m = nl >= 0 ? m.substring(0, nl) : m;
    return m.length() > 200 ? m.substring(0, 200) + "..." : m;
  }

  /**
   * The host name of an unknown-host error: the innermost one's message ("h: Name or service not
   * known", the JDK's), without the SDK's paragraph that wraps it.
   */
  private static String hostName(Throwable e) {
    Throwable last = e;
    int depth = 0;
    for (Throwable c = e; c != null && depth < 16; c = c.getCause(), depth++) {
      if (c instanceof UnknownHostException) {
        last = c;
      }
    }
    String m = last.getMessage() == null ? "" : last.getMessage();
    int colon = m.indexOf(':');
    return colon > 0 ? m.substring(0, colon) : m;
  }

  private static String fmt(double seconds) {
    return String.format(Locale.ROOT, "%.1f", seconds);
  }
}
