package dev.riffle.djl;

import ai.djl.ndarray.NDManager;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The direct buffers that batches are copied into, reused from batch to batch: a batch's buffers
 * come back here when its manager closes (the trainer closing the batch) and the next batch is
 * copied into them, so that a steady run allocates nothing. A fresh 2 MB buffer a batch cost a
 * malloc, page faults and a free on another thread, and was zeroed whole before the scatter.
 *
 * <p>A buffer taken is not zeroed: whoever fills it writes every byte the array covers (the dense
 * rows of a sparse feature zero each row just before scattering into it, while it is in cache).
 * Thread-safe: the converter takes, the trainer's thread gives back.
 */
final class BatchBuffers implements AutoCloseable {
  private static final AtomicLong IDS = new AtomicLong();

  /**
   * Free buffers kept at most: a batch has a few (features, labels), and up to four batches are out
   * at once (one converting, two queued, one with the trainer).
   */
  private static final int KEEP = 16;

  private final BufferAllocator allocator;
  private final LinkedList<ArrowBuf> free = new LinkedList<>();
  private boolean closed;
  private long allocated;

  BatchBuffers(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /** The buffers of one batch, given back together when the manager it is attached to closes. */
  final class Lease implements AutoCloseable {
    private final List<ArrowBuf> taken = new ArrayList<>(4);

    /** A buffer of at least {@code bytes} (not zeroed), the batch's until the lease closes. */
    ArrowBuf take(long bytes) {
      ArrowBuf b = BatchBuffers.this.take(bytes);
      taken.add(b);
      return b;
    }

    @Override
    public void close() {
      taken.forEach(BatchBuffers.this::give);
      taken.clear();
    }
  }

  /** A lease whose buffers go back when {@code manager} closes. */
  Lease lease(NDManager manager) {
    Lease l = new Lease();
    manager.attachInternal("riffle-buffers-" + IDS.incrementAndGet(), l);
    return l;
  }

  /**
   * The smallest free buffer of {@code bytes} to twice that (a reused one never holds more than a
   * new one would: the allocator rounds up to a power of 2), or a new one.
   */
  private ArrowBuf take(long bytes) {
    long want = Math.max(bytes, 1);
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the dataset is closed");
      }
      ArrowBuf best = null;
      for (ArrowBuf b : free) {
        long c = b.capacity();
        if (c >= want && c <= 2 * want && (best == null || c < best.capacity())) {
          best = b;
        }
      }
      if (best != null) {
        free.remove(best);
        return best;
      }
    }
    ArrowBuf b = allocator.buffer(want);
    synchronized (this) {
      allocated++;
    }
    return b;
  }

  private void give(ArrowBuf b) {
    synchronized (this) {
      if (!closed) {
        free.addFirst(b);
        if (free.size() <= KEEP) {
          return;
        }
        b = free.removeLast(); // the least recently used goes
      }
    }
    b.close();
  }

  /** Frees the buffers kept; buffers of batches still open are freed when those close. */
  @Override
  public synchronized void close() {
    closed = true;
    for (Iterator<ArrowBuf> it = free.iterator(); it.hasNext(); ) {
      it.next().close();
      it.remove();
    }
  }

  /** Buffers allocated so far, as opposed to reused (for tests). */
  synchronized long allocated() {
    return allocated;
  }

  /** Free buffers kept (for tests). */
  synchronized int kept() {
    return free.size();
  }
}
