package dev.riffle.format.read;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The daemon threads that make scans' reads ahead, shared by every cursor of the process: a read is
 * a {@link Runnable} that either a pool thread or the cursor's consumer runs, whichever claims it
 * first, so a busy or refusing pool only costs the read-ahead, never a read. Never interrupted;
 * idle threads exit.
 */
final class ReadAheadPool {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ThreadPoolExecutor EXECUTOR;

  static {
    int n = Math.max(4, Math.min(16, 2 * Runtime.getRuntime().availableProcessors()));
    EXECUTOR =
        new ThreadPoolExecutor(
            n,
            n,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "riffle-scan-ahead-" + THREADS.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    EXECUTOR.allowCoreThreadTimeOut(true);
  }

  private ReadAheadPool() {}

  static void submit(Runnable f) {
    try {
      EXECUTOR.execute(f);
    } catch (RejectedExecutionException e) {
      // The consumer makes the read itself when it needs it.
    }
  }
}
