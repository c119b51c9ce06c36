package dev.riffle.stage;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.RetryPolicy;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.io.RandomAccessSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Downloads one data file into its blob: parallel ranged reads of {@code partBytes} each, written
 * by position into a unique temporary file, hashed in order as parts land (from the part buffers,
 * {@link OrderedHasher}), synced once at the end, checked against the manifest's length and
 * SHA-256, made read-only and atomically moved into {@code blobs/}. On any failure the temporary
 * file is deleted, so {@code blobs/} only ever holds verified files. Callers hold the blob's lock.
 *
 * <p>Parts of all files share one pool that runs them in file order (the file that started first,
 * then by part), not interleaved: a file then completes, and its sync runs, while the next ones
 * still download, rather than every file's sync piling up at the end.
 */
final class BlobDownloader {
  private final CacheLayout layout;
  private final StageOptions options;
  private final ExecutorService parts;
  private final PartBuffers buffers;
  private final PartWriter.Aligned aligned;
  private final AtomicLong fileOrder = new AtomicLong();
  private final RetryPolicy.Listener retryListener;

  /**
   * Set when any file of the stage failed for good: parts of every file stop instead of retrying on
   * their own, so a dead server ends the stage once, not once per file in flight.
   */
  final AtomicBoolean stageFailed = new AtomicBoolean();

  final LongAdder bytesDownloaded = new LongAdder();
  final LongAdder retries = new LongAdder();
  final LongAdder bytesRefetched = new LongAdder();

  /** Bytes being downloaded right now, counted against the free space of the cache disk. */
  private final AtomicLong reserved = new AtomicLong();

  /**
   * @param parts a pool from {@link #partPool}
   */
  BlobDownloader(
      CacheLayout layout,
      StageOptions options,
      ExecutorService parts,
      RetryPolicy.Listener retryListener) {
    this.layout = layout;
    this.retryListener = retryListener;
    this.options = options;
    this.parts = parts;
    // As many loans as threads: enough that parts landing out of order are rarely read back,
    // bounded so heap buffers stay at 2 × threads parts.
    this.buffers = new PartBuffers(options.partBytes(), options.threads());
    this.aligned =
        options.directWrites()
            ? new PartWriter.Aligned(options.partBytes(), layout.tmpDir())
            : null;
  }

  /** A pool of {@code threads} that runs {@link Part}s in file order, then part order. */
  static ExecutorService partPool(int threads, ThreadFactory factory) {
    return new ThreadPoolExecutor(
        threads, threads, 0, TimeUnit.MILLISECONDS, new PriorityBlockingQueue<>(), factory);
  }

  /** What the manifest says about one file, and how to name it in messages. */
  record Wanted(Manifest.DataFile file, String remoteName, long version) {}

  /**
   * Fetches {@code w} into {@code blobs/<sha256>}.
   *
   * @param progress told every byte that lands
   * @throws CorruptFileException if the object's length or SHA-256 is not the manifest's
   * @throws NoSuchFileException if the object is missing
   */
  void download(Storage storage, Wanted w, AtomicLong progress) throws IOException {
    Manifest.DataFile f = w.file();
    long length = f.byteLength();
    reserve(w, length);
    Path temp = layout.newTemp(f.sha256());
    boolean moved = false;
    try (SourcePool pool = new SourcePool(storage, w)) {
      // One open up front: a missing or wrong-sized object fails before any part is scheduled.
      RandomAccessSource first =
          options
              .retry()
              .call(
                  "opening " + w.remoteName(),
                  endpoint(storage),
                  counted(retryListener),
                  pool::borrow);
      pool.giveBack(first);
      String sha;
      try (FileChannel ch =
              FileChannel.open(
                  temp,
                  StandardOpenOption.CREATE_NEW,
                  StandardOpenOption.READ,
                  StandardOpenOption.WRITE);
          PartWriter writer = PartWriter.open(temp, ch, aligned)) {
        int n = (int) ((length + options.partBytes() - 1) / options.partBytes());
        OrderedHasher hasher = new OrderedHasher(n, options.partBytes(), length, buffers);
        try {
          runParts(pool, ch, writer, hasher, n, w, progress);
        } finally {
          hasher.release();
        }
        // One sync per blob, after the last part: per-part syncs would serialise the writers.
        ch.force(true);
        sha = hasher.hex();
        if (ch.size() != length) {
          throw new CorruptFileException(
              w.remoteName(), 0, "downloaded " + ch.size() + " bytes, expected " + length);
        }
      }
      if (!sha.equals(f.sha256())) {
        throw new CorruptFileException(
            w.remoteName(),
            0,
            "SHA-256 of the downloaded bytes is "
                + sha
                + " but the manifest of version "
                + w.version()
                + " says "
                + f.sha256()
                + " (the object was modified or damaged); the download was discarded and"
                + " nothing was cached");
      }
      // Views hard-link blobs: read-only keeps a stray write through a view from changing one.
      temp.toFile().setReadOnly();
      Path blob = layout.blob(f.sha256());
      Files.move(temp, blob, StandardCopyOption.ATOMIC_MOVE);
      moved = true;
      CacheLayout.syncDirectory(blob.getParent());
    } finally {
      reserved.addAndGet(-length);
      if (!moved) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /** Fails fast when the cache disk cannot hold the file plus the free-space floor. */
  private void reserve(Wanted w, long length) throws IOException {
    long inFlight = reserved.addAndGet(length);
    long usable = Files.getFileStore(layout.tmpDir()).getUsableSpace();
    long need = inFlight + options.freeSpaceFloorBytes();
    if (usable < need) {
      reserved.addAndGet(-length);
      throw new IOException(
          "cache disk full: staging "
              + w.remoteName()
              + " needs "
              + length
              + " bytes (plus "
              + (inFlight - length)
              + " for downloads in flight and a free-space floor of "
              + options.freeSpaceFloorBytes()
              + ") but only "
              + usable
              + " are free under "
              + layout.root()
              + "; nothing was downloaded for it");
    }
  }

  private void runParts(
      SourcePool pool,
      FileChannel ch,
      PartWriter writer,
      OrderedHasher hasher,
      int n,
      Wanted w,
      AtomicLong progress)
      throws IOException {
    // Parts check this flag before starting, so a failure stops the rest without interrupts
    // (an interrupt during FileChannel I/O would close the channel under the other parts).
    AtomicBoolean failed = new AtomicBoolean();
    long order = fileOrder.getAndIncrement();
    List<Future<?>> futures = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int part = i;
      Part task =
          new Part(
              order,
              part,
              () -> {
                if (failed.get() || stageFailed.get()) {
                  throw new Abandoned(null);
                }
                ByteBuffer buf = buffers.take();
                boolean kept = false;
                try {
                  fetchPart(pool, writer, part, n, buf, w, progress, failed);
                  kept = hasher.partDone(part, buf, ch);
                } catch (IOException | RuntimeException e) {
                  failed.set(true);
                  stageFailed.set(true);
                  throw e;
                } finally {
                  if (!kept) {
                    buffers.giveBack(buf);
                  }
                }
              });
      parts.execute(task);
      futures.add(task);
    }
    IOException first = null;
    for (Future<?> fu : futures) {
      try {
        fu.get();
      } catch (ExecutionException e) {
        IOException io =
            e.getCause() instanceof IOException
                ? (IOException) e.getCause()
                : new IOException(w.remoteName() + ": " + e.getCause(), e.getCause());
        // The error that stopped the file, not the echo of parts that stopped because of it.
        if (first == null || (first instanceof Abandoned && !(io instanceof Abandoned))) {
          first = io;
        }
      } catch (InterruptedException e) {
        failed.set(true);
        Thread.currentThread().interrupt();
        if (first == null) {
          first = new java.io.InterruptedIOException("interrupted staging " + w.remoteName());
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private void fetchPart(
      SourcePool pool,
      PartWriter writer,
      int part,
      int parts,
      ByteBuffer buf,
      Wanted w,
      AtomicLong progress,
      AtomicBoolean failed)
      throws IOException {
    long offset = (long) part * options.partBytes();
    int n = (int) Math.min(options.partBytes(), w.file().byteLength() - offset);
    RetryPolicy retry = options.retry();
    String what = "part " + (part + 1) + " of " + parts + " of " + w.remoteName();
    long start = System.nanoTime();
    // One loop for the open and the read together: the only retry loop of a part.
    for (int attempt = 1; ; attempt++) {
      RandomAccessSource src = null;
      buf.clear().limit(n);
      try {
        retry.checkDeadline(what, pool.endpoint);
        RandomAccessSource[] opened = new RandomAccessSource[1];
        try {
          // This loop retries: the storage's own calls inside are tried once each.
          RetryPolicy.owning(
              () -> {
                opened[0] = pool.borrow();
                opened[0].readFully(offset, buf);
                return null;
              });
        } finally {
          src = opened[0];
        }
        pool.giveBack(src);
        break;
      } catch (IOException e) {
        pool.discard(src);
        bytesRefetched.add(buf.position());
        if (RetryPolicy.isTransient(e) && (failed.get() || stageFailed.get())) {
          throw new Abandoned(e);
        }
        long wait = retry.retryAfter(e, attempt, start, what, pool.endpoint);
        retries.increment();
        retryListener.retrying(what, attempt, retry.maxAttempts(), RetryPolicy.describe(e));
        sleep(wait, what);
      }
    }
    buf.flip();
    try {
      // One positional write of the whole part; the buffer keeps its position for the hasher.
      writer.write(buf, offset);
    } catch (IOException e) {
      throw new IOException(
          "cache "
              + layout.root()
              + ": writing "
              + w.remoteName()
              + " failed ("
              + e.getMessage()
              + "; "
              + Files.getFileStore(layout.tmpDir()).getUsableSpace()
              + " bytes free); nothing was cached for it",
          e);
    }
    bytesDownloaded.add(n);
    progress.addAndGet(n);
  }

  /** The server behind a storage, for the final error of a request that gave up. */
  static String endpoint(Storage storage) {
    return storage.endpoint();
  }

  /** Counts the retries of {@code listener}'s caller in {@link #retries}. */
  private RetryPolicy.Listener counted(RetryPolicy.Listener listener) {
    return (what, attempt, max, cause) -> {
      retries.increment();
      listener.retrying(what, attempt, max, cause);
    };
  }

  private static void sleep(long millis, String what) throws java.io.InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while retrying " + what);
    }
  }

  /**
   * One part's task: ordered by the file's start order, then by part, so the pool finishes files
   * one after another. Its own future, since a pool's {@code submit} wrapper is not comparable.
   */
  static final class Part extends FutureTask<Void> implements Comparable<Part> {
    private final long file;
    private final int part;

    Part(long file, int part, IoTask body) {
      super(
          () -> {
            body.run();
            return null;
          });
      this.file = file;
      this.part = part;
    }

    @Override
    public int compareTo(Part o) {
      int c = Long.compare(file, o.file);
      return c != 0 ? c : Integer.compare(part, o.part);
    }
  }

  /** A part's body. */
  interface IoTask {
    void run() throws IOException;
  }

  /** A part that stopped retrying because another part of the file already failed for good. */
  static final class Abandoned extends IOException {
    private static final long serialVersionUID = 1L;

    Abandoned(IOException cause) {
      super(
          "abandoned after another part failed" + (cause == null ? "" : ": " + cause.getMessage()),
          cause);
    }
  }

  /**
   * Sources of one object, one per thread in use: S3A's classic stream serialises positional reads
   * on one stream, so parallel parts need parallel streams. A source that failed is closed, never
   * reused, so a retry gets a fresh connection. Opening checks the length against the manifest.
   * Only the first open looks the object up; the others reopen it from what that one found ({@link
   * Storage#openAgain}: on S3 one HEAD per object, not one per stream).
   */
  private final class SourcePool implements AutoCloseable {
    private final Storage storage;
    private final Wanted w;
    private final ConcurrentLinkedQueue<RandomAccessSource> idle = new ConcurrentLinkedQueue<>();
    final String endpoint;

    /** The first source opened and checked (perhaps closed since), which others reopen from. */
    private volatile RandomAccessSource checked;

    SourcePool(Storage storage, Wanted w) {
      this.storage = storage;
      this.w = w;
      this.endpoint = endpoint(storage);
    }

    /** An idle source, or a new one (one attempt: the caller's retry loop retries). */
    RandomAccessSource borrow() throws IOException {
      RandomAccessSource s = idle.poll();
      return s != null ? s : openChecked();
    }

    void giveBack(RandomAccessSource s) {
      idle.add(s);
    }

    void discard(RandomAccessSource s) {
      if (s != null) {
        try {
          s.close();
        } catch (IOException | RuntimeException e) {
          // A broken connection may fail to close; it is dropped either way.
        }
      }
    }

    private RandomAccessSource openChecked() throws IOException {
      Manifest.DataFile f = w.file();
      RandomAccessSource known = checked;
      RandomAccessSource s;
      try {
        s = known == null ? storage.open(f.path()) : storage.openAgain(f.path(), known);
      } catch (NoSuchFileException e) {
        NoSuchFileException x =
            new NoSuchFileException(
                w.remoteName(),
                null,
                "missing: the manifest of version "
                    + w.version()
                    + " names it but the storage has no such object; nothing was staged for it");
        x.initCause(e);
        throw x;
      }
      long actual;
      try {
        actual = s.length();
      } catch (IOException | RuntimeException e) {
        discard(s);
        throw e;
      }
      if (actual != f.byteLength()) {
        discard(s);
        throw new CorruptFileException(
            w.remoteName(),
            0,
            "the object is "
                + actual
                + " bytes but the manifest of version "
                + w.version()
                + " says "
                + f.byteLength()
                + (actual < f.byteLength() ? " (truncated)" : " (replaced or appended to)")
                + "; nothing was staged for it");
      }
      if (known == null) {
        checked = s;
      }
      return s;
    }

    @Override
    public void close() {
      RandomAccessSource s;
      while ((s = idle.poll()) != null) {
        discard(s);
      }
    }
  }
}
