package dev.riffle.stage;

import dev.riffle.format.CorruptFileException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/** Which read errors are worth a retry. */
final class Transient {
  private Transient() {}

  /**
   * Network and server errors are transient; a missing, short, corrupt or forbidden object is not
   * (retrying cannot change the answer), nor is an interrupt of this thread. Socket timeouts are
   * {@link InterruptedIOException}s too, so only a set interrupt flag makes one permanent.
   */
  static boolean isTransient(IOException e) {
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
        || e instanceof AccessDeniedException) {
      return false;
    }
    if (e instanceof InterruptedIOException && Thread.currentThread().isInterrupted()) {
      return false;
    }
    return true;
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
}
