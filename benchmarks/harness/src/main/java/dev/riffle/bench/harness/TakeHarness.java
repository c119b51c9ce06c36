package dev.riffle.bench.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How a take or a scan is measured, the same for every format.
 *
 * <p>Takes: {@code threads} calling threads, each with a taker (and handle) of its own, take {@link
 * #takeRows} uniformly random rows at a time (with replacement); thread t draws its indices from
 * {@code new SplittableRandom(seed * 1_000_003L + t)}, so every format reads the very same rows.
 * First the file is read once if the measurement is warm, then every taker makes one untimed take
 * (the JIT, and metadata some readers load lazily at their first take). Then:
 *
 * <ul>
 *   <li><b>cold</b>: rounds of a page cache drop followed by ONE take per thread, only the takes
 *       timed, until {@link #seconds} of takes or {@link #COLD_ROUNDS} rounds. (With one drop and
 *       then seconds of takes, a format that reads hundreds of KiB per row warms a whole small file
 *       within the window, and "cold" measures how fast it fills the page cache.)
 *   <li><b>warm</b>: every thread takes for {@link #seconds}.
 * </ul>
 *
 * Scans: one thread, one full pass, after the page cache is dropped (cold) or the file read once
 * (warm).
 */
public final class TakeHarness {
  /** Most page cache drops of one cold take measurement (each followed by one take a thread). */
  public static final int COLD_ROUNDS = 16;

  /** Rows per take. */
  public final int takeRows;

  /** Seconds of takes per measurement. */
  public final double seconds;

  public final long seed;

  private final PageCache cache;

  public TakeHarness(int takeRows, double seconds, long seed) {
    this(takeRows, seconds, seed, PageCache.SYSTEM);
  }

  public TakeHarness(int takeRows, double seconds, long seed, PageCache cache) {
    this.takeRows = takeRows;
    this.seconds = seconds;
    this.seed = seed;
    this.cache = cache;
  }

  /** {@link #takeRows} uniformly random row numbers below {@code rows}, with replacement. */
  public long[] indices(SplittableRandom rng, long rows) {
    long[] idx = new long[takeRows];
    for (int i = 0; i < takeRows; i++) {
      idx[i] = rng.nextLong(rows);
    }
    return idx;
  }

  /** What one take measurement did. */
  public record TakeRun(int threads, long takes, int rounds, long rows, long nanos, ProcIo io) {
    public double seconds() {
      return nanos / 1e9;
    }

    public double rowsPerSecond() {
      return rows / seconds();
    }

    /** Puts threads, takes, rounds, rows, seconds and rows_per_s, in that order. */
    public void putInto(Map<String, Object> r) {
      r.put("threads", threads);
      r.put("takes", takes);
      r.put("rounds", rounds);
      r.put("rows", rows);
      r.put("seconds", seconds());
      r.put("rows_per_s", rowsPerSecond());
    }
  }

  /** What one scan measurement did. */
  public record ScanRun(long rows, long nanos, ProcIo io) {
    public double seconds() {
      return nanos / 1e9;
    }

    public double rowsPerSecond() {
      return rows / seconds();
    }

    /** Puts concurrency and threads (1), rows, seconds, rows_per_s and mb_per_s, in that order. */
    public void putInto(Map<String, Object> r, long fileBytes) {
      r.put("concurrency", 1);
      r.put("threads", 1);
      r.put("rows", rows);
      r.put("seconds", seconds());
      r.put("rows_per_s", rowsPerSecond());
      r.put("mb_per_s", fileBytes / seconds() / 1e6);
    }
  }

  /**
   * One take measurement: opens {@code threads} takers, warms {@code file} if {@code cache} is
   * "warm", makes the untimed takes, runs {@code beforeTimed} (e.g. to read a reader's own
   * counters), then the timed rounds; closes the takers.
   *
   * @param what names the measurement in errors ("FORMAT TYPE")
   */
  public TakeRun takes(
      Taker.Opener opener,
      int threads,
      long rows,
      String cache,
      Path file,
      Runnable beforeTimed,
      String what)
      throws Exception {
    List<Taker> takers = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        takers.add(opener.open());
      }
      boolean cold = !cache.equals("warm");
      if (!cold) {
        this.cache.warm(file);
      }
      for (Taker tk : takers) {
        tk.take(indices(new SplittableRandom(-1), rows));
      }
      SplittableRandom[] rngs = new SplittableRandom[threads];
      for (int t = 0; t < threads; t++) {
        rngs[t] = new SplittableRandom(seed * 1_000_003L + t);
      }
      if (beforeTimed != null) {
        beforeTimed.run();
      }
      AtomicLong done = new AtomicLong();
      AtomicLong takes = new AtomicLong();
      long nanos = 0;
      int rounds = 0;
      ProcIo io = null;
      do {
        if (cold) {
          this.cache.drop();
        }
        ProcIo io0 = ProcIo.now();
        long limit = cold ? 0 : (long) (seconds * 1e9);
        nanos += round(takers, rngs, rows, limit, done, takes, what);
        ProcIo d = ProcIo.now().minus(io0);
        io = io == null ? d : io.plus(d);
        rounds++;
      } while (cold && nanos < seconds * 1e9 && rounds < COLD_ROUNDS);
      return new TakeRun(threads, takes.get(), rounds, done.get(), nanos, io);
    } finally {
      for (Taker tk : takers) {
        tk.close();
      }
    }
  }

  /**
   * Every taker takes on its own thread: for {@code limitNanos}, or once if 0. Returns the nanos
   * from start to the last thread's end.
   */
  private long round(
      List<Taker> takers,
      SplittableRandom[] rngs,
      long rows,
      long limitNanos,
      AtomicLong done,
      AtomicLong takes,
      String what)
      throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    long deadline = start + limitNanos;
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < takers.size(); t++) {
      Taker tk = takers.get(t);
      SplittableRandom rng = rngs[t];
      Thread th =
          new Thread(
              () -> {
                try {
                  do {
                    long[] idx = indices(rng, rows);
                    tk.take(idx);
                    done.addAndGet(idx.length);
                    takes.incrementAndGet();
                  } while (System.nanoTime() < deadline);
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              });
      running.add(th);
      th.start();
    }
    for (Thread th : running) {
      th.join();
    }
    long nanos = System.nanoTime() - start;
    if (failure.get() != null) {
      throw new IOException(what + " take failed", failure.get());
    }
    return nanos;
  }

  /** Reads every row once; returns the rows read. */
  @FunctionalInterface
  public interface Scan {
    long scan() throws Exception;
  }

  /**
   * One scan measurement: an untimed pass first if {@code untimedFirst} (on a small file the
   * measured scan would otherwise be mostly the JIT compiling the decoders), then the page cache
   * dropped ({@code cache} not "warm") or {@code file} read once, then {@code beforeTimed}, then
   * one timed pass, which must read {@code rows} rows.
   *
   * @param what names the measurement in errors ("FORMAT")
   */
  public ScanRun scan(
      Scan scan,
      long rows,
      String cache,
      Path file,
      boolean untimedFirst,
      Runnable beforeTimed,
      String what)
      throws Exception {
    if (untimedFirst) {
      scan.scan();
    }
    if (cache.equals("warm")) {
      this.cache.warm(file);
    } else {
      this.cache.drop();
    }
    if (beforeTimed != null) {
      beforeTimed.run();
    }
    ProcIo io0 = ProcIo.now();
    long start = System.nanoTime();
    long got = scan.scan();
    long nanos = System.nanoTime() - start;
    ProcIo io = ProcIo.now().minus(io0);
    if (got != rows) {
      throw new IOException(what + " scanned " + got + " of " + rows + " rows");
    }
    return new ScanRun(got, nanos, io);
  }
}
