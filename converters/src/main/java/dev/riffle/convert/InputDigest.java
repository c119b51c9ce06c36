package dev.riffle.convert;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The SHA-256 of an input file for the provenance, computed on a thread of its own while the
 * conversion reads the file. Hashing a 2.4 GB .h5ad costs about 2.5 s of one core; done first, it
 * was a phase in which the conversion's other threads had nothing to do.
 */
public final class InputDigest implements AutoCloseable {
  private final String name;
  private final Thread thread;
  private volatile boolean cancelled;
  // Written by the thread before it ends, read after join (which orders the two).
  private String hex;
  private Throwable failure;

  private InputDigest(SourceFile file) {
    this.name = file.name();
    this.thread = new Thread(() -> run(file), "riffle-sha256");
    thread.setDaemon(true);
  }

  /** Starts hashing {@code file}. */
  public static InputDigest start(SourceFile file) {
    InputDigest d = new InputDigest(file);
    d.thread.start();
    return d;
  }

  private void run(SourceFile file) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      if (file.localPath() != null) {
        // Read into a direct buffer: a stream reads into one of the JDK's and copies that into
        // its array, a second pass over the 2.4 GB that the digest does not need.
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel in = FileChannel.open(file.localPath(), StandardOpenOption.READ)) {
          while (!cancelled && in.read(buf.clear()) >= 0) {
            md.update(buf.flip());
          }
        }
      } else {
        byte[] buf = new byte[1 << 20];
        try (InputStream in = file.open()) {
          int n;
          while (!cancelled && (n = in.read(buf)) >= 0) {
            md.update(buf, 0, n);
          }
        }
      }
      hex = HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      failure = new IllegalStateException("every JVM has SHA-256", e);
    } catch (Throwable t) {
      failure = t;
    }
  }

  /** The hex digest, once the whole file is read. */
  public String get() throws IOException {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while hashing " + name);
    }
    if (failure instanceof IOException e) {
      throw e;
    }
    if (failure instanceof RuntimeException e) {
      throw e;
    }
    if (failure instanceof Error e) {
      throw e;
    }
    if (hex == null) {
      throw new IllegalStateException("closed before the digest of " + name + " was done");
    }
    return hex;
  }

  /** Stops hashing (at the next MiB read) and waits for the thread, so the file can go. */
  @Override
  public void close() {
    cancelled = true;
    boolean interrupted = false;
    while (true) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
