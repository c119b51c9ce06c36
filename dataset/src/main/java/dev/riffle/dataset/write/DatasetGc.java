package dev.riffle.dataset.write;

import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Removes what no published version needs (FORMAT.md §11.4): orphaned data files (under {@code
 * data/}, with a data file name, named by no manifest), stale writer leases, temporary manifests of
 * killed publishers, and incomplete uploads under the root ({@link Storage#pendingUploads}, S3
 * multipart uploads of killed writers), aborted under the same grace period as orphans. Published
 * versions and names that are not Riffle's are never touched.
 *
 * <p>A running writer's files look like orphans until it publishes, so gc
 *
 * <ul>
 *   <li>collects nothing while a fresh {@link WriterLease} exists, unless forced ({@link
 *       DatasetBusyException});
 *   <li>deletes an orphan only once it is older than the grace period, since leases are advisory on
 *       object stores, except the files of a lease whose process is known to be gone (same machine,
 *       pid not running), deleted at once;
 *   <li>lists {@code data/}, then the leases again, then reads the manifests: a version published
 *       meanwhile keeps its files, and a writer that started meanwhile is seen.
 * </ul>
 *
 * <p>With these, a writer that holds a lease ({@link DatasetWriter}) never loses a file to a gc
 * that is not forced, whatever the grace period; the grace period protects files that no lease
 * names (files handed over by {@link DatasetWriter#forFiles} writers until their job publishes
 * them, and writers of other tools).
 */
public final class DatasetGc {
  private DatasetGc() {}

  /** Orphans younger than this are kept by default. */
  public static final Duration DEFAULT_GRACE = Duration.ofHours(1);

  /**
   * Temporary files of local manifests and leases ({@code DurableFiles.writeTemp}), which a process
   * killed between writing and renaming one leaves in {@code _versions/} or {@code _leases/}.
   */
  /**
   * Such a temporary file lives for the milliseconds of a write, sync and rename; one this old is
   * certainly abandoned, whatever the grace period (a younger one may be a publish in progress).
   */
  static final Duration TEMP_MIN_AGE = Duration.ofMinutes(10);

  private static final Pattern TEMP = Pattern.compile("\\..+\\.[0-9a-f]{1,16}\\.tmp");

  /**
   * How to collect.
   *
   * @param dryRun only report what would be deleted
   * @param grace orphans (not of a gone writer) modified more recently than this are kept
   * @param force collect even while fresh leases exist, and remove those leases too (their writers,
   *     if alive, then refuse to publish)
   */
  public record Options(boolean dryRun, Duration grace, boolean force) {
    public Options {
      Objects.requireNonNull(grace, "grace");
      if (grace.isNegative()) {
        throw new IllegalArgumentException("the grace period must not be negative: " + grace);
      }
    }

    /** Delete, one hour of grace, honour leases. */
    public static Options defaults() {
      return new Options(false, DEFAULT_GRACE, false);
    }

    public Options withDryRun(boolean dryRun) {
      return new Options(dryRun, grace, force);
    }

    public Options withGrace(Duration grace) {
      return new Options(dryRun, grace, force);
    }

    public Options withForce(boolean force) {
      return new Options(dryRun, grace, force);
    }
  }

  /**
   * An orphan kept because it is younger than the grace period.
   *
   * @param path the data file
   * @param age time since it was last written
   */
  public record Kept(String path, Duration age) {}

  /**
   * What gc did (or, in a dry run, would do).
   *
   * @param deleted orphaned data files deleted
   * @param kept orphans kept, younger than the grace period
   * @param leasesRemoved stale leases removed (and, when forced, fresh ones)
   * @param tempsDeleted temporary manifests left by killed publishers, deleted
   * @param uploadsAborted incomplete uploads (S3 multipart uploads of killed writers) aborted
   * @param uploadsKept incomplete uploads kept, begun within the grace period
   */
  public record Report(
      List<String> deleted,
      List<Kept> kept,
      List<WriterLease.Status> leasesRemoved,
      List<String> tempsDeleted,
      List<Storage.PendingUpload> uploadsAborted,
      List<Storage.PendingUpload> uploadsKept) {}

  /**
   * Collects garbage.
   *
   * @throws DatasetBusyException if a fresh lease exists and {@code options.force()} is false
   * @throws IOException if some manifest is unreadable (then deleting anything would be unsafe)
   */
  public static Report collect(Storage storage, Options options) throws IOException {
    return collect(storage, options, (done, total) -> {});
  }

  /** Told how many orphans of how many were handled (deleted or kept), after each one. */
  @FunctionalInterface
  public interface Listener {
    void orphansDone(long done, long total);

    /**
     * Told after each manifest read, before any orphan is handled (a long history on an object
     * store is one GET per version).
     */
    default void manifestsRead(long done, long total) {}
  }

  /**
   * Collects garbage, telling {@code listener} of each orphan handled (deleting thousands on an
   * object store takes minutes).
   *
   * @throws DatasetBusyException if a fresh lease exists and {@code options.force()} is false
   * @throws IOException if some manifest is unreadable (then deleting anything would be unsafe)
   */
  public static Report collect(Storage storage, Options options, Listener listener)
      throws IOException {
    Instant now = Instant.now();
    List<WriterLease.Status> leases = WriterLease.list(storage, now);
    List<WriterLease.Status> fresh = leases.stream().filter(l -> !l.stale()).toList();
    if (!fresh.isEmpty() && !options.force()) {
      throw new DatasetBusyException(storage.uri(), fresh);
    }
    List<String> problems = new ArrayList<>();
    // Leases again, between listing data/ and reading the manifests: a writer whose file was
    // listed took its lease before creating it, and drops it only after publishing (so its
    // version is among the manifests read next) or after deleting its files. Seeing no fresh
    // lease here therefore means no listed file belongs to a writer that may still publish it.
    DatasetValidator.Step recheck =
        () -> {
          List<WriterLease.Status> now2 = WriterLease.list(storage, Instant.now());
          List<WriterLease.Status> fresh2 = now2.stream().filter(l -> !l.stale()).toList();
          if (!fresh2.isEmpty()) {
            throw new DatasetBusyException(storage.uri(), fresh2);
          }
        };
    List<String> orphans =
        DatasetValidator.orphans(
            storage, problems, options.force() ? () -> {} : recheck, listener::manifestsRead);
    if (!problems.isEmpty()) {
      throw new IOException(
          "not collecting garbage in " + storage.uri() + ": " + String.join("; ", problems));
    }
    List<String> deleted = new ArrayList<>();
    List<Kept> kept = new ArrayList<>();
    long handled = 0;
    for (String path : orphans) {
      listener.orphansDone(handled++, orphans.size());
      boolean ofGoneWriter = leases.stream().anyMatch(l -> l.ownerGone() && l.covers(path));
      if (!ofGoneWriter) {
        Duration age;
        try {
          age = Duration.between(storage.lastModified(path), now);
        } catch (NoSuchFileException e) {
          continue; // deleted meanwhile
        }
        if (age.compareTo(options.grace()) < 0) {
          kept.add(new Kept(path, age.isNegative() ? Duration.ZERO : age));
          continue;
        }
      }
      if (!options.dryRun()) {
        storage.delete(path);
      }
      deleted.add(path);
    }
    listener.orphansDone(orphans.size(), orphans.size());
    // An upload is a file on its way: the same rules as for orphans, by the time it was begun.
    List<Storage.PendingUpload> aborted = new ArrayList<>();
    List<Storage.PendingUpload> uploadsKept = new ArrayList<>();
    for (Storage.PendingUpload u : storage.pendingUploads()) {
      boolean ofGoneWriter = leases.stream().anyMatch(l -> l.ownerGone() && l.covers(u.path()));
      if (!ofGoneWriter && Duration.between(u.started(), now).compareTo(options.grace()) < 0) {
        uploadsKept.add(u);
        continue;
      }
      if (!options.dryRun()) {
        storage.abortUpload(u);
      }
      aborted.add(u);
    }
    // Leases go after the files they name, so that an interrupted gc still knows those files.
    List<WriterLease.Status> removed = new ArrayList<>();
    for (WriterLease.Status l : leases) {
      if (l.stale() || options.force()) {
        if (!options.dryRun()) {
          storage.delete(l.path());
        }
        removed.add(l);
      }
    }
    List<String> temps = new ArrayList<>();
    for (String dir : List.of(DatasetLayout.VERSIONS_DIR, DatasetLayout.LEASES_DIR)) {
      collectTemps(storage, dir, options, now, temps);
    }
    return new Report(deleted, kept, removed, temps, aborted, uploadsKept);
  }

  private static void collectTemps(
      Storage storage, String dir, Options options, Instant now, List<String> temps)
      throws IOException {
    for (String name : storage.list(dir)) {
      String path = dir + "/" + name;
      if (!TEMP.matcher(name).matches()) {
        continue;
      }
      try {
        Duration age = Duration.between(storage.lastModified(path), now);
        if (age.compareTo(options.grace()) < 0 || age.compareTo(TEMP_MIN_AGE) < 0) {
          continue;
        }
      } catch (NoSuchFileException e) {
        continue;
      }
      if (!options.dryRun()) {
        storage.delete(path);
      }
      temps.add(path);
    }
  }
}
