package dev.riffle.format.io;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.unsafe.DefaultAllocationManagerFactory;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A root allocator that keeps freed large blocks for the next allocation of about the same size
 * instead of returning them to the C heap.
 *
 * <p>Why: the loader takes hundreds of MiB per fetch and frees them a moment later. malloc serves
 * blocks that large with fresh mmap()s, so every fetch paid one page fault (and the kernel's
 * zeroing) per 4 KiB it decoded: 750K faults for 4.8 GB of sparse rows, most of the process's
 * system time. A kept block is already mapped.
 *
 * <p>Blocks of at least {@link #MIN_BLOCK} bytes are rounded up to a size class (four per power of
 * two) and, when freed, kept while the kept bytes stay within the limit; an allocation takes the
 * smallest kept block that fits if it is less than twice its size class. Smaller blocks go straight
 * to malloc, which reuses them well. Arrow still accounts the requested size, so the allocator's
 * limit and {@link #getAllocatedMemory()} mean what they always do; the kept blocks come on top,
 * bounded by {@code keepBytes}, and are freed on {@link #close()}.
 */
public final class RecyclingAllocator extends RootAllocator {
  /** Blocks below this size are not kept. */
  public static final long MIN_BLOCK = 256 << 10;

  private final Pool pool;

  private RecyclingAllocator(Pool pool, long limit) {
    super(
        RootAllocator.configBuilder().allocationManagerFactory(pool).maxAllocation(limit).build());
    this.pool = pool;
  }

  /** An allocator without a limit that keeps up to {@code keepBytes} of freed blocks. */
  public static RecyclingAllocator create(long keepBytes) {
    return create(keepBytes, Long.MAX_VALUE);
  }

  /** As {@link #create(long)}, with Arrow's allocation limit {@code limit}. */
  public static RecyclingAllocator create(long keepBytes, long limit) {
    if (keepBytes < 0) {
      throw new IllegalArgumentException("keepBytes must be ≥ 0, got " + keepBytes);
    }
    return new RecyclingAllocator(new Pool(keepBytes), limit);
  }

  /** Bytes now kept for reuse. */
  public long keptBytes() {
    return pool.kept();
  }

  /** Allocations served from a kept block. */
  public long reused() {
    return pool.reused();
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      pool.clear();
    }
  }

  /** The size class of a block of at least {@code size} bytes: four steps per power of two. */
  static long sizeClass(long size) {
    if (size < MIN_BLOCK) {
      return size;
    }
    long step = Long.highestOneBit(size - 1) >> 2;
    return (size + step - 1) / step * step;
  }

  private static final class Pool implements AllocationManager.Factory {
    private final long keepBytes;
    private final TreeMap<Long, ArrayDeque<Long>> free = new TreeMap<>();
    private long kept;
    private long reused;
    private boolean closed;

    Pool(long keepBytes) {
      this.keepBytes = keepBytes;
    }

    @Override
    public AllocationManager create(BufferAllocator accountingAllocator, long size) {
      long block = sizeClass(size);
      Long address = null;
      if (block >= MIN_BLOCK) {
        synchronized (this) {
          // The smallest kept block that fits, if it is less than twice the size: the sizes of a
          // loader's fetches wander a little from one fetch to the next.
          Map.Entry<Long, ArrayDeque<Long>> e = free.ceilingEntry(block);
          if (e != null && e.getKey() < 2 * block) {
            block = e.getKey();
            address = e.getValue().pop();
            if (e.getValue().isEmpty()) {
              free.remove(block);
            }
            kept -= block;
            reused++;
          }
        }
      }
      long at = address != null ? address : MemoryUtil.allocateMemory(block);
      return new Block(accountingAllocator, this, at, size, block);
    }

    @Override
    public ArrowBuf empty() {
      return DefaultAllocationManagerFactory.FACTORY.empty();
    }

    void release(long address, long block) {
      if (block >= MIN_BLOCK) {
        synchronized (this) {
          if (!closed && kept + block <= keepBytes) {
            free.computeIfAbsent(block, b -> new ArrayDeque<>()).push(address);
            kept += block;
            return;
          }
        }
      }
      MemoryUtil.freeMemory(address);
    }

    synchronized long kept() {
      return kept;
    }

    synchronized long reused() {
      return reused;
    }

    synchronized void clear() {
      closed = true;
      for (ArrayDeque<Long> q : free.values()) {
        for (Long a : q) {
          MemoryUtil.freeMemory(a);
        }
      }
      free.clear();
      kept = 0;
    }
  }

  private static final class Block extends AllocationManager {
    private final Pool pool;
    private final long address;
    private final long size;
    private final long block;

    Block(BufferAllocator accountingAllocator, Pool pool, long address, long size, long block) {
      super(accountingAllocator);
      this.pool = pool;
      this.address = address;
      this.size = size;
      this.block = block;
    }

    @Override
    public long getSize() {
      return size;
    }

    @Override
    protected long memoryAddress() {
      return address;
    }

    @Override
    protected void release0() {
      pool.release(address, block);
    }
  }
}
