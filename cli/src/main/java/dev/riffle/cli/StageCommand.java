package dev.riffle.cli;

import dev.riffle.dataset.storage.RetryPolicy;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.hadoop.HadoopStorage;
import dev.riffle.stage.CacheLayout;
import dev.riffle.stage.CacheLimit;
import dev.riffle.stage.SnapshotStager;
import dev.riffle.stage.StageListener;
import dev.riffle.stage.StageOptions;
import dev.riffle.stage.StageReport;
import dev.riffle.stage.StageWarmUp;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle stage URI[@v] --cache DIR}: downloads a dataset version into a local cache (see
 * {@link SnapshotStager}) and prints where its view is, so that other commands can read it from
 * local disk. Progress (bytes, rate, ETA) goes to stderr on a terminal only; the final report to
 * stdout, as text or with {@code --json} one JSON object.
 */
@Command(
    name = "stage",
    mixinStandardHelpOptions = true,
    description = {
      "Download a dataset version into a local cache directory shared by processes:"
          + " content-addressed blobs (verified length and SHA-256) plus a view of the version"
          + " that every command reads like a local dataset.",
      "Interrupted stages resume without fetching verified files again; a view is usable only"
          + " once complete. Prints the view directory and what was done.",
      "With --limit, other blobs are evicted first (their views stop being complete until staged"
          + " again); blobs of views in use by a running process (e.g. 'riffle load VIEW') are"
          + " never evicted.",
      "A version already complete in the cache is not fetched again, and with @VERSION the store"
          + " is not even contacted (works offline). Blobs found in the cache are hashed before"
          + " they are reused; --verify hashes every blob of a complete view too, and fetches"
          + " again, atomically, whatever no longer matches the manifest.",
      "A failed request is retried (progress lines on stderr) at most --retries times and for at"
          + " most --retry-seconds; then the stage fails, naming the endpoint."
    })
public final class StageCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URI[@VERSION]",
      description = "A dataset, optionally with @VERSION (default: the latest).")
  String location;

  @Option(
      names = "--cache",
      required = true,
      paramLabel = "DIR",
      description = "The cache directory (created if missing); keep it on a local disk.")
  Path cache;

  @Option(
      names = "--parts-mib",
      paramLabel = "N",
      description = "MiB per ranged read (default: ${DEFAULT-VALUE}).")
  int partsMib = StageOptions.DEFAULT_PART_BYTES >> 20;

  @Option(
      names = "--threads",
      paramLabel = "T",
      description = "Ranged reads in flight (default: ${DEFAULT-VALUE}).")
  int threads = StageOptions.DEFAULT_THREADS;

  @Option(
      names = "--page-cache",
      description =
          "Write blobs through the page cache instead of with O_DIRECT: costs the client a copy of"
              + " every byte, but the first reads after staging come from memory.")
  boolean pageCache;

  @Option(
      names = "--limit",
      paramLabel = "BYTES",
      description =
          "Keep the cache's blobs under this size (suffix K, M, G or T: powers of 1024),"
              + " evicting others before downloading; at least 4 x the largest file. Default: no"
              + " limit.")
  String limit;

  @Option(
      names = "--policy",
      paramLabel = "lru|furthest",
      description =
          "Which blobs --limit evicts first: lru (least recently used, the default) or furthest"
              + " (needed furthest in the future by the plans live processes publish in the"
              + " cache, CachePlan in Java: blobs no plan needs first, least recently used first"
              + " among equals; with no plan, as lru).")
  String policy = "lru";

  @Option(
      names = "--free-floor",
      paramLabel = "BYTES",
      description = "Leave at least this much free on the cache disk (suffixes as --limit).")
  String freeFloor;

  @Option(names = "--json", description = "Print the report as one JSON object.")
  boolean json;

  @Option(
      names = "--verify",
      description =
          "Hash every blob of the version (even of a complete view) against the manifest's"
              + " SHA-256, and fetch again what differs; reports what was repaired.")
  boolean verify;

  @Option(
      names = "--retries",
      paramLabel = "N",
      description = "Attempts per request, the first included (default: ${DEFAULT-VALUE}).")
  int retries = RetryPolicy.DEFAULT_MAX_ATTEMPTS;

  @Option(
      names = "--retry-seconds",
      paramLabel = "S",
      description =
          "No retry of a failing request starts this long after its first attempt"
              + " (default: ${DEFAULT-VALUE}).")
  double retrySeconds = RetryPolicy.DEFAULT_RETRY_SECONDS;

  @Option(
      names = "--deadline",
      paramLabel = "S",
      description =
          "Fail if the stage is not done this many seconds after it started (default: none).")
  double deadline;

  @Option(
      names = "--progress",
      paramLabel = "auto|plain|none",
      description =
          "Progress on stderr: auto (a redrawn line on a terminal, else nothing), plain (a line"
              + " every few seconds, for logs and batch jobs), none. Retries are reported in every"
              + " mode but none (default: ${DEFAULT-VALUE}).")
  String progressMode = "auto";

  @Override
  public Integer call() throws IOException {
    // First thing: the stage's hot code warms up on a background thread while the file system's
    // client starts, which takes a while (see StageWarmUp).
    StageWarmUp.start();
    if (partsMib < 1 || partsMib > 1024) {
      throw new IllegalArgumentException("--parts-mib must be in [1, 1024], not " + partsMib);
    }
    StageOptions options =
        StageOptions.defaults()
            .withPartBytes(partsMib << 20)
            .withThreads(threads)
            .withDirectWrites(!pageCache);
    if (limit != null) {
      options = options.withCacheLimit(cacheLimit(parseBytes("--limit", limit), policy, cache));
    } else if (!"lru".equals(policy)) {
      throw new IllegalArgumentException("--policy needs --limit");
    }
    if (freeFloor != null) {
      options = options.withFreeSpaceFloor(parseBytes("--free-floor", freeFloor));
    }
    if (retries < 1) {
      throw new IllegalArgumentException("--retries must be at least 1, not " + retries);
    }
    if (!(retrySeconds >= 0) || !(deadline >= 0)) {
      throw new IllegalArgumentException("--retry-seconds and --deadline must be >= 0");
    }
    RetryPolicy retry = RetryPolicy.defaults().withAttempts(retries).withRetrySeconds(retrySeconds);
    if (deadline > 0) {
      retry = retry.withDeadline(deadline);
    }
    options = options.withRetry(retry).withVerify(verify);
    Locations.Location loc = Locations.parse(location);
    // A stage that fails (no dataset at the source, an unreachable store) leaves no new empty cache
    // behind; what it did cache stays for the next stage to resume from.
    List<Path> missing = CacheLayout.missingDirectories(cache);
    try {
      return stage(loc, options, retry);
    } catch (IOException | RuntimeException e) {
      for (Path d : missing) {
        try {
          Files.deleteIfExists(d);
        } catch (IOException notEmptyOrGone) {
          // Holds what this stage cached, or is no longer ours to remove.
        }
      }
      throw e;
    }
  }

  private int stage(Locations.Location loc, StageOptions options, RetryPolicy retry)
      throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    ProgressListener progress = new ProgressListener(err, progressMode);
    SnapshotStager stager = new SnapshotStager(cache, options);
    StageReport r;
    boolean offline = false;
    if (loc.path() == null && loc.version() != null) {
      // Found under the URI as typed, a complete view needs not even the file system's client.
      String typed =
          loc.uri().endsWith("/") ? loc.uri().substring(0, loc.uri().length() - 1) : loc.uri();
      Optional<StageReport> local = stager.stageFromCache(typed, loc.version(), progress);
      if (local.isPresent()) {
        progress.done();
        print(local.get(), true);
        return 0;
      }
    }
    try (Storage storage =
        loc.path() != null ? Locations.openDataset(loc, "stage") : Locations.storage(loc)) {
      if (storage instanceof HadoopStorage h) {
        h.retryPolicy(retry);
        h.retryListener(
            (what, attempt, max, cause) ->
                progress.note("retrying " + what + " (" + attempt + "/" + max + "): " + cause));
      }
      // With @VERSION, a complete view needs nothing from the store: offline nodes keep working.
      Optional<StageReport> local =
          loc.version() != null
              ? stager.stageFromCache(storage.uri(), loc.version(), progress)
              : Optional.empty();
      if (local.isEmpty()) {
        long version = -1;
        try {
          version = Locations.version(storage, loc);
        } catch (IOException e) {
          if (loc.version() != null || !gaveUp(e)) {
            throw e;
          }
          // The store is unreachable: the newest version staged here is the best there is.
          local = stager.stageFromCache(storage.uri(), null, progress);
          if (local.isEmpty()) {
            throw e;
          }
          progress.note(
              e.getMessage()
                  + "; using version "
                  + local.get().version()
                  + ", the newest one staged in "
                  + cache
                  + " (name a version, "
                  + loc.uri()
                  + "@N, to skip the store)");
        }
        if (local.isEmpty()) {
          local = Optional.of(stager.stage(storage, version, progress));
        } else {
          offline = true;
        }
      } else {
        offline = true;
      }
      r = local.get();
      progress.done();
    }
    print(r, offline);
    return 0;
  }

  private void print(StageReport r, boolean offline) throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(Json.MAPPER.writeValueAsString(toJson(r)));
    } else {
      out.println(r.view());
      out.println(
          (r.alreadyComplete() ? "already staged: " : "staged: ")
              + "version "
              + r.version()
              + " of "
              + r.source()
              + ", "
              + ValidateCommand.count(r.files(), "file")
              + ", "
              + Sizes.bytes(r.bytes())
              + (offline ? " (complete in the cache; the store was not read)" : ""));
      if (r.filesVerified() > 0 || r.filesRepaired() > 0) {
        out.println(
            "hashed "
                + ValidateCommand.count(r.filesVerified(), "cached file")
                + " against the manifest's SHA-256; "
                + (r.filesRepaired() == 0
                    ? "all sound"
                    : "repaired " + r.filesRepaired() + " (damaged in the cache, fetched again)"));
      }
      if (!r.alreadyComplete()) {
        out.println(
            String.format(
                Locale.ROOT,
                "downloaded %s, %s in %.2f s (%s/s); reused %s; %s",
                Sizes.count(r.filesDownloaded(), "file"),
                Sizes.bytes(r.bytesDownloaded()),
                r.seconds(),
                Sizes.bytes(Math.round(r.megabytesPerSecond() * 1e6)),
                Sizes.count(r.filesReused()),
                Sizes.count(r.retries(), "retry")));
      }
      if (r.blobsEvicted() > 0) {
        out.println(
            "evicted "
                + ValidateCommand.count(r.blobsEvicted(), "file")
                + ", "
                + Sizes.bytes(r.bytesEvicted())
                + ", to stay under the cache limit");
      }
    }
    out.flush();
  }

  static Map<String, Object> toJson(StageReport r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("source", r.source());
    m.put("version", r.version());
    m.put("snapshotId", r.snapshotId());
    m.put("view", r.view().toString());
    m.put("files", r.files());
    m.put("bytes", r.bytes());
    m.put("filesDownloaded", r.filesDownloaded());
    m.put("bytesDownloaded", r.bytesDownloaded());
    m.put("filesReused", r.filesReused());
    m.put("retries", r.retries());
    m.put("bytesRefetched", r.bytesRefetched());
    m.put("blobsEvicted", r.blobsEvicted());
    m.put("bytesEvicted", r.bytesEvicted());
    m.put("filesVerified", r.filesVerified());
    m.put("filesRepaired", r.filesRepaired());
    m.put("alreadyComplete", r.alreadyComplete());
    m.put("seconds", r.seconds());
    m.put("megabytesPerSecond", r.megabytesPerSecond());
    return m;
  }

  /** Whether {@code e} is a request that gave up after retries (the store is unreachable). */
  private static boolean gaveUp(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof RetryPolicy.RetriesExhausted) {
        return true;
      }
    }
    return false;
  }

  /**
   * Bytes, rate and ETA on stderr: one redrawn line on a terminal ({@link Progress}), or with
   * {@code --progress plain} a line every {@link #PLAIN_EVERY_NANOS}; retries and repairs as lines
   * of their own in both.
   */
  static final class ProgressListener implements StageListener {
    static final long PLAIN_EVERY_NANOS = 5_000_000_000L;

    private final PrintWriter err;
    private final String mode;
    private volatile Progress progress;
    private volatile long startNanos = System.nanoTime();
    private volatile long total;
    private long lastPlain = System.nanoTime();
    private long lastPlainBytes = -1;

    ProgressListener(PrintWriter err, String mode) {
      this.err = err;
      this.mode = mode.toLowerCase(Locale.ROOT);
      if (!List.of("auto", "plain", "none").contains(this.mode)) {
        throw new IllegalArgumentException(
            "--progress must be auto, plain or none, not '" + mode + "'");
      }
    }

    @Override
    public void started(int files, long totalBytes) {
      total = totalBytes;
      startNanos = System.nanoTime();
      synchronized (this) {
        lastPlain = startNanos;
      }
      progress =
          new Progress(
              err, "stage", totalBytes, mode.equals("auto") && Progress.onTerminal(), null);
    }

    @Override
    public void progressed(long bytesDone) {
      Progress p = progress;
      if (p != null) {
        p.update(bytesDone);
      }
      if (mode.equals("plain")) {
        synchronized (this) {
          long now = System.nanoTime();
          if (now - lastPlain >= PLAIN_EVERY_NANOS) {
            lastPlain = now;
            lastPlainBytes = bytesDone;
            err.println("stage: " + describe(bytesDone, total, (now - startNanos) / 1e9));
            err.flush();
          }
        }
      }
    }

    @Override
    public synchronized void note(String line) {
      if (!mode.equals("none")) {
        // On a terminal, start below the redrawn progress line.
        err.println((mode.equals("auto") && Progress.onTerminal() ? "\n" : "") + "stage: " + line);
        err.flush();
      }
    }

    void done() {
      Progress p = progress;
      if (p != null) {
        p.done();
      }
      boolean printed;
      synchronized (this) {
        printed = lastPlainBytes == total;
      }
      if (mode.equals("plain") && total > 0 && !printed) {
        err.println("stage: " + describe(total, total, (System.nanoTime() - startNanos) / 1e9));
        err.flush();
      }
    }
  }

  static CacheLimit cacheLimit(long bytes, String policy, Path cache) {
    return switch (policy.toLowerCase(Locale.ROOT)) {
      case "lru" -> CacheLimit.lru(bytes);
      case "furthest" -> CacheLimit.furthestByPlans(bytes, cache);
      default ->
          throw new IllegalArgumentException(
              "--policy must be lru or furthest, not '" + policy + "'");
    };
  }

  /** "123", "64K", "512M", "2G", "1T" (powers of 1024; a trailing B or iB is allowed). */
  static long parseBytes(String option, String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    if (t.endsWith("IB")) {
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("B")) {
      t = t.substring(0, t.length() - 1);
    }
    int shift = 0;
    if (!t.isEmpty()) {
      switch (t.charAt(t.length() - 1)) {
        case 'K' -> shift = 10;
        case 'M' -> shift = 20;
        case 'G' -> shift = 30;
        case 'T' -> shift = 40;
        default -> shift = 0;
      }
    }
    if (shift > 0) {
      t = t.substring(0, t.length() - 1).trim();
    }
    long n;
    try {
      n = Long.parseLong(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          option + " must be a byte count like 512M or 10G, not '" + text + "'");
    }
    if (n <= 0 || n > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException(option + " out of range: '" + text + "'");
    }
    return n << shift;
  }

  /** The same line as the redrawn one: "1.2 GiB / 4.0 GiB (30%), 512.0 MiB/s, ETA 6 s". */
  static String describe(long done, long total, double seconds) {
    return Progress.line(done, total, seconds, null);
  }
}
