package dev.riffle.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.CorruptFileException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.SocketException;
import org.apache.hadoop.fs.s3a.HttpChannelEOFException;
import org.apache.hadoop.fs.s3a.RangeNotSatisfiableEOFException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;

class TransientTest {
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
    assertThat(Transient.isTransient(eofCausedBy(sdk))).isTrue();
    assertThat(Transient.isTransient(eofCausedBy(new IOException(new SocketException("reset")))))
        .isTrue();
    assertThat(Transient.isTransient(new HttpChannelEOFException("k", "dropped", null))).isTrue();
    assertThat(Transient.isTransient(new IOException("connection refused"))).isTrue();
  }

  @Test
  void readPastTheEndAndMissingOrCorruptObjectsAreNot() {
    assertThat(Transient.isTransient(new EOFException("Attempted to read past end"))).isFalse();
    assertThat(Transient.isTransient(eofCausedBy(new IllegalStateException("x")))).isFalse();
    assertThat(
            Transient.isTransient(
                new RangeNotSatisfiableEOFException("416", new IOException("range"))))
        .isFalse();
    assertThat(Transient.isTransient(new FileNotFoundException("gone"))).isFalse();
    assertThat(Transient.isTransient(new CorruptFileException("k", 0, "bad"))).isFalse();
  }
}
