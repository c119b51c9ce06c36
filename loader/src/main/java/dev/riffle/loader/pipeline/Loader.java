package dev.riffle.loader.pipeline;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.loader.plan.EpochPlan;
import dev.riffle.loader.plan.LoaderState;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Hands out one rank's minibatches of a run, in plan order, as Arrow batches the caller closes.
 *
 * <p>Fetches (f consecutive batches) are read on {@code threads} I/O threads, each fetch as several
 * takes (by data file, at most {@link #MAX_TAKE_ROWS} rows each) read in parallel, up to {@code
 * fetchesInFlight} ahead and within {@code prefetchBytes}: a fetch in flight is counted at its
 * estimated size (or its actual size once read), the fetch being handed out at its actual size (its
 * rows; each batch is cut from them as it is handed out, and then is the caller's; the fetch is
 * freed with its last batch). A fetch is read ahead only if it fits the budget beside what is held;
 * with nothing held one is always read, and a budget too small for one fetch is refused at the
 * start ({@link BudgetTooSmallException}), so the budget bounds what the loader holds, up to the
 * error of the row size estimate ({@link #peakHeldBytes()} reports what it held). They may complete
 * in any order; {@link #next()} waits for the next one in order, and the wait is the stall time.
 * {@link #state()} after any batch is a {@link LoaderState} from which {@link #resume} continues
 * with exactly the same batches, with any world size that divides the global batch.
 *
 * <p>{@link #close()} never interrupts an I/O thread (an interrupted {@code FileChannel} read
 * closes the channel for every other reader): fetches not yet started see a flag and do nothing,
 * running ones finish, and everything they read is closed. No thread or buffer outlives it.
 *
 * <p>Why this file is a little long: submitting within the budget, delivering in order, resuming
 * and shutting down all move the same cursors and the same queue of fetches.
 */
public final class Loader implements AutoCloseable {
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final DatasetView view;
  private final Dataset dataset;
  private final LoaderOptions options;
  private final BufferAllocator allocator;
  private final RowMap rowMap;
  private final List<String> fields;
  private final double[] globalLabels;
  private final ExecutorService pool;
  // The pool's threads, joined on close: a terminated pool's last thread may still be exiting.
  private final Queue<Thread> workers = new ConcurrentLinkedQueue<>();
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  private final long firstEpoch;
  private final long firstCursor;
  private final long endEpoch;
  private volatile boolean closed;

  // Next fetch to submit.
  private long submitEpoch;
  private long submitBatch;
  private EpochPlan submitPlan;
  // What is being handed out.
  private Fetch current;
  private EpochPlan deliverPlan;
  private long deliverEpoch;
  private long deliverBatch;
  private long bytesPerRow;
  private LoaderMetrics metrics;
  private final List<LoaderMetrics> finished = new ArrayList<>();
  private long[] lastPositions = new long[0];
  private long[] lastRows = new long[0];
  private boolean[] lastPadding = new boolean[0];
  private long statsBytes;
  private long statsReads;
  private FileOrder fileOrder;
  private long peakHeld;

  /**
   * Most rows of one take: a fetch's rows are read in chunks of at most this many rows (and {@link
   * #TAKE_BYTES}), by data file, on all I/O threads in parallel.
   */
  static final int MAX_TAKE_ROWS = 2048;

  /**
   * Target decoded bytes of one take: small enough that its reads fit the format's per-thread read
   * area (16 MiB) and that a fetch splits into several takes, large enough to amortise a take.
   */
  static final long TAKE_BYTES = 8L << 20;

  private record Pending(Future<Fetch> future, long reservedBytes) {
    /** The fetch's actual size once it is read, its reservation until then. */
    long heldBytes() {
      if (future.isDone()) {
        try {
          return future.get().bytes;
        } catch (ExecutionException | InterruptedException | RuntimeException e) {
          // A failed fetch holds nothing; next() reports its failure.
          return 0;
        }
      }
      return reservedBytes;
    }
  }

  private Loader(
      DatasetView view,
      LoaderOptions options,
      LoaderState state,
      BufferAllocator allocator,
      long bytesPerRowHint)
      throws IOException {
    this.view = view;
    this.dataset = view.dataset();
    this.options = options;
    this.allocator = allocator;
    this.rowMap = RowMap.of(view);
    List<String> f = options.fields();
    if (f != null && options.label() != null && !f.contains(options.label())) {
      f = new ArrayList<>(f);
      f.add(options.label());
    }
    this.fields = f;
    state.check(options.sampler(), dataset.version(), view.name());
    if (state.globalBatchRows() != options.globalBatchRows()
        || state.seed() != options.seed()
        || state.tail() != options.tail()) {
      throw new IllegalArgumentException(
          "the saved state is for global batch "
              + state.globalBatchRows()
              + ", seed "
              + state.seed()
              + ", tail "
              + state.tail()
              + "; the options say "
              + options.globalBatchRows()
              + ", "
              + options.seed()
              + ", "
              + options.tail());
    }
    this.globalLabels = options.label() == null ? null : Labels.distribution(view, options.label());
    this.firstEpoch = state.epoch();
    this.firstCursor = state.batchCursor();
    // Epochs are counted from 0, not from the resumed one: a resumed run ends where the
    // uninterrupted one would.
    this.endEpoch = options.epochs();
    if (firstEpoch >= endEpoch) {
      throw new IllegalArgumentException(
          "the saved state is at epoch " + firstEpoch + ", past the run's " + endEpoch + " epochs");
    }
    this.bytesPerRow = Math.max(1, bytesPerRowHint);
    this.submitEpoch = firstEpoch;
    this.submitBatch = firstCursor;
    this.submitPlan = plan(firstEpoch);
    this.deliverEpoch = firstEpoch;
    this.deliverBatch = firstCursor;
    this.deliverPlan = submitPlan;
    // The largest fetch: f batches, or a whole epoch if that is shorter.
    long fetchBatches = Math.min(options.sampler().fetchBatches(), submitPlan.batchCount());
    long minimum;
    try {
      minimum =
          Math.multiplyExact(
              Math.multiplyExact(Math.max(1, fetchBatches), (long) options.rankBatchRows()),
              bytesPerRow);
    } catch (ArithmeticException moreThanALongCounts) {
      minimum = Long.MAX_VALUE;
    }
    if (options.prefetchBytes() < minimum) {
      throw new BudgetTooSmallException(
          options.prefetchBytes(), minimum, fetchBatches, options.rankBatchRows(), bytesPerRow);
    }
    if (firstCursor > submitPlan.batchCount()) {
      throw new IllegalArgumentException(
          "batch cursor " + firstCursor + " is past the epoch's " + submitPlan.batchCount());
    }
    this.metrics = newMetrics(deliverPlan, firstCursor == 0);
    int id = POOLS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            options.threads(),
            r -> {
              Thread t = new Thread(r, "riffle-loader-" + id + "-" + threads.incrementAndGet());
              t.setDaemon(true);
              workers.add(t);
              return t;
            });
  }

  /**
   * Starts a run at the first batch of epoch 0.
   *
   * <p>Fetches are taken with the dataset's allocator and freed once cut into batches; open the
   * dataset with a {@link dev.riffle.format.io.RecyclingAllocator} so that the next fetch reuses
   * that memory instead of faulting in fresh pages.
   *
   * @param allocator where the batches are allocated (the dataset's takes use its own)
   */
  public static Loader open(DatasetView view, LoaderOptions options, BufferAllocator allocator)
      throws IOException {
    return resume(view, options, startState(view, options, 0), allocator);
  }

  /** The state at the first batch of epoch {@code epoch}. */
  public static LoaderState startState(DatasetView view, LoaderOptions options, long epoch) {
    return LoaderState.start(
        view.dataset().version(),
        view.name(),
        options.seed(),
        epoch,
        options.globalBatchRows(),
        options.tail(),
        options.sampler());
  }

  /**
   * Continues a run from a saved state: the next batch is global batch {@code state.batchCursor()}
   * of epoch {@code state.epoch()}, computed directly (no replay).
   *
   * @throws IllegalArgumentException if the state is for another dataset version, split, sampler,
   *     seed, global batch or tail
   */
  public static Loader resume(
      DatasetView view, LoaderOptions options, LoaderState state, BufferAllocator allocator)
      throws IOException {
    long hint = RowBytes.estimate(view, options.fields(), 32);
    return new Loader(view, options, state, allocator, hint);
  }

  private EpochPlan plan(long epoch) {
    return EpochPlan.create(
        options.sampler(),
        view.rowCount(),
        options.globalBatchRows(),
        options.seed(),
        epoch,
        options.tail());
  }

  private LoaderMetrics newMetrics(EpochPlan plan, boolean fromStart) {
    long expected = plan.rowsOfRank(options.rank(), options.world());
    return new LoaderMetrics(plan.epoch(), globalLabels, expected, fromStart);
  }

  /**
   * The next minibatch of this rank (G/W rows), which the caller closes, or null when the run's
   * last epoch is done.
   *
   * @throws IOException if a read failed (the loader is then unusable; close it)
   */
  public VectorSchemaRoot next() throws IOException {
    if (!advance()) {
      return null;
    }
    int b = current.next;
    VectorSchemaRoot out = current.cut(b, allocator);
    long bytes = 0;
    for (var v : out.getFieldVectors()) {
      bytes += v.getBufferSize();
    }
    handedOut(b, bytes);
    return out;
  }

  /**
   * Reads what {@link #next()} would return without gathering it: the reader sees the minibatch's
   * rows where the fetch holds them ({@link BatchRows}), for a consumer that copies every value
   * anyway, and saves the gather's copy. The rows are valid only during the call.
   *
   * @return what the reader returned (never null), or null when the run's last epoch is done
   * @throws IOException if a read failed, or the reader threw it (the loader is then unusable;
   *     close it)
   */
  public <T> T next(RowsReader<T> reader) throws IOException {
    if (!advance()) {
      return null;
    }
    int b = current.next;
    T out = reader.read(current.rows(b));
    if (out == null) {
      throw new NullPointerException("the rows reader returned null");
    }
    // The fetch's bytes per row: what these rows hold in memory, as the gathered batch would.
    handedOut(b, current.bytes / Math.max(1, current.rows.length) * current.batchRows);
    return out;
  }

  /** Reads one minibatch's rows inside {@link #next(RowsReader)}. */
  @FunctionalInterface
  public interface RowsReader<T> {
    /** What the caller wants of the rows (never null): they are freed once this returns. */
    T read(BatchRows rows) throws IOException;
  }

  /**
   * Makes {@code current} a fetch with a batch left to hand out, waiting for it to be read; false
   * when the run's last epoch is done.
   */
  private boolean advance() throws IOException {
    if (closed) {
      throw new IllegalStateException("loader is closed");
    }
    if (metrics.startNanos == 0) {
      metrics.startNanos = System.nanoTime();
    }
    while (current == null || current.next == current.batchCount()) {
      if (current != null) {
        current.close();
        current = null;
      }
      if (deliverBatch >= deliverPlan.batchCount()) {
        if (deliverEpoch + 1 >= endEpoch) {
          finishEpoch();
          return false;
        }
        finishEpoch();
        deliverEpoch++;
        deliverBatch = 0;
        deliverPlan = submitPlan.epoch() == deliverEpoch ? submitPlan : plan(deliverEpoch);
        metrics = newMetrics(deliverPlan, true);
        metrics.startNanos = System.nanoTime();
        continue;
      }
      submit();
      Pending p = pending.poll();
      long t0 = System.nanoTime();
      current = await(p.future());
      metrics.stallNanos += System.nanoTime() - t0;
      bytesPerRow = Math.max(bytesPerRow, current.bytes / Math.max(1, current.rows.length));
    }
    return true;
  }

  /** Batch {@code b} of the current fetch is handed out: counts it and moves on. */
  private void handedOut(int b, long bytes) {
    current.next++;
    record(current, b, bytes);
    if (current.next == current.batchCount()) {
      // Every batch is cut: free the rows now, so that the budget can admit the next fetch.
      current.close();
      current = null;
    }
    deliverBatch++;
    submit();
  }

  private void record(Fetch f, int b, long bytesDelivered) {
    peakHeld = Math.max(peakHeld, held());
    int m = f.batchRows;
    lastPositions = Arrays.copyOfRange(f.positions, b * m, (b + 1) * m);
    lastRows = Arrays.copyOfRange(f.rows, b * m, (b + 1) * m);
    lastPadding = Arrays.copyOfRange(f.padding, b * m, (b + 1) * m);
    for (int i = 0; i < m; i++) {
      metrics.cover(lastPositions[i], f.padding[b * m + i]);
    }
    int[] labels = f.labels == null ? null : Arrays.copyOfRange(f.labels, b * m, (b + 1) * m);
    metrics.diversity().add(lastPositions, m, deliverPlan.order()::blockOf, labels);
    metrics.batches++;
    metrics.rows += m;
    metrics.bytesDelivered += bytesDelivered;
    metrics.endNanos = System.nanoTime();
    long bytes = dataset.stats().bytesRead();
    long reads = dataset.stats().reads();
    metrics.bytesRead += bytes - statsBytes;
    metrics.reads += reads - statsReads;
    statsBytes = bytes;
    statsReads = reads;
  }

  private void finishEpoch() {
    if (!finished.contains(metrics)) {
      finished.add(metrics);
    }
  }

  /**
   * Submits fetches while the window and the byte budget allow: one that does not fit beside what
   * is held waits, unless nothing is held (the budget holds a fetch: see the constructor).
   */
  private void submit() {
    while (!closed && pending.size() < options.fetchesInFlight()) {
      if (submitBatch >= submitPlan.batchCount()) {
        if (submitEpoch + 1 >= endEpoch) {
          return;
        }
        submitEpoch++;
        submitBatch = 0;
        submitPlan = plan(submitEpoch);
        continue;
      }
      long end =
          Math.min(
              submitPlan.batchCount(),
              (submitBatch / options.sampler().fetchBatches() + 1)
                  * options.sampler().fetchBatches());
      long rows = (end - submitBatch) * options.rankBatchRows();
      long reserve = rows * bytesPerRow;
      boolean idle = pending.isEmpty() && current == null;
      if (!idle && held() + reserve > options.prefetchBytes()) {
        return;
      }
      Fetch f = Fetch.plan(submitPlan, submitBatch, end, options.rank(), options.world(), rowMap);
      int chunk = chunkRows(rows);
      pending.add(
          new Pending(
              f.start(dataset, fields, options.label(), pool, chunk, () -> closed), reserve));
      submitBatch = end;
      peakHeld = Math.max(peakHeld, held());
    }
  }

  /**
   * Rows per take for a fetch of {@code rows} rows: at most {@link #MAX_TAKE_ROWS} and about {@link
   * #TAKE_BYTES}, and few enough that every I/O thread gets a take.
   */
  private int chunkRows(long rows) {
    long byBytes = Math.max(64, TAKE_BYTES / bytesPerRow);
    long byThreads = Math.max(1, (rows + options.threads() - 1) / options.threads());
    return (int) Math.max(1, Math.min(MAX_TAKE_ROWS, Math.min(byBytes, byThreads)));
  }

  /** Bytes the loader holds or has reserved: queued fetches, plus the one being handed out. */
  private long held() {
    long sum = 0;
    for (Pending p : pending) {
      sum += p.heldBytes();
    }
    if (current != null) {
      sum += current.bytes;
    }
    return sum;
  }

  private Fetch await(Future<Fetch> future) throws IOException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          // The consumer was interrupted: keep waiting (the fetch holds buffers that must be
          // closed in order), and restore the flag when done.
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          if (c instanceof IOException io) {
            throw io;
          }
          if (c instanceof RuntimeException re) {
            throw re;
          }
          if (c instanceof Error err) {
            throw err;
          }
          throw new IOException(c);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Where the run stands: the next batch {@link #next()} would hand out. */
  public LoaderState state() {
    long e = deliverEpoch;
    long t = deliverBatch;
    if (t >= deliverPlan.batchCount() && e + 1 < endEpoch) {
      e++;
      t = 0;
    }
    return startState(view, options, 0).at(e, t);
  }

  /**
   * The most bytes of fetched rows the loader held at once so far (fetches read ahead at their
   * reservation until read, then at their size, and the one being handed out), as the budget counts
   * them. It stays within {@code prefetchBytes} unless the rows are larger than estimated.
   */
  public long peakHeldBytes() {
    return peakHeld;
  }

  /** The plan of the epoch being handed out. */
  public EpochPlan plan() {
    return deliverPlan;
  }

  /**
   * The data files (indices into the manifest's {@code files()}) this rank reads from the next
   * batch, {@link #state()}, to the end of that epoch, in the order first read ({@link FileOrder}):
   * e.g. to publish in a shared cache, so that its evictions keep what is read soonest.
   */
  public int[] upcomingFiles() {
    LoaderState s = state();
    EpochPlan p = s.epoch() == deliverPlan.epoch() ? deliverPlan : plan(s.epoch());
    if (fileOrder == null) {
      fileOrder = FileOrder.of(dataset, rowMap);
    }
    return fileOrder.upcoming(p, options.rank(), options.world(), s.batchCursor());
  }

  /** View positions of the last batch handed out (a copy). */
  public long[] lastPositions() {
    return lastPositions.clone();
  }

  /**
   * Which rows of the last batch handed out are padding: repeats of earlier rows that fill the
   * epoch's last batch (with {@code Tail.PAD}), to be masked out of a loss (a copy).
   */
  public boolean[] lastPadding() {
    return lastPadding.clone();
  }

  /** Global row ids of the last batch handed out (a copy). */
  public long[] lastRows() {
    return lastRows.clone();
  }

  /** Metrics of the epoch being handed out. */
  public LoaderMetrics metrics() {
    return metrics;
  }

  /** Metrics of every epoch completed so far, the current one last once it is done. */
  public List<LoaderMetrics> epochMetrics() {
    return List.copyOf(finished);
  }

  /**
   * Stops the run: fetches not started do nothing, running ones finish (I/O threads are never
   * interrupted), and every batch not handed out is closed. Batches already handed out stay the
   * caller's.
   */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    boolean interrupted = false;
    // Every chunk of a pending fetch is queued already: those not started see the flag and read
    // nothing, running ones finish, and each fetch's future completes once its chunks are done.
    for (Pending p : pending) {
      while (true) {
        try {
          p.future().get().close();
          break;
        } catch (ExecutionException e) {
          // A failed fetch closed what it had read.
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    pending.clear();
    pool.shutdown();
    while (true) {
      try {
        if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    for (Thread t : workers) {
      while (t.isAlive() && t != Thread.currentThread()) {
        try {
          t.join();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (current != null) {
      current.close();
      current = null;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while closing the loader");
    }
  }
}
