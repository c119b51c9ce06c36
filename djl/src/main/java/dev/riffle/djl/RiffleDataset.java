// Why this file stays whole (over 500 lines): see "Why this file is long" in the class comment.
package dev.riffle.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import ai.djl.translate.Batchifier;
import ai.djl.util.Progress;
import dev.riffle.dataset.DatasetView;
import dev.riffle.loader.pipeline.BatchRows;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderMetrics;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.plan.LoaderState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A DJL {@link ai.djl.training.dataset.Dataset} whose batches come straight from a Riffle {@link
 * Loader}: the sampler, its diversity, the seed, the epochs and this process's rank and world size
 * are the {@link LoaderOptions}'; the batches are the loader's, row for row, as NDArrays (see
 * {@link BatchConverter} for the one copy).
 *
 * <p>One loader serves the whole run, so that reads run ahead across epoch boundaries: each {@link
 * #getData} call hands out the batches of the next epoch of the run (the rest of the current one
 * after a resume, or after an iteration stopped early), as DJL's {@code EasyTrain.fit} expects of a
 * training set. Calling it after the run's last epoch is an error. An evaluation set is the same
 * with a {@code Sequential} sampler and as many epochs as evaluations.
 *
 * <p>One thread of the dataset's own works ahead of the trainer (up to two batches as NDArrays
 * ahead): it copies each minibatch's rows straight from where the loader's fetch holds them into
 * the arrays ({@link Loader#next(Loader.RowsReader)}: one copy, no gathered Arrow batch in
 * between), so that reading, converting and training overlap; the order and content are the
 * loader's all the same, and a failure on that thread is thrown, with its message, by the
 * consumer's next {@code hasNext}. A batch's arrays live in a manager of their own, handed over to
 * a sub-manager of the one passed to {@code getData}: {@code Batch.close()} frees them. Close the
 * dataset (the thread, the batches it queued, the loader and its allocator) when done; a batch left
 * open then fails the close.
 *
 * <p>Resume: {@link #state()} is where the trainer stands (the loader itself is ahead by the queued
 * batches); {@link #stateBeforeLastBatch()} is the state that hands out the last batch again, what
 * a checkpoint taken before that batch's optimizer step must save ({@link CheckpointListener}).
 * {@link Builder#resumeFrom} continues a run from either, with exactly the batches the
 * uninterrupted run would have had.
 *
 * <p>Why this file is long: the hand-off between the threads (the queue, failures, stopping and
 * freeing what is queued) is tied to what the trainer was handed (state, rows, epoch ends, stats);
 * kept together so that the resume rule can be checked in one place.
 */
public final class RiffleDataset implements ai.djl.training.dataset.Dataset, AutoCloseable {
  private static final AtomicLong IDS = new AtomicLong();

  private final DatasetView view;
  private final LoaderOptions options;
  private final BatchConverter converter;
  private final BufferAllocator allocator;
  private final BatchBuffers buffers;
  private final LoaderState resumeFrom;
  private final boolean trimPadding;
  private Loader loader;
  private boolean finished;
  private boolean closed;
  private LoaderState beforeLast;
  // What the trainer was handed last; the loader itself runs ahead by the queued batches.
  private LoaderState handedState;
  private long[] handedRows = new long[0];
  // The reader thread's output: at most two batches ahead of the trainer.
  private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(2);
  private Object pending;
  private Throwable failure;
  private ai.djl.Device device;
  private String engine;
  private Thread readerThread;
  private volatile boolean stop;
  private final List<EpochStats> stats = new ArrayList<>();
  private EpochStats current;

  private RiffleDataset(Builder b, BatchConverter converter) {
    this.view = b.view;
    this.converter = converter;
    this.options = b.options.withFields(converter.columns());
    this.resumeFrom = b.resumeFrom;
    this.trimPadding = b.trimPadding;
    this.allocator =
        b.allocator.newChildAllocator("riffle-djl-" + IDS.incrementAndGet(), 0, Long.MAX_VALUE);
    this.buffers = new BatchBuffers(allocator);
  }

  /** Starts a builder over a view of a dataset: all rows, or a split. */
  public static Builder builder(DatasetView view) {
    return new Builder(view);
  }

  /**
   * What the trainer was fed in one epoch (or the part of it since a resume).
   *
   * @param epoch the loader's epoch
   * @param batches batches handed out
   * @param rows rows handed out (padding included unless trimmed)
   * @param convertNanos time spent copying rows into NDArrays (on the dataset's thread)
   * @param waitNanos time the consumer waited for the next batch: the stall the trainer sees, which
   *     the background thread hides where it keeps ahead
   * @param loader the loader's own metrics of the epoch: its stall time, reads, diversity
   */
  public record EpochStats(
      long epoch,
      long batches,
      long rows,
      long convertNanos,
      long waitNanos,
      LoaderMetrics loader) {}

  /**
   * The batches of the next epoch of the run. Iterate it once.
   *
   * @throws IllegalStateException if the run's epochs are all handed out, or the dataset is closed
   */
  @Override
  public Iterable<Batch> getData(NDManager manager) throws IOException {
    if (closed) {
      throw new IllegalStateException("the dataset is closed");
    }
    if (loader == null) {
      loader =
          resumeFrom == null
              ? Loader.open(view, options, allocator)
              : Loader.resume(view, options, resumeFrom, allocator);
      handedState = loader.state();
      // A queued batch lives in a base manager of its own until handed out, so that it outlasts
      // the manager of one getData call; close() frees those still queued.
      device = manager.getDevice();
      engine = manager.getEngine().getEngineName();
      readerThread = new Thread(this::readAhead, "riffle-djl-read-" + IDS.get());
      readerThread.setDaemon(true);
      readerThread.start();
    }
    if (finished) {
      throw new IllegalStateException(
          "all " + options.epochs() + " epochs of the run are handed out");
    }
    long epoch = handedState.epoch();
    boolean[] used = new boolean[1];
    return () -> {
      if (used[0]) {
        throw new IllegalStateException("an epoch's batches can be iterated once");
      }
      used[0] = true;
      return new EpochBatches(manager, epoch);
    };
  }

  /** No download or preparation: the data is read as it is handed out. */
  @Override
  public void prepare(Progress progress) {}

  /** A batch converted ahead, with where the loader stood before and after it. */
  private record Ahead(
      NDManager batchManager,
      BatchConverter.Converted converted,
      List<Long> ids,
      long[] rows,
      long index,
      long total,
      LoaderState before,
      LoaderState after,
      LoaderMetrics metrics,
      long convertNanos) {}

  /** The loader has no more batches: the run is over. */
  private static final Object END = new Object();

  /** What failed on the background thread; handed to the consumer in place of a batch. */
  private record Failed(Throwable error) {}

  /** A minibatch's rows converted, before the loader says where it stands after them. */
  private record Converting(
      NDManager batchManager,
      BatchConverter.Converted converted,
      List<Long> ids,
      long[] rows,
      long convertNanos) {}

  /**
   * The reader thread: the only one to touch the loader once it is open. It converts each
   * minibatch's rows where the fetch holds them and queues the arrays. It stops after the run's
   * last batch, on a failure, or when {@link #close} asks.
   */
  private void readAhead() {
    try {
      // Loader.state() hashes the sampler each call: one call a batch, the state after a batch
      // being the state before the next.
      LoaderState before = loader.state();
      while (!stop) {
        Converting c = loader.next(this::convert);
        if (c == null) {
          put(queue, END);
          return;
        }
        LoaderState after = loader.state();
        Ahead a =
            new Ahead(
                c.batchManager(),
                c.converted(),
                c.ids(),
                c.rows(),
                before.batchCursor(),
                loader.plan().batchCount(),
                before,
                after,
                loader.metrics(),
                c.convertNanos());
        before = after;
        if (!put(queue, a)) {
          a.batchManager().close();
          return;
        }
      }
    } catch (Throwable e) { // handed to the consumer, who rethrows it on its next call
      put(queue, new Failed(e));
    }
  }

  /** Queues an item, waiting for room; false if the dataset is closing meanwhile. */
  private boolean put(BlockingQueue<Object> to, Object item) {
    try {
      while (!stop) {
        if (to.offer(item, 20, TimeUnit.MILLISECONDS)) {
          return true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }

  private static RuntimeException rethrow(Throwable e) {
    if (e instanceof RuntimeException r) {
      return r;
    }
    if (e instanceof Error err) {
      throw err;
    }
    if (e instanceof IOException io) {
      return new UncheckedIOException(io.getMessage(), io);
    }
    return new IllegalStateException(e.getMessage(), e);
  }

  private final class EpochBatches implements Iterator<Batch> {
    private final NDManager manager;
    private final long epoch;
    private Batch next;
    private boolean end;

    EpochBatches(NDManager manager, long epoch) {
      this.manager = manager;
      this.epoch = epoch;
    }

    @Override
    public boolean hasNext() {
      if (next == null && !end) {
        advance();
      }
      return next != null;
    }

    @Override
    public Batch next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Batch b = next;
      next = null;
      return b;
    }

    private void advance() {
      if (closed) {
        throw new IllegalStateException("the dataset is closed");
      }
      if (finished) {
        end = true;
        return;
      }
      long w0 = System.nanoTime();
      Object item = take();
      long waited = System.nanoTime() - w0;
      if (item == END) {
        finished = true;
        end = true;
        return;
      }
      Ahead a = (Ahead) item;
      if (a.before().epoch() != epoch) {
        pending = a; // the next epoch's first batch: for the next getData call
        end = true;
        return;
      }
      // Hand over: the batch's arrays move under a sub-manager of the caller's, so that closing
      // the batch (or the caller's manager) frees them, and the dataset's manager forgets them.
      NDManager hm = manager.newSubManager();
      hm.attachInternal("riffle-batch-" + IDS.incrementAndGet(), a.batchManager());
      next =
          new Batch(
              hm,
              a.converted().data(),
              a.converted().labels(),
              a.ids().size(),
              Batchifier.STACK,
              Batchifier.STACK,
              a.index(),
              a.total(),
              a.ids());
      beforeLast = a.before();
      handedState = a.after();
      handedRows = a.rows();
      if (current == null || current.epoch() != epoch) {
        current = new EpochStats(epoch, 0, 0, 0, 0, a.metrics());
        stats.add(current);
      }
      current =
          new EpochStats(
              epoch,
              current.batches() + 1,
              current.rows() + next.getSize(),
              current.convertNanos() + a.convertNanos(),
              current.waitNanos() + waited,
              a.metrics());
      stats.set(stats.size() - 1, current);
    }
  }

  /** The next item from the reader thread, waiting for it (the consumer's thread only). */
  private Object take() {
    if (pending != null) {
      Object p = pending;
      pending = null;
      return p;
    }
    if (failure != null) {
      throw rethrow(failure);
    }
    try {
      while (true) {
        Object item = queue.poll(50, TimeUnit.MILLISECONDS);
        if (item instanceof Failed f) {
          failure = f.error();
          throw rethrow(failure);
        }
        if (item != null) {
          return item;
        }
        if (!readerThread.isAlive() && queue.isEmpty()) {
          throw new IllegalStateException("the reader thread stopped without a result");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the next batch", e);
    }
  }

  /** Converts a minibatch's rows on the reader thread, into a manager of its own. */
  private Converting convert(BatchRows all) {
    long t0 = System.nanoTime();
    int n = all.rowCount();
    long[] rows = new long[n];
    int kept = 0;
    for (int k = 0; k < n; k++) {
      rows[k] = all.globalRow(k);
      kept += trimPadding && all.padding(k) ? 0 : 1;
    }
    BatchRows src = all;
    if (kept < n) {
      int[] keep = new int[kept];
      for (int k = 0, i = 0; k < n; k++) {
        if (!all.padding(k)) {
          keep[i++] = k;
        }
      }
      src = all.select(keep);
    }
    List<Long> ids = new ArrayList<>(src.rowCount());
    for (int k = 0; k < src.rowCount(); k++) {
      ids.add(src.globalRow(k));
    }
    NDManager bm = NDManager.newBaseManager(device, engine);
    try {
      BatchConverter.Converted c = converter.convert(src, false, bm, buffers);
      return new Converting(bm, c, ids, rows, System.nanoTime() - t0);
    } catch (RuntimeException e) {
      bm.close();
      throw e;
    }
  }

  /** The options the loader runs with (the builder's, with the columns and label filled in). */
  public LoaderOptions options() {
    return options;
  }

  /** Rows of the view the batches are drawn from. */
  public long viewRowCount() {
    return view.rowCount();
  }

  /** Where the run stands: the next batch to hand out. */
  public LoaderState state() {
    if (handedState != null) {
      return handedState;
    }
    return resumeFrom != null ? resumeFrom : Loader.startState(view, options, 0);
  }

  /**
   * The state that hands out the last batch again: saved with parameters taken before that batch's
   * optimizer step, a resumed run trains on it as the uninterrupted one did.
   *
   * @throws IllegalStateException if no batch was handed out yet
   */
  public LoaderState stateBeforeLastBatch() {
    if (beforeLast == null) {
      throw new IllegalStateException("no batch was handed out yet");
    }
    return beforeLast;
  }

  /** The pool the batches are copied into (for tests). */
  BatchBuffers buffers() {
    return buffers;
  }

  /** Batches converted ahead and waiting to be handed out (for tests). */
  int queued() {
    return queue.size() + (pending == null ? 0 : 1);
  }

  /** Whether every epoch of the run was handed out. */
  public boolean finished() {
    return finished;
  }

  /** What each epoch fed the trainer so far, in order; the current epoch last. */
  public List<EpochStats> epochStats() {
    return List.copyOf(stats);
  }

  /** Global row ids of the last batch handed out (padding rows included). */
  public long[] lastRows() {
    return handedRows.clone();
  }

  /**
   * Stops the loader and closes this dataset's allocator.
   *
   * @throws IllegalStateException if a batch handed out is still open (its memory would leak)
   */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      stopReader();
    } finally {
      try {
        if (loader != null) {
          loader.close();
        }
      } finally {
        buffers.close();
        allocator.close();
      }
    }
  }

  /** Stops the background thread and frees the batches it holds that were not handed out. */
  private void stopReader() {
    if (readerThread == null) {
      return;
    }
    stop = true;
    boolean interrupted = false;
    while (readerThread.isAlive()) {
      drain(); // makes room, so that a thread waiting to queue sees the stop
      try {
        readerThread.join(10);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    drain();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void drain() {
    if (pending instanceof Ahead a) {
      a.batchManager().close();
    }
    pending = null;
    for (Object item; (item = queue.poll()) != null; ) {
      if (item instanceof Ahead a) {
        a.batchManager().close();
      }
    }
  }

  /**
   * Names the columns and how they become arrays (the setters of {@link Columns}) and how the
   * loader runs; {@link #build()} checks them.
   */
  public static final class Builder implements Columns<Builder> {
    private final DatasetView view;
    private final ColumnSpec columns = new ColumnSpec();
    private LoaderOptions options;
    private BufferAllocator allocator;
    private LoaderState resumeFrom;
    private boolean trimPadding;

    private Builder(DatasetView view) {
      this.view = view;
    }

    @Override
    public ColumnSpec columns() {
      return columns;
    }

    @Override
    public Builder self() {
      return this;
    }

    /** How the loader runs (sampler, batch, seed, epochs, rank and world, threads, memory). */
    public Builder options(LoaderOptions o) {
      this.options = o;
      return this;
    }

    /**
     * Where batches are allocated (a child allocator of it, closed with the dataset). Open the
     * dataset itself with a {@code RecyclingAllocator}, as {@code riffle load} does.
     */
    public Builder allocator(BufferAllocator a) {
      this.allocator = a;
      return this;
    }

    /** Continue a run from a saved state instead of starting it. */
    public Builder resumeFrom(LoaderState state) {
      this.resumeFrom = state;
      return this;
    }

    /**
     * Leave out the padding rows that fill an epoch's last batch ({@code Tail.PAD}), so that the
     * last batch is smaller: for evaluation, where a row counted twice would bias the accuracy.
     */
    public Builder trimPadding(boolean trim) {
      this.trimPadding = trim;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the column that is missing or of an unsupported type,
     *     or an integer label without its number of classes
     * @throws NullPointerException if the options or the allocator were not given
     */
    public RiffleDataset build() {
      if (options == null) {
        throw new NullPointerException("options(LoaderOptions) is required");
      }
      if (allocator == null) {
        throw new NullPointerException("allocator(BufferAllocator) is required");
      }
      BatchConverter c = columns.converter(view.dataset());
      if (resumeFrom != null) {
        resumeFrom.check(options.sampler(), view.dataset().version(), view.name());
      }
      return new RiffleDataset(this, c);
    }
  }
}
