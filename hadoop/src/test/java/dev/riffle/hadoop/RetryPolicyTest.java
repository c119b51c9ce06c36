package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.storage.RetryPolicy;
import dev.riffle.format.CorruptFileException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.SocketException;
import org.apache.hadoop.fs.s3a.HttpChannelEOFException;
import org.apache.hadoop.fs.s3a.RangeNotSatisfiableEOFException;
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
  }
}
