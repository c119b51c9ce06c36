// Why this file stays whole (over 500 lines): it is the one place where a view becomes complete or
// stops being so: the manifest, the checks of a complete view (with and without the store), the
// verification and reuse of cached blobs, the downloads and the marker share one protocol whose
// order is its correctness; downloading a blob (BlobDownloader) and hashing a view (BlobVerifier)
// live in their own classes.
package dev.riffle.stage;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.DurableFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stages one version of a dataset into a local cache directory ({@link CacheLayout}) and returns a
 * view that {@code new LocalStorage(report.view())} opens as the same dataset.
 *
 * <p>Each data file becomes a blob named by its SHA-256: downloaded by parallel ranged reads into a
 * unique temporary file, verified (length, SHA-256), synced and atomically moved. The view (hard
 * links to the blobs plus the manifest, byte for byte) is complete only once its {@code COMPLETE}
 * marker exists, and the marker is written last, so an interrupted stage never leaves a view that
 * looks usable. Running the stage again resumes: blobs already in the cache are verified by
 * construction and reused, so only missing ones are fetched (parts of a half-downloaded blob are
 * not kept: its temporary file is deleted and the blob fetched again whole).
 *
 * <p>Threads and processes may stage into one cache at once: a blob is downloaded by whichever
 * holds its lock ({@link CacheLocks}) and reused by the others. Temporary files of dead processes
 * are deleted at the start of every stage.
 *
 * <p>With a {@link StageOptions#cacheLimit()} the stage first checks that the snapshot can live
 * under it (fails fast otherwise), then evicts other blobs ({@link CacheEvictor}) to make room for
 * the missing ones. Blobs of the snapshot being staged, and of views pinned by a {@link
 * CacheLease}, are never evicted; readers of a view should hold {@link CacheLease#pinView}.
 *
 * <p>Thread-safe; one instance may serve many concurrent {@link #stage} calls.
 */
public final class SnapshotStager {
  private final CacheLayout layout;
  private final StageOptions options;
  private final CacheEvictor evictor;

  /**
   * @param cacheDir the cache directory, created if missing; keep it on a local disk (OS file locks
   *     are unreliable on NFS and Lustre)
   */
  public SnapshotStager(Path cacheDir, StageOptions options) throws IOException {
    this.layout = new CacheLayout(cacheDir);
    this.options = options;
    this.evictor = new CacheEvictor(layout);
  }

  public CacheLayout layout() {
    return layout;
  }

  public StageOptions options() {
    return options;
  }

  /** Stages the latest version. */
  public StageReport stageLatest(Storage storage, StageListener listener) throws IOException {
    return stage(storage, Dataset.latestVersion(storage), listener);
  }

  /** Stages {@code version} without progress reports. */
  public StageReport stage(Storage storage, long version) throws IOException {
    return stage(storage, version, StageListener.NONE);
  }

  /**
   * Stages {@code version} of the dataset in {@code storage}, or returns at once if its view is
   * already complete.
   *
   * @throws dev.riffle.format.CorruptFileException if a file's length or SHA-256 differs from the
   *     manifest's (nothing of that file is cached)
   * @throws NoSuchFileException if the version, or an object its manifest names, is missing
   * @throws IOException if the cache disk is full or reads keep failing after retries
   */
  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  public StageReport stage(Storage storage, long version, StageListener listener)
      throws IOException {
    long t0 = System.nanoTime();
    // While the manifest is fetched: the hashing of the parts and the manifest's parse.
    StageWarmUp.start();
    byte[] manifestBytes = readManifestBytes(storage, version);
    String manifestName = remoteName(storage, Manifest.path(version));
    Manifest m = ManifestCodec.read(manifestBytes, manifestName, version);
    String id = CacheLayout.snapshotId(m.datasetId(), storage.uri());
    Path view = layout.view(id, version);
    String manifestSha = CacheLayout.sha256Hex(manifestBytes);
    long totalBytes = m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    Map<String, Manifest.DataFile> blobs = distinct(m);
    CacheLimit limit = options.cacheLimit();
    if (limit != null) {
      // Before anything is fetched: a limit the snapshot cannot live under is a setup error.
      evictor.checkFits(limit, blobs.values(), "version " + version + " of " + storage.uri());
    }

    Checked checked = new Checked();
    if (isComplete(view, manifestSha, storage.uri())) {
      Optional<StageReport> sound =
          checkComplete(storage.uri(), id, version, view, m, listener, checked, t0);
      if (sound.isPresent()) {
        return sound.get();
      }
    }
    deleteDeadTemps();
    CacheLease.sweepDead(layout);
    // Pinned for the whole stage: another process's eviction must not take blobs this view is
    // about to link.
    try (CacheLease lease = CacheLease.acquire(layout, blobs.keySet())) {
      CacheEvictor.Result evicted = makeRoom(blobs);
      return download(
          storage, version, listener, m, blobs, manifestBytes, manifestSha, evicted, checked, t0);
    }
  }

  /**
   * Blobs hashed sound (or downloaded) in this stage, blobs found damaged (to fetch again), and how
   * which cached blobs were hashed.
   */
  record Checked(Set<String> verified, Set<String> bad, Set<String> hashed) {
    Checked() {
      this(
          ConcurrentHashMap.newKeySet(),
          ConcurrentHashMap.newKeySet(),
          ConcurrentHashMap.newKeySet());
    }
  }

  /**
   * Stages {@code version} (the newest complete one if null) of {@code source} from the cache
   * alone, without the remote store: for a node that is offline, or a server that is down. Empty if
   * no complete view of it is here, or if the one here turns out damaged (it is then no longer
   * complete, and a stage from the store repairs it). With {@link StageOptions#verify()} every blob
   * is hashed first.
   *
   * @param source the dataset URI, as {@code Storage.uri()} spells it
   */
  public Optional<StageReport> stageFromCache(String source, Long version, StageListener listener)
      throws IOException {
    long t0 = System.nanoTime();
    Path found = null;
    long foundVersion = -1;
    try (DirectoryStream<Path> ids = Files.newDirectoryStream(layout.snapshotsDir())) {
      for (Path idDir : ids) {
        try (DirectoryStream<Path> versions = Files.newDirectoryStream(idDir)) {
          for (Path v : versions) {
            Properties p = marker(v);
            if (p == null || !source.equals(p.getProperty("source"))) {
              continue;
            }
            long n;
            try {
              n = Long.parseLong(v.getFileName().toString());
            } catch (NumberFormatException e) {
              continue;
            }
            if ((version == null || version == n) && n > foundVersion) {
              found = v;
              foundVersion = n;
            }
          }
        }
      }
    }
    if (found == null) {
      return Optional.empty();
    }
    byte[] manifestBytes;
    try {
      manifestBytes = Files.readAllBytes(found.resolve(Manifest.path(foundVersion)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    Properties p = marker(found);
    if (p == null
        || !CacheLayout.sha256Hex(manifestBytes).equals(p.getProperty("manifestSha256"))) {
      // The view's copy of the manifest is not the one it was staged with: not to be trusted.
      return Optional.empty();
    }
    Manifest m =
        ManifestCodec.read(
            manifestBytes, found.resolve(Manifest.path(foundVersion)).toString(), foundVersion);
    CacheLease.sweepDead(layout);
    return checkComplete(
        source,
        found.getParent().getFileName().toString(),
        foundVersion,
        found,
        m,
        listener,
        new Checked(),
        t0);
  }

  /**
   * Checks a view whose marker exists: that every file is there, linked to its blob and of the
   * manifest's length (no reads), and with {@link StageOptions#verify()} that every blob hashes to
   * its name. A sound view gives its report; a damaged one loses its marker (it is not served until
   * staged again, which fetches what is wrong) and gives empty.
   */
  private Optional<StageReport> checkComplete(
      String source,
      String id,
      long version,
      Path view,
      Manifest m,
      StageListener listener,
      Checked checked,
      long t0)
      throws IOException {
    Map<String, Manifest.DataFile> blobs = distinct(m);
    long totalBytes = m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    List<String> problems = viewProblems(view, m);
    if (options.verify()) {
      listener.started(m.files().size(), totalBytes);
      problems.addAll(BlobVerifier.verify(layout, view, m, options.threads(), listener, checked));
    }
    if (!problems.isEmpty()) {
      for (String problem : problems) {
        listener.note(problem);
      }
      if (Files.deleteIfExists(view.resolve(CacheLayout.COMPLETE))) {
        CacheLayout.syncDirectory(view);
      }
      listener.note(view + " is no longer complete; staging it again");
      return Optional.empty();
    }
    for (String sha : blobs.keySet()) {
      CacheEvictor.touch(layout.blob(sha));
    }
    listener.started(m.files().size(), totalBytes);
    listener.progressed(totalBytes);
    return Optional.of(
        new StageReport(
            source,
            id,
            version,
            view,
            m.files().size(),
            totalBytes,
            0,
            0,
            blobs.size(),
            0,
            0,
            0,
            0,
            checked.hashed().size(),
            0,
            true,
            seconds(t0)));
  }

  /**
   * What is wrong with a view that costs no read to see: a data file missing, of the wrong length,
   * or whose blob is gone (the view would keep serving a copy nothing else vouches for).
   */
  private List<String> viewProblems(Path view, Manifest m) throws IOException {
    List<String> problems = new ArrayList<>();
    for (Manifest.DataFile f : m.files()) {
      Path target = view.resolve(f.path());
      Path blob = layout.blob(f.sha256());
      if (!Files.exists(target)) {
        problems.add(target + ": missing from the staged view");
      } else if (Files.size(target) != f.byteLength()) {
        problems.add(
            target
                + ": is "
                + Files.size(target)
                + " bytes but the manifest says "
                + f.byteLength()
                + " (modified outside Riffle)");
      } else if (!Files.exists(blob)) {
        problems.add(target + ": its blob " + f.sha256() + " is gone from the cache");
      }
    }
    return problems;
  }

  /** Evicts for the missing blobs when a limit is set. */
  private CacheEvictor.Result makeRoom(Map<String, Manifest.DataFile> blobs) throws IOException {
    CacheLimit limit = options.cacheLimit();
    if (limit == null) {
      return CacheEvictor.Result.NONE;
    }
    long incoming = 0;
    for (Manifest.DataFile f : blobs.values()) {
      if (!Files.exists(layout.blob(f.sha256()))) {
        incoming += evictor.allocated(f.byteLength());
      }
    }
    return evictor.makeRoom(incoming, limit, options.freeSpaceFloorBytes(), blobs.keySet());
  }

  private StageReport download(
      Storage storage,
      long version,
      StageListener listener,
      Manifest m,
      Map<String, Manifest.DataFile> blobs,
      byte[] manifestBytes,
      String manifestSha,
      CacheEvictor.Result evicted,
      Checked checked,
      long t0)
      throws IOException {
    String id = CacheLayout.snapshotId(m.datasetId(), storage.uri());
    Path view = layout.view(id, version);
    long totalBytes = m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
    listener.started(m.files().size(), totalBytes);
    AtomicLong progress = new AtomicLong();
    AtomicInteger downloaded = new AtomicInteger();
    AtomicInteger reused = new AtomicInteger();
    AtomicInteger repaired = new AtomicInteger();
    // Parts and files on separate pools: a file task waits for its parts (and for other
    // processes' locks) without taking a thread that a part needs.
    ExecutorService parts = BlobDownloader.partPool(options.threads(), daemon("riffle-part"));
    ExecutorService files =
        Executors.newFixedThreadPool(
            Math.max(1, Math.min(options.threads(), blobs.size())), daemon("riffle-file"));
    BlobDownloader downloader =
        new BlobDownloader(
            layout,
            options,
            parts,
            (what, attempt, max, cause) ->
                listener.note("retrying " + what + " (" + attempt + "/" + max + "): " + cause));
    // A progress reporter outside the download threads keeps listeners off the hot path.
    AtomicBoolean running = new AtomicBoolean(true);
    Thread reporter = reporter(listener, progress, running);
    try {
      AtomicBoolean failed = new AtomicBoolean();
      List<Future<?>> futures = new ArrayList<>();
      for (Manifest.DataFile f : blobs.values()) {
        BlobDownloader.Wanted w =
            new BlobDownloader.Wanted(f, remoteName(storage, f.path()), version);
        futures.add(
            files.submit(
                () -> {
                  if (failed.get()) {
                    throw new BlobDownloader.Abandoned(null);
                  }
                  try {
                    if (ensureBlob(storage, w, downloader, progress, checked, repaired, listener)) {
                      downloaded.incrementAndGet();
                    } else {
                      reused.incrementAndGet();
                      progress.addAndGet(f.byteLength());
                    }
                  } catch (IOException | RuntimeException e) {
                    failed.set(true);
                    downloader.stageFailed.set(true);
                    throw e;
                  }
                  return null;
                }));
      }
      awaitAll(futures);
      buildView(view, m, manifestBytes, manifestSha, storage.uri());
    } finally {
      running.set(false);
      reporter.interrupt();
      parts.shutdownNow();
      files.shutdownNow();
    }
    listener.progressed(progress.get());
    return new StageReport(
        storage.uri(),
        id,
        version,
        view,
        m.files().size(),
        totalBytes,
        downloaded.get(),
        downloader.bytesDownloaded.sum(),
        reused.get(),
        downloader.retries.sum(),
        downloader.bytesRefetched.sum(),
        evicted.blobs(),
        evicted.bytes(),
        // Downloads are verified by construction; this counts blobs hashed from the cache.
        checked.hashed().size(),
        repaired.get(),
        false,
        seconds(t0));
  }

  /**
   * The view of a staged version if it is complete (its marker exists), else empty. A view without
   * the marker is never returned: it may lack files.
   */
  public static Optional<Path> completeView(Path cacheDir, String snapshotId, long version) {
    Path view =
        cacheDir
            .resolve(CacheLayout.SNAPSHOTS_DIR)
            .resolve(snapshotId)
            .resolve(Long.toString(version));
    return Files.isRegularFile(view.resolve(CacheLayout.COMPLETE))
        ? Optional.of(view)
        : Optional.empty();
  }

  /**
   * True if this call downloaded the blob, false if it was there (or appeared while waiting). A
   * blob found in the cache is hashed before it is reused, unless this stage hashed it already: a
   * view is never marked complete over a blob nobody verified since it landed (bit rot, a stray
   * write). A corrupt one is deleted and fetched again.
   */
  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  private boolean ensureBlob(
      Storage storage,
      BlobDownloader.Wanted w,
      BlobDownloader downloader,
      AtomicLong progress,
      Checked checked,
      AtomicInteger repaired,
      StageListener listener)
      throws IOException {
    String sha = w.file().sha256();
    Path blob = layout.blob(sha);
    if (!checked.bad().contains(sha) && sound(blob, w, checked)) {
      CacheEvictor.touch(blob);
      return false;
    }
    try (CacheLocks.Held lock = CacheLocks.lock(layout.lockFile(sha))) {
      // Another thread or process may have finished (or repaired) it while this one waited.
      if (Files.exists(blob)) {
        checked.verified().remove(sha);
        if (sound(blob, w, checked)) {
          return false;
        }
        listener.note(
            blob
                + " ("
                + w.remoteName()
                + ") no longer matches its SHA-256: the cached copy was damaged; fetching it"
                + " again");
        Files.delete(blob);
        CacheLayout.syncDirectory(blob.getParent());
        repaired.incrementAndGet();
      } else if (checked.bad().contains(sha)) {
        repaired.incrementAndGet();
      }
      downloader.download(storage, w, progress);
      checked.verified().add(sha);
      checked.bad().remove(sha);
      return true;
    }
  }

  /** Whether the blob exists with the right length and content (hashed once per stage). */
  private static boolean sound(Path blob, BlobDownloader.Wanted w, Checked checked)
      throws IOException {
    String sha = w.file().sha256();
    if (!Files.exists(blob)) {
      return false;
    }
    if (checked.verified().contains(sha)) {
      return true;
    }
    if (Files.size(blob) != w.file().byteLength()) {
      return false;
    }
    checked.hashed().add(sha);
    if (!sha.equals(CacheLayout.sha256Of(blob))) {
      return false;
    }
    checked.verified().add(sha);
    return true;
  }

  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  private void buildView(
      Path view, Manifest m, byte[] manifestBytes, String manifestSha, String source)
      throws IOException {
    try (CacheLocks.Held lock =
        CacheLocks.lock(
            layout.lockFile("view-" + view.getParent().getFileName() + "-" + view.getFileName()))) {
      if (isComplete(view, manifestSha, source)) {
        return;
      }
      Path manifestPath = view.resolve(Manifest.path(m.version()));
      Files.createDirectories(manifestPath.getParent());
      for (Manifest.DataFile f : m.files()) {
        Path target = view.resolve(f.path());
        Files.createDirectories(target.getParent());
        // Left by an interrupted build: a link to a verified blob, but relink to be sure.
        Files.deleteIfExists(target);
        Path blob = layout.blob(f.sha256());
        try {
          Files.createLink(target, blob);
        } catch (UnsupportedOperationException | IOException e) {
          // No hard links here (another file system, a limit on links): a copy costs space only.
          Files.copy(blob, target);
        }
      }
      writeDurably(manifestPath, manifestBytes);
      CacheLayout.syncDirectory(view.resolve("data"));
      // Outlives the marker (eviction deletes only that), so an evicted view can say where it
      // came from and how to stage it again.
      Properties from = new Properties();
      from.setProperty("source", source);
      from.setProperty("version", Long.toString(m.version()));
      java.io.ByteArrayOutputStream fromBytes = new java.io.ByteArrayOutputStream();
      from.store(fromBytes, "where this view was staged from");
      writeDurably(view.resolve(CacheLayout.SOURCE), fromBytes.toByteArray());
      Properties p = new Properties();
      p.setProperty("manifestSha256", manifestSha);
      p.setProperty("source", source);
      p.setProperty("files", Integer.toString(m.files().size()));
      java.io.ByteArrayOutputStream marker = new java.io.ByteArrayOutputStream();
      p.store(marker, "staged by riffle; the view is complete only while this file exists");
      writeDurably(view.resolve(CacheLayout.COMPLETE), marker.toByteArray());
    }
  }

  /**
   * Whether the view is complete; a marker left by a different manifest under the same id and
   * version (a copied dataset that diverged) is an error, not a hit.
   */
  private static boolean isComplete(Path view, String manifestSha, String source)
      throws IOException {
    Properties p = marker(view);
    if (p == null) {
      return false;
    }
    if (!manifestSha.equals(p.getProperty("manifestSha256"))) {
      throw new IOException(
          view
              + " holds a different manifest for this dataset id and version (staged from "
              + p.getProperty("source")
              + ") than "
              + source
              + " has; two datasets share an id. Stage into another cache directory");
    }
    return true;
  }

  /** The properties of a view's {@code COMPLETE} marker, or null if it has none. */
  private static Properties marker(Path view) throws IOException {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(view.resolve(CacheLayout.COMPLETE))) {
      p.load(in);
    } catch (NoSuchFileException e) {
      return null;
    }
    return p;
  }

  /** Temp file, fsync, atomic move, fsync of the directory. */
  private static void writeDurably(Path target, byte[] content) throws IOException {
    Path temp = DurableFiles.writeTemp(target, content);
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      CacheLayout.syncDirectory(target.getParent());
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Deletes temporary files whose writer process is gone (a crash, a kill). */
  int deleteDeadTemps() throws IOException {
    int deleted = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(layout.tmpDir())) {
      for (Path p : ds) {
        long pid = CacheLayout.ownerOf(p);
        boolean alive = pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        if (pid > 0 && !alive && Files.deleteIfExists(p)) {
          deleted++;
        }
      }
    }
    return deleted;
  }

  /** The manifest's bytes, read without asking first whether it exists (a request saved). */
  private static byte[] readManifestBytes(Storage storage, long version) throws IOException {
    String path = Manifest.path(version);
    try {
      return storage.readAll(path);
    } catch (NoSuchFileException e) {
      // Dataset.readManifest words this well: which versions there are.
      Dataset.readManifest(storage, version);
      throw e;
    }
  }

  /** The first file with each SHA-256 (identical files share one blob). */
  private static Map<String, Manifest.DataFile> distinct(Manifest m) {
    Map<String, Manifest.DataFile> byHash = new LinkedHashMap<>();
    for (Manifest.DataFile f : m.files()) {
      byHash.putIfAbsent(f.sha256(), f);
    }
    return byHash;
  }

  private static void awaitAll(List<Future<?>> futures) throws IOException {
    IOException first = null;
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        Throwable c = e.getCause();
        IOException io =
            c instanceof IOException ? (IOException) c : new IOException(c.toString(), c);
        // The error that stopped the stage, not the echo of files that stopped because of it.
        if (first == null
            || (first instanceof BlobDownloader.Abandoned
                && !(io instanceof BlobDownloader.Abandoned))) {
          first = io;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while staging");
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private static Thread reporter(StageListener listener, AtomicLong progress, AtomicBoolean on) {
    Thread t =
        new Thread(
            () -> {
              while (on.get()) {
                listener.progressed(progress.get());
                try {
                  Thread.sleep(200);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "riffle-stage-progress");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  static String remoteName(Storage storage, String path) {
    return storage.uri() + (storage.uri().endsWith("/") ? "" : "/") + path;
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
