package dev.riffle.format.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a batch of independent read tasks with up to {@link #inFlight()} of them at once: the
 * calling thread takes part, and {@code inFlight - 1} threads of a fixed pool help. Each task is
 * one positional read plus whatever the caller does with its bytes (decoding), in the thread that
 * did the read: there is no hand-off per read, only one per batch and helper. Batches that run at
 * the same time share the pool: with {@code k} callers inside {@link #run}, a new batch asks for
 * {@code inFlight - k} helpers, none once {@code k} reaches {@code inFlight} (the callers then keep
 * that many reads in flight themselves). A helper that starts after its batch is over leaves at
 * once. With {@code inFlight = 1} everything runs in the caller's thread and no pool exists.
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
  private final AtomicInteger callers = new AtomicInteger();

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
    int callersNow = callers.incrementAndGet();
    Batch batch = new Batch(tasks, task);
    try {
      // Callers that take side by side keep reads in flight themselves: a batch asks only for the
      // helpers that bring the callers up to inFlight, so that 16 concurrent takes do not queue 15
      // helpers each that mostly arrive after their caller has done the work.
      int helpers = Math.min(workers - 1, Math.max(0, inFlight - callersNow));
      for (int h = 1; h <= helpers; h++) {
        int id = h;
        try {
          pool.execute(() -> batch.help(id));
        } catch (RejectedExecutionException e) {
          break; // closed engine: the caller does the work alone
        }
      }
      batch.work(0);
      batch.leaveAndAwaitHelpers();
    } finally {
      callers.decrementAndGet();
    }
    batch.rethrow();
  }

  /**
   * One call of {@link #run}: its task counter, its first failure, and how many threads are inside
   * it. The caller counts as one until its own work is done; a helper that starts after the count
   * has fallen to zero finds the batch over and leaves without touching it, so queued helpers need
   * not be withdrawn.
   */
  private static final class Batch {
    private final int tasks;
    private final Task task;
    private final Thread caller = Thread.currentThread();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger inside = new AtomicInteger(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    Batch(int tasks, Task task) {
      this.tasks = tasks;
      this.task = task;
    }

    void help(int worker) {
      for (int n = inside.get(); ; n = inside.get()) {
        if (n == 0) {
          return;
        }
        if (inside.compareAndSet(n, n + 1)) {
          break;
        }
      }
      try {
        work(worker);
      } finally {
        if (inside.decrementAndGet() == 0) {
          LockSupport.unpark(caller);
        }
      }
    }

    void work(int worker) {
      while (failure.get() == null && next.get() < tasks) {
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
     * Waits for the helpers still inside: they may be writing into the caller's buffers. An
     * interrupt does not cut the wait short; the flag is restored afterwards.
     */
    void leaveAndAwaitHelpers() {
      if (inside.decrementAndGet() == 0) {
        return;
      }
      boolean interrupted = false;
      while (inside.get() != 0) {
        LockSupport.park(this);
        interrupted |= Thread.interrupted();
      }
      if (interrupted) {
        caller.interrupt();
      }
    }

    void rethrow() throws IOException {
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
