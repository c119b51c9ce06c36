package dev.riffle.format.read;

import dev.riffle.format.FileLayout;
import dev.riffle.format.io.IoEngine;
import java.nio.ByteBuffer;

/**
 * Per-thread read buffers, reused from take to take: direct and 4096-aligned for sources that
 * prefer direct buffers, heap otherwise. Decoding copies everything it keeps, so a buffer is free
 * again when the take that filled it returns.
 */
final class ReadArena {
  /**
   * Larger takes read into per-read heap buffers instead: a fresh direct buffer that size costs
   * more in page faults and zeroing than the copy. 64 MiB covers a 256-row take of 100 KiB rows,
   * which a 16 MiB cap sent to heap buffers at a measurable CPU cost per row
   * (benchmarks/RESULTS.md, decode cost).
   */
  static final long MAX_AREA = 64L << 20;

  /**
   * Areas up to this size stay with their thread, so a thread that once took a large batch keeps up
   * to 64 MiB of direct memory (the loader's takes are ~8 MiB chunks and stay far below).
   */
  static final int KEEP = 64 << 20;

  private static final ThreadLocal<ByteBuffer> DIRECT = new ThreadLocal<>();
  private static final ThreadLocal<ByteBuffer> HEAP = new ThreadLocal<>();

  private ReadArena() {}

  static long align(long bytes) {
    return (bytes + FileLayout.SECTOR_BYTES - 1) & -FileLayout.SECTOR_BYTES;
  }

  /** A buffer of at least {@code bytes} bytes, or null if that is too large for an area. */
  static ByteBuffer get(long bytes, boolean direct) {
    if (bytes > MAX_AREA) {
      return null;
    }
    ThreadLocal<ByteBuffer> local = direct ? DIRECT : HEAP;
    ByteBuffer b = local.get();
    if (b == null || b.capacity() < bytes) {
      // At least double the old area (within what a thread keeps): takes of wandering sizes then
      // grow a thread's area a few times, not once per slightly larger take, each a fresh buffer
      // that the JDK zeroes and the kernel faults in.
      long grown = b == null ? 0 : Math.min(KEEP, 2L * b.capacity());
      int size = (int) Math.max(Math.max(align(bytes), grown), 64 * 1024);
      b =
          direct
              ? IoEngine.allocateAligned(size, FileLayout.SECTOR_BYTES)
              : ByteBuffer.allocate(size);
      if (size <= KEEP) {
        local.set(b);
      }
    }
    return b.clear();
  }
}
