package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.RetryPolicy;
import dev.riffle.format.CorruptFileException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import org.apache.hadoop.fs.s3a.HttpChannelEOFException;
import org.apache.hadoop.fs.s3a.RangeNotSatisfiableEOFException;
import org.apache.hadoop.fs.s3a.UnknownStoreException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;

class RetryPolicyTest {
  private static EOFException eofCausedBy(Throwable cause) {
    EOFException e = new EOFException("s3a://b/k: re-open s3a://b/k at 786432");
    e.initCause(cause);
    return e;
  }

  @Test
  void serverThatStoppedRespondingIsTransientEvenAsAPlainEof() {
    // What S3A threw in CI when the server went down while a stream was being re-opened.
    SdkClientException sdk =
        SdkClientException.create(
            "Unable to execute HTTP request: The target server failed to respond");
    assertThat(RetryPolicy.isTransient(eofCausedBy(sdk))).isTrue();
    assertThat(RetryPolicy.isTransient(eofCausedBy(new IOException(new SocketException("reset")))))
        .isTrue();
    assertThat(RetryPolicy.isTransient(new HttpChannelEOFException("k", "dropped", null))).isTrue();
    assertThat(RetryPolicy.isTransient(new IOException("connection refused"))).isTrue();
  }

  @Test
  void readPastTheEndAndMissingOrCorruptObjectsAreNot() {
    assertThat(RetryPolicy.isTransient(new EOFException("Attempted to read past end"))).isFalse();
    assertThat(RetryPolicy.isTransient(eofCausedBy(new IllegalStateException("x")))).isFalse();
    assertThat(
            RetryPolicy.isTransient(
                new RangeNotSatisfiableEOFException("416", new IOException("range"))))
        .isFalse();
    assertThat(RetryPolicy.isTransient(new FileNotFoundException("gone"))).isFalse();
    assertThat(RetryPolicy.isTransient(new CorruptFileException("k", 0, "bad"))).isFalse();
    // NoSuchBucket, as S3A reports it: retrying cannot make the bucket.
    assertThat(RetryPolicy.isTransient(new UnknownStoreException("s3a://nobucket/x", "404")))
        .isFalse();
  }

  @Test
  void errorsThatReachedNoServerAreToldFromOnesThatDid() {
    SdkClientException unknownHost =
        SdkClientException.builder()
            .message("Received an UnknownHostException when attempting to interact with a service")
            .cause(new UnknownHostException("nosuchhost.invalid: Name or service not known"))
            .build();
    // S3A's translation keeps the SDK's paragraph as the outer message.
    UnknownHostException s3a =
        new UnknownHostException("listObjects() on s3a://b/k: " + unknownHost);
    s3a.initCause(unknownHost);
    assertThat(RetryPolicy.reachedNoServer(s3a)).isTrue();
    assertThat(RetryPolicy.describe(s3a)).isEqualTo("unknown host nosuchhost.invalid");
    assertThat(RetryPolicy.reachedNoServer(new IOException(new ConnectException("refused"))))
        .isTrue();
    SocketTimeoutException connect = new SocketTimeoutException("Connect timed out");
    assertThat(RetryPolicy.reachedNoServer(new IOException(connect))).isTrue();
    assertThat(RetryPolicy.describe(new IOException(connect))).isEqualTo("connect timed out");
    SocketTimeoutException read = new SocketTimeoutException("Read timed out");
    assertThat(RetryPolicy.reachedNoServer(new IOException(read))).isFalse();
    assertThat(RetryPolicy.describe(new IOException(read))).isEqualTo("timed out");
    assertThat(RetryPolicy.reachedNoServer(new IOException(new SocketException("reset"))))
        .isFalse();
  }

  @Test
  void anEndpointThatNeverAnsweredGetsOnlyTheFirstContactWindow() throws IOException {
    // One attempt that outlasts the first-contact window, then fails to connect (as a connect
    // timeout to an unroutable host does); the second attempt would succeed.
    long sleep = (long) (RetryPolicy.FIRST_CONTACT_SECONDS * 1000) + 100;
    java.util.concurrent.atomic.AtomicInteger calls =
        new java.util.concurrent.atomic.AtomicInteger();
    RetryPolicy.IoCall<String> slowRefusal =
        () -> {
          if (calls.incrementAndGet() == 1) {
            try {
              Thread.sleep(sleep);
            } catch (InterruptedException e) {
              throw new java.io.InterruptedIOException();
            }
            throw new IOException(new ConnectException("Connection refused"));
          }
          return "answer";
        };
    RetryPolicy p = RetryPolicy.defaults();
    assertThatThrownBy(
            () ->
                p.call(
                    "listing s3a://b/x",
                    "http://h:1",
                    RetryPolicy.Listener.NONE,
                    false,
                    slowRefusal))
        .isInstanceOf(RetryPolicy.RetriesExhausted.class)
        .hasMessageContaining("gave up after 1 attempt")
        .hasMessageContaining("the endpoint never answered")
        .hasMessageContaining("connection refused; endpoint http://h:1");
    assertThat(calls.get()).isEqualTo(1);
    // A server that answered before gets the whole retry window: it may be restarting.
    calls.set(0);
    assertThat(
            p.call("listing s3a://b/x", "http://h:1", RetryPolicy.Listener.NONE, true, slowRefusal))
        .isEqualTo("answer");
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void attemptsUsedUpBeforeTheFirstContactWindowStillSayNothingAnswered() {
    // Short backoffs spend every attempt within the window (a default policy's random backoffs
    // sometimes do): the reason given is still the endpoint, not --retries.
    RetryPolicy p = RetryPolicy.defaults().withAttempts(3).withBackoff(1, 2);
    assertThatThrownBy(
            () ->
                p.call(
                    "listing s3a://b/x",
                    "http://h:1",
                    RetryPolicy.Listener.NONE,
                    false,
                    () -> {
                      throw new IOException(new ConnectException("Connection refused"));
                    }))
        .isInstanceOf(RetryPolicy.RetriesExhausted.class)
        .hasMessageContaining("gave up after 3 attempts")
        .hasMessageContaining("the endpoint never answered")
        .hasMessageContaining("connection refused; endpoint http://h:1");
  }

  @Test
  void aFailingCallIsTriedAtMostMaxAttemptsWithEveryRetryReported() {
    java.util.List<String> heard = new java.util.ArrayList<>();
    java.util.concurrent.atomic.AtomicInteger calls =
        new java.util.concurrent.atomic.AtomicInteger();
    RetryPolicy p = RetryPolicy.defaults().withAttempts(4).withBackoff(1, 2);
    assertThatThrownBy(
            () ->
                p.call(
                    "listing s3a://b/x",
                    "http://127.0.0.1:9",
                    (what, attempt, max, cause) ->
                        heard.add(what + " (" + attempt + "/" + max + "): " + cause),
                    () -> {
                      calls.incrementAndGet();
                      throw new IOException(new java.net.ConnectException("Connection refused"));
                    }))
        .isInstanceOf(RetryPolicy.RetriesExhausted.class)
        .hasMessageContaining("listing s3a://b/x: gave up after 4 attempts")
        .hasMessageContaining("connection refused")
        .hasMessageContaining("endpoint http://127.0.0.1:9");
    assertThat(calls.get()).isEqualTo(4);
    assertThat(heard)
        .containsExactly(
            "listing s3a://b/x (1/4): connection refused",
            "listing s3a://b/x (2/4): connection refused",
            "listing s3a://b/x (3/4): connection refused");
  }

  @Test
  void retryTimePerRequestAndCommandDeadlineStopRetriesEarly() {
    java.util.concurrent.atomic.AtomicInteger calls =
        new java.util.concurrent.atomic.AtomicInteger();
    RetryPolicy.IoCall<Void> failing =
        () -> {
          calls.incrementAndGet();
          throw new java.net.SocketTimeoutException("Read timed out");
        };
    // No time for a retry at all: one attempt, then the reason.
    RetryPolicy noTime = RetryPolicy.defaults().withRetrySeconds(0);
    assertThatThrownBy(() -> noTime.call("x", null, RetryPolicy.Listener.NONE, failing))
        .hasMessageContaining("gave up after 1 attempt")
        .hasMessageContaining("timed out")
        .hasMessageContaining("--retry-seconds");
    assertThat(calls.get()).isEqualTo(1);
    // A deadline already past: no attempt starts.
    RetryPolicy past = RetryPolicy.defaults().withDeadline(1e-9);
    assertThatThrownBy(() -> past.call("y", null, RetryPolicy.Listener.NONE, failing))
        .hasMessageContaining("deadline");
    // Not transient: no retry, the error itself.
    FileNotFoundException gone = new FileNotFoundException("gone");
    assertThatThrownBy(
            () ->
                RetryPolicy.defaults()
                    .call(
                        "z",
                        null,
                        RetryPolicy.Listener.NONE,
                        () -> {
                          throw gone;
                        }))
        .isSameAs(gone);
  }

  @Test
  void writesGetS3asRetriesWithinThePolicysAttemptsAndWindow() {
    org.apache.hadoop.conf.Configuration c = new org.apache.hadoop.conf.Configuration(false);
    HadoopStorage.boundS3aWriteRetries(c, RetryPolicy.defaults());
    // One loop: S3A's invoker, 7 retries (8 attempts); the SDK's own off.
    assertThat(c.getInt("fs.s3a.attempts.maximum", -1)).isZero();
    assertThat(c.getInt("fs.s3a.retry.limit", -1)).isEqualTo(7);
    assertThat(c.getInt("fs.s3a.retry.throttle.limit", -1)).isEqualTo(7);
    // Hadoop sleeps interval * 2^k * [0.5, 1.5) before retry k = 1..7: at most 15 s in all.
    long interval =
        c.getTimeDuration("fs.s3a.retry.interval", -1, java.util.concurrent.TimeUnit.MILLISECONDS);
    long longest = 0;
    for (int k = 1; k <= 7; k++) {
      longest += (long) (interval * (1L << k) * 1.5);
    }
    assertThat(longest).isBetween(10_000L, 15_000L);
    // What the user set wins.
    org.apache.hadoop.conf.Configuration user = new org.apache.hadoop.conf.Configuration(false);
    user.set("fs.s3a.retry.limit", "2");
    HadoopStorage.boundS3aWriteRetries(user, RetryPolicy.defaults().withAttempts(3));
    assertThat(user.getInt("fs.s3a.retry.limit", -1)).isEqualTo(2);
    assertThat(user.getInt("fs.s3a.retry.throttle.limit", -1)).isEqualTo(2);
  }
}
