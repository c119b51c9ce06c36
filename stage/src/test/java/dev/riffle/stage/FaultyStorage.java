package dev.riffle.stage;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.testing.ForwardingStorage;
import dev.riffle.format.io.RandomAccessSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A storage that counts what is read through it and, on request, fails or slows reads: for
 * single-flight counts and retry tests without a network.
 */
final class FaultyStorage extends ForwardingStorage {
  final AtomicLong bytesRead = new AtomicLong();
  final AtomicInteger reads = new AtomicInteger();
  final AtomicInteger failures = new AtomicInteger();

  /** Every n-th read fails with a transient error (0: none). */
  volatile int failEvery;

  /** Every read fails with a transient error. */
  volatile boolean alwaysFail;

  /** Sleep before each read, to make downloads overlap. */
  volatile long delayMillis;

  FaultyStorage(Storage inner) {
    super(inner);
  }

  @Override
  public RandomAccessSource open(String path) throws IOException {
    RandomAccessSource s = inner.open(path);
    return new ForwardingStorage.Source(s) {
      @Override
      public void readFully(long offset, ByteBuffer dst) throws IOException {
        int n = reads.incrementAndGet();
        if (delayMillis > 0) {
          try {
            Thread.sleep(delayMillis);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException();
          }
        }
        if (alwaysFail || (failEvery > 0 && n % failEvery == 0)) {
          failures.incrementAndGet();
          // Half the part arrives before the connection "drops", as it would on a network.
          int half = dst.remaining() / 2;
          ByteBuffer head = dst.duplicate();
          head.limit(head.position() + half);
          s.readFully(offset, head);
          dst.position(head.position());
          throw new java.net.SocketException("Connection reset (injected, read " + n + ")");
        }
        int before = dst.remaining();
        s.readFully(offset, dst);
        bytesRead.addAndGet(before);
      }
    };
  }
}
