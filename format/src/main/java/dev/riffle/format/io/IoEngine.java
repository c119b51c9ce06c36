package dev.riffle.format.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a batch of independent read tasks with up to {@link #inFlight()} of them at once: the
 * calling thread takes part, and {@code inFlight - 1} threads of a fixed pool help. Each task is
 * one positional read plus whatever the caller does with its bytes (decoding), in the thread that
 * did the read: there is no hand-off per read, only one per batch and helper. With {@code inFlight
 * = 1} everything runs in the caller's thread and no pool exists.
 *
 * <p>Pool threads are never interrupted (the pool is shut down with {@code shutdown}, not {@code
 * shutdownNow}), so they never close a shared {@link java.nio.channels.FileChannel}; the caller's
 * own reads go through {@link FileSource}, which survives an interrupt of the reading thread.
 *
 * <p>{@link #shared(int)} engines are process-wide and live as long as the process (daemon
 * threads); engines from {@link #create(int)} own their pool and must be closed.
 */
public final class IoEngine implements AutoCloseable {
  /** One task: read and decode item {@code task}; {@code worker} is in [0, workersFor(n)). */
  @FunctionalInterface
  public interface Task {
    void run(int task, int worker) throws IOException;
  }

  /** The largest number of reads in flight an engine accepts. */
  public static final int MAX_IN_FLIGHT = 1024;

  private static final IoEngine SYNCHRONOUS = new IoEngine(1, false);
  private static final ConcurrentHashMap<Integer, IoEngine> SHARED = new ConcurrentHashMap<>();
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final int inFlight;
  private final ThreadPoolExecutor pool;
  private final boolean shared;

  private IoEngine(int inFlight, boolean shared) {
    if (inFlight < 1 || inFlight > MAX_IN_FLIGHT) {
      throw new IllegalArgumentException(
          "reads in flight must be in [1, " + MAX_IN_FLIGHT + "], not " + inFlight);
    }
    this.inFlight = inFlight;
    this.shared = shared;
    if (inFlight == 1) {
      pool = null;
      return;
    }
    int id = POOLS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    pool =
        new ThreadPoolExecutor(
            inFlight - 1,
            inFlight - 1,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "riffle-io-" + id + "-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /** The engine that runs every read in the caller's thread, one at a time. */
  public static IoEngine synchronous() {
    return SYNCHRONOUS;
  }

  /**
   * A process-wide engine with this many reads in flight, created on first use and shared by every
   * caller asking for the same number (idle pool threads exit after a minute). Never close it.
   */
  public static IoEngine shared(int inFlight) {
    if (inFlight == 1) {
      return SYNCHRONOUS;
    }
    return SHARED.computeIfAbsent(inFlight, n -> new IoEngine(n, true));
  }

  /** A private engine with its own pool; {@link #close()} stops the pool. */
  public static IoEngine create(int inFlight) {
    return inFlight == 1 ? SYNCHRONOUS : new IoEngine(inFlight, false);
  }

  /** How many reads this engine keeps in flight at most (per batch). */
  public int inFlight() {
    return inFlight;
  }

  /** How many workers (caller included) a batch of {@code tasks} tasks uses. */
  public int workersFor(int tasks) {
    return Math.max(1, Math.min(inFlight, tasks));
  }

  /**
   * Runs {@code task} for every index in [0, tasks), in increasing order of claim, and returns when
   * all have finished. The first failure stops workers from claiming more tasks and is rethrown
   * here after every running task has ended. An interrupt of the caller while it waits for helpers
   * is kept (the interrupt flag is restored) but does not abandon them: they may be writing into
   * the caller's buffers.
   */
  public void run(int tasks, Task task) throws IOException {
    int workers = workersFor(tasks);
    if (workers == 1 || pool == null) {
      for (int i = 0; i < tasks; i++) {
        task.run(i, 0);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(workers - 1);
    Runnable[] helpers = new Runnable[workers - 1];
    for (int h = 1; h < workers; h++) {
      int id = h;
      helpers[h - 1] =
          () -> {
            try {
              work(tasks, task, id, next, failure);
            } finally {
              done.countDown();
            }
          };
      try {
        pool.execute(helpers[h - 1]);
      } catch (RejectedExecutionException e) {
        // Closed engine: the caller does the work alone.
        helpers[h - 1] = null;
        done.countDown();
      }
    }
    work(tasks, task, 0, next, failure);
    // Helpers still queued behind other batches have nothing left to do: withdraw them.
    for (Runnable r : helpers) {
      if (r != null && pool.remove(r)) {
        done.countDown();
      }
    }
    boolean interrupted = false;
    while (true) {
      try {
        done.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable t = failure.get();
    if (t instanceof IOException) {
      throw (IOException) t;
    }
    if (t instanceof UncheckedIOException) {
      throw ((UncheckedIOException) t).getCause();
    }
    if (t instanceof RuntimeException) {
      throw (RuntimeException) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
    if (t != null) {
      throw new IOException(t);
    }
  }

  private static void work(
      int tasks, Task task, int worker, AtomicInteger next, AtomicReference<Throwable> failure) {
    while (failure.get() == null) {
      int i = next.getAndIncrement();
      if (i >= tasks) {
        return;
      }
      try {
        task.run(i, worker);
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        return;
      }
    }
  }

  /**
   * A direct buffer of {@code bytes} bytes whose address is a multiple of {@code alignment} (a
   * power of two), as O_DIRECT reads need.
   */
  public static ByteBuffer allocateAligned(int bytes, int alignment) {
    int rounded = (bytes + alignment - 1) & -alignment;
    return ByteBuffer.allocateDirect(rounded + alignment).alignedSlice(alignment).limit(bytes);
  }

  /** Stops a private engine's pool (running batches finish); shared engines ignore this. */
  @Override
  public void close() {
    if (pool != null && !shared) {
      pool.shutdown();
    }
  }

  @Override
  public String toString() {
    return "IoEngine[inFlight=" + inFlight + (shared ? ", shared" : "") + "]";
  }
}
