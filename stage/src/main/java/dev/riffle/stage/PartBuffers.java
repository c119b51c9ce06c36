package dev.riffle.stage;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part buffers of one stage, reused across parts and files. A part normally gives its buffer back
 * once it is written; a part that lands before its predecessors may instead lend it to the file's
 * {@link OrderedHasher}, which hashes from memory later rather than reading the part back from the
 * file. Lending is bounded ({@code maxLent}), so memory stays at most {@code threads + maxLent}
 * parts; past the bound a part is hashed from the file (the page cache) as before.
 */
final class PartBuffers {
  private final int partBytes;
  private final int maxLent;
  private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
  private final AtomicInteger lent = new AtomicInteger();

  PartBuffers(int partBytes, int maxLent) {
    this.partBytes = partBytes;
    this.maxLent = maxLent;
  }

  /** A cleared buffer of {@code partBytes}. */
  ByteBuffer take() {
    ByteBuffer b = free.poll();
    return b != null ? b.clear() : ByteBuffer.allocate(partBytes);
  }

  void giveBack(ByteBuffer b) {
    free.add(b);
  }

  /** Claims one of the {@code maxLent} loans; false if all are out. */
  boolean tryLend() {
    while (true) {
      int n = lent.get();
      if (n >= maxLent) {
        return false;
      }
      if (lent.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Buffers lent out now. */
  int lent() {
    return lent.get();
  }

  /** Returns a lent buffer once the hasher is done with it. */
  void repay(ByteBuffer b) {
    lent.decrementAndGet();
    free.add(b);
  }
}
