package dev.riffle.dataset.write;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.io.Durations;
import dev.riffle.format.io.ProcessIdentity;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.NoSuchFileException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A writer's lease on a dataset (FORMAT.md §11.4): a small JSON object {@code _leases/<id>.lease}
 * that says a writer is at work there and which data files it has written that no version names
 * yet. {@link DatasetGc} does not collect while a fresh lease exists, and deletes at once the files
 * of a lease whose process is known to be gone.
 *
 * <p>The lease is created before the writer's first data file, rewritten before each further file
 * (so that it names every file before the file exists) and renewed every {@link #RENEW_EVERY} by a
 * daemon thread; {@link #close()} deletes it after the version is published or abandoned. A lease
 * not renewed for {@link #STALE_AFTER}, or whose process is gone (same host, boot and pid namespace
 * as the reader), is stale.
 *
 * <p>Object stores have no locks, so a lease is advisory: a writer that was suspended longer than
 * {@link #STALE_AFTER}, or whose lease {@code riffle gc --force} removed, finds out at {@link
 * #check()} and publishes nothing. gc also keeps orphans younger than its grace period.
 */
public final class WriterLease implements AutoCloseable {
  /** How often a lease is rewritten while its writer runs. */
  public static final Duration RENEW_EVERY = Duration.ofMinutes(1);

  /** A lease not rewritten for this long is stale: its writer is gone or stuck. */
  public static final Duration STALE_AFTER = Duration.ofMinutes(10);

  static final int LEASE_VERSION = 1;

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private static final SecureRandom RANDOM = new SecureRandom();

  private static final ScheduledThreadPoolExecutor RENEWER = renewer();

  /**
   * The lease object.
   *
   * @param leaseVersion 1
   * @param writer the writer's random id, also the object's name
   * @param purpose what writes (the tool), for people reading it
   * @param host the writer's host name
   * @param machine the writer's boot id and pid namespace ({@link ProcessIdentity#machine()})
   * @param pid the writer's process id
   * @param processStart when that process started (ISO-8601), to tell a reused pid apart
   * @param created when the lease was created (ISO-8601, the writer's clock)
   * @param renewed when it was last rewritten (ISO-8601, the writer's clock)
   * @param files the data files written or being written, none of them published yet
   * @param prefixes name prefixes of data files that other processes write for this writer (the
   *     tasks of a distributed job), protected like {@code files}
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Content(
      int leaseVersion,
      String writer,
      String purpose,
      String host,
      String machine,
      long pid,
      String processStart,
      String created,
      String renewed,
      List<String> files,
      List<String> prefixes) {

    /** The writer's process, or null if the lease does not say. */
    ProcessIdentity process() {
      if (host == null || machine == null) {
        return null;
      }
      Instant start = null;
      try {
        start = processStart == null ? null : Instant.parse(processStart);
      } catch (DateTimeParseException e) {
        // Unknown start: the pid alone decides.
      }
      return new ProcessIdentity(host, machine, pid, start);
    }
  }

  private final Storage storage;
  private final String path;
  private final String id;
  private final String purpose;
  private final Instant created;
  private final Set<String> files = new LinkedHashSet<>();
  private final Set<String> prefixes = new LinkedHashSet<>();
  private final ScheduledFuture<?> renewal;
  private Instant lastWritten;
  private String lost;
  private boolean closed;

  private WriterLease(Storage storage, String purpose) {
    byte[] b = new byte[12];
    RANDOM.nextBytes(b);
    this.id = HexFormat.of().formatHex(b);
    this.path = DatasetLayout.LEASES_DIR + "/" + id + DatasetLayout.LEASE_SUFFIX;
    this.storage = storage;
    this.purpose = purpose;
    this.created = Instant.now();
    this.renewal =
        RENEWER.scheduleWithFixedDelay(
            new Renewal(this),
            RENEW_EVERY.toMillis(),
            RENEW_EVERY.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /**
   * Takes a lease on the dataset at {@code storage} and starts renewing it.
   *
   * @param purpose what writes, for people and for gc's messages (e.g. "riffle generate")
   */
  public static WriterLease acquire(Storage storage, String purpose) throws IOException {
    WriterLease lease = new WriterLease(storage, purpose);
    try {
      synchronized (lease) {
        byte[] json = lease.json(lease.created);
        storage.createIfAbsent(lease.path, json);
        lease.lastWritten = lease.created;
      }
      return lease;
    } catch (IOException | RuntimeException e) {
      lease.renewal.cancel(false);
      throw e;
    }
  }

  /** The lease object's path under the root. */
  public String path() {
    return path;
  }

  /**
   * Records that the writer is about to create {@code dataPath}; returns once the lease names it.
   *
   * @throws LeaseLostException if the lease was lost: the writer should stop
   */
  public synchronized void addFile(String dataPath) throws IOException {
    checkHeld(Instant.now());
    files.add(dataPath);
    write(Instant.now());
  }

  /** Protects data files whose names start with {@code prefix} (written by other processes). */
  public synchronized void addPrefix(String prefix) throws IOException {
    checkHeld(Instant.now());
    prefixes.add(prefix);
    write(Instant.now());
  }

  /**
   * Checks, just before publishing, that the lease was held all along: never removed, never left
   * unrenewed for {@link #STALE_AFTER} (when gc may have taken the writer for gone).
   *
   * @throws LeaseLostException if not; the writer's files may have been deleted
   */
  public synchronized void check() throws IOException {
    Instant now = Instant.now();
    checkHeld(now);
    write(now);
  }

  /**
   * Fails if the lease was lost, noticing it now if it was removed or left unrenewed too long: a
   * rewrite must never silently re-create a lease that gc removed.
   */
  private void checkHeld(Instant now) throws IOException {
    checkNotLost();
    noteGap(now);
    if (lost == null && !storage.exists(path)) {
      lost = "its lease " + storage.uri(path) + " was removed (by riffle gc --force, or as stale)";
    }
    checkNotLost();
  }

  private void checkNotLost() throws LeaseLostException {
    if (closed) {
      throw new IllegalStateException("lease " + path + " is closed");
    }
    if (lost != null) {
      throw new LeaseLostException(storage.uri(), lost);
    }
  }

  private void noteGap(Instant now) {
    if (lost == null && lastWritten != null) {
      Duration gap = Duration.between(lastWritten, now);
      if (gap.compareTo(STALE_AFTER) > 0) {
        lost =
            "its lease "
                + storage.uri(path)
                + " went "
                + Durations.format(gap)
                + " without renewal (suspended, or the storage unreachable), so riffle gc may have"
                + " taken this writer for gone";
      }
    }
  }

  /** The renewal: notices a lease that was removed or went stale, else rewrites it. */
  synchronized void renew() {
    if (closed || lost != null) {
      return;
    }
    Instant now = Instant.now();
    noteGap(now);
    try {
      if (lost == null && !storage.exists(path)) {
        lost =
            "its lease " + storage.uri(path) + " was removed (by riffle gc --force, or as stale)";
      }
      if (lost == null) {
        write(now);
      }
    } catch (IOException | RuntimeException e) {
      // Tried again at the next renewal; a lease left unrenewed too long is noticed by check().
    }
  }

  private void write(Instant now) throws IOException {
    // Whole or not at all: a writer killed mid-rewrite must not leave a lease gc cannot read.
    storage.replace(path, json(now));
    lastWritten = now;
  }

  private byte[] json(Instant now) throws IOException {
    ProcessIdentity me = ProcessIdentity.current();
    Content c =
        new Content(
            LEASE_VERSION,
            id,
            purpose,
            me.host(),
            me.machine(),
            me.pid(),
            me.start() == null ? null : me.start().toString(),
            created.truncatedTo(ChronoUnit.MILLIS).toString(),
            now.truncatedTo(ChronoUnit.MILLIS).toString(),
            new ArrayList<>(files),
            prefixes.isEmpty() ? null : new ArrayList<>(prefixes));
    return MAPPER.writeValueAsBytes(c);
  }

  /** Stops renewing and deletes the lease (best effort: a leftover lease goes stale). */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    renewal.cancel(false);
    try {
      storage.delete(path);
    } catch (IOException | RuntimeException e) {
      // Its process is gone soon, or it goes stale: gc removes it then.
    }
  }

  /**
   * A lease as gc sees it.
   *
   * @param path the lease object
   * @param content what it says, or null if it could not be parsed (being rewritten, or damaged)
   * @param age time since it was last written, by the storage's clock against this one
   * @param ownerGone whether its process is known to be gone (same machine, pid not running)
   * @param stale whether it no longer protects anything: owner gone, or not renewed for {@link
   *     #STALE_AFTER}
   */
  public record Status(
      String path, Content content, Duration age, boolean ownerGone, boolean stale) {

    /** What the lease is, for messages: its path, writer, host, pid and age. */
    public String describe() {
      StringBuilder b = new StringBuilder(path).append(" (");
      if (content == null) {
        b.append("unreadable");
      } else {
        b.append(content.purpose() == null ? "a writer" : content.purpose())
            .append(", host ")
            .append(content.host())
            .append(", pid ")
            .append(content.pid());
      }
      b.append(", renewed ").append(Durations.format(age)).append(" ago");
      if (ownerGone) {
        b.append("; its process is gone");
      } else if (stale) {
        b.append("; stale");
      }
      return b.append(')').toString();
    }

    /** Whether the lease names {@code dataPath}, or a prefix of its name. */
    boolean covers(String dataPath) {
      if (content == null) {
        return false;
      }
      if (content.files() != null && content.files().contains(dataPath)) {
        return true;
      }
      String name = dataPath.substring(dataPath.lastIndexOf('/') + 1);
      return content.prefixes() != null
          && content.prefixes().stream().anyMatch(p -> !p.isEmpty() && name.startsWith(p));
    }
  }

  /** Every lease on the dataset, judged at {@code now}. */
  public static List<Status> list(Storage storage, Instant now) throws IOException {
    List<Status> out = new ArrayList<>();
    for (String name : storage.list(DatasetLayout.LEASES_DIR)) {
      if (!name.endsWith(DatasetLayout.LEASE_SUFFIX) || name.startsWith(".")) {
        continue;
      }
      String p = DatasetLayout.LEASES_DIR + "/" + name;
      Instant modified;
      byte[] bytes;
      try {
        modified = storage.lastModified(p);
        bytes = storage.readAll(p);
      } catch (NoSuchFileException e) {
        continue; // released meanwhile
      }
      Content c;
      try {
        c = MAPPER.readValue(bytes, Content.class);
      } catch (IOException e) {
        c = null;
      }
      Duration age = Duration.between(modified, now);
      if (age.isNegative()) {
        age = Duration.ZERO;
      }
      ProcessIdentity owner = c == null ? null : c.process();
      boolean gone = owner != null && owner.liveness() == ProcessIdentity.Liveness.GONE;
      out.add(new Status(p, c, age, gone, gone || age.compareTo(STALE_AFTER) > 0));
    }
    return out;
  }

  /** Renews a lease while it is reachable; a lease its writer dropped unclosed goes stale. */
  private static final class Renewal implements Runnable {
    private final WeakReference<WriterLease> lease;

    Renewal(WriterLease lease) {
      this.lease = new WeakReference<>(lease);
    }

    @Override
    public void run() {
      WriterLease l = lease.get();
      if (l == null) {
        // An exception ends a periodic task: nothing refers to the lease any more.
        throw new IllegalStateException("lease dropped without close()");
      }
      l.renew();
    }
  }

  private static ScheduledThreadPoolExecutor renewer() {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "riffle-lease-renewal");
              t.setDaemon(true);
              return t;
            });
    e.setRemoveOnCancelPolicy(true);
    return e;
  }
}
