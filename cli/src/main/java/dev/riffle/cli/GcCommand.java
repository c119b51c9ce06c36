package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetGc;
import dev.riffle.dataset.write.WriterLease;
import dev.riffle.format.io.Durations;
import dev.riffle.format.io.TempFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle gc URI [--dry-run] [--grace D] [--force]}: removes what no published version needs,
 * honouring writers' leases (FORMAT.md §11.4, {@link DatasetGc}); on a plain local directory, the
 * temporary files of killed single-file writers ({@link TempFiles}).
 */
@Command(
    name = "gc",
    mixinStandardHelpOptions = true,
    description = {
      "Delete what no published version of a dataset needs: orphaned data files (names under"
          + " data/ of the form <name>.riffle that no version lists, left by writers that failed,"
          + " were killed or lost a publish race), stale writer leases, and temporary manifests"
          + " of killed publishers. Published versions, and anything under data/ that is not"
          + " named like a data file (a README, a dot-file), are never touched.",
      "",
      "Running writers are safe. A writer holds a lease, _leases/<id>.lease, from before its"
          + " first data file until it has published; the lease names its unpublished files and"
          + " is renewed every minute. While a fresh lease exists gc deletes nothing and says"
          + " which writer holds it (host, pid, last renewal); --force overrides that and removes"
          + " the leases too (a writer that is still alive then refuses to publish). A lease is"
          + " stale once not renewed for 10 minutes, or as soon as its process (on this host)"
          + " is gone; gc removes stale leases, and deletes the files of a gone process at"
          + " once. Every other orphan is"
          + " deleted only once older than the grace period (--grace, default 1h), because on"
          + " object stores a lease is advisory. Writers check that their files are all there"
          + " before they publish, and publish nothing otherwise.",
      "",
      "On s3a:// datasets gc also aborts the incomplete multipart uploads under the dataset"
          + " (a writer killed mid-upload leaves one; no listing shows it, yet its parts are"
          + " stored and billed) that were begun before the grace period, and reports them as it"
          + " does orphans.",
      "",
      "On a local directory that holds no dataset, gc deletes the temporary files that killed"
          + " single-file writers (riffle generate FILE, riffle export) left there,"
          + " .<name>.<pid>.<host>.<random>.riffle-tmp: at once when that process on this host is"
          + " gone, else once older than the grace period (and older-style .<name>.riffle.<hex>.tmp"
          + " and .<name>.tmp-<hex> files once older than the grace period). The next single-file"
          + " writer in a directory also deletes those of gone processes."
    })
public final class GcCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URI",
      description = "A dataset, or a local directory of single files.")
  String location;

  @Option(names = "--dry-run", description = "Say what would be deleted, delete nothing.")
  boolean dryRun;

  @Option(
      names = "--grace",
      paramLabel = "DURATION",
      description =
          "Keep orphans and temporary files modified more recently than this: 90s, 15m, 1h, 2d"
              + " or 0 (default 1h). A gone writer's files go at once.")
  String grace = "1h";

  @Option(
      names = "--force",
      description =
          "Collect even while writers hold fresh leases, and remove those leases (only when"
              + " you know those writers are gone).")
  boolean force;

  @Option(
      names = "--json",
      description =
          "Print one JSON object instead: uri, dryRun, deleted, kept (path, ageSeconds),"
              + " leasesRemoved, tempsDeleted (paths; deleted means would-be-deleted with"
              + " --dry-run), uploadsAborted and uploadsKept (path, uploadId, ageSeconds).")
  boolean json;

  @Override
  public Integer call() throws IOException {
    Duration gracePeriod = Durations.parse(grace);
    Locations.Location loc = Locations.parse(location);
    Locations.requireNoVersion(loc, "gc works on all versions at once");
    if (loc.isFile()) {
      throw new IllegalArgumentException(
          loc.uri()
              + " is "
              + Locations.whatFile(loc.path())
              + ", not a dataset; gc works on datasets and on"
              + " directories (for the temporary files of killed writers)");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (Storage storage = Locations.storage(loc)) {
      if (!looksLikeDataset(storage)) {
        if (loc.path() != null && Files.isDirectory(loc.path())) {
          collectTemps(loc.path(), gracePeriod, out);
          return 0;
        }
        throw new IOException("no Riffle dataset at " + loc.uri());
      }
      PrintWriter err = spec.commandLine().getErr();
      GcProgress progress = new GcProgress(err);
      DatasetGc.Report r =
          DatasetGc.collect(storage, new DatasetGc.Options(dryRun, gracePeriod, force), progress);
      progress.done();
      if (json) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("uri", storage.uri());
        o.put("dryRun", dryRun);
        ArrayNode deleted = o.putArray("deleted");
        r.deleted().forEach(deleted::add);
        ArrayNode kept = o.putArray("kept");
        for (DatasetGc.Kept k : r.kept()) {
          kept.addObject().put("path", k.path()).put("ageSeconds", k.age().toSeconds());
        }
        ArrayNode leases = o.putArray("leasesRemoved");
        r.leasesRemoved().forEach(l -> leases.add(l.describe()));
        ArrayNode temps = o.putArray("tempsDeleted");
        r.tempsDeleted().forEach(temps::add);
        uploadsJson(o.putArray("uploadsAborted"), r.uploadsAborted());
        uploadsJson(o.putArray("uploadsKept"), r.uploadsKept());
        out.println(Json.line(o));
        out.flush();
        return 0;
      }
      String verb = dryRun ? "would delete " : "deleted ";
      for (String path : r.deleted()) {
        out.println(verb + path);
      }
      for (DatasetGc.Kept k : r.kept()) {
        out.println(
            "kept "
                + k.path()
                + (gracePeriod.isZero()
                    ? " (written to while gc ran)"
                    : " (written "
                        + Durations.format(k.age())
                        + " ago, within the grace period of "
                        + Durations.format(gracePeriod)
                        + ")"));
      }
      for (WriterLease.Status l : r.leasesRemoved()) {
        out.println(
            (dryRun ? "would remove " : "removed ")
                + (l.stale() ? "stale lease " : "lease ")
                + l.describe());
      }
      for (String path : r.tempsDeleted()) {
        out.println(verb + path);
      }
      for (Storage.PendingUpload u : r.uploadsAborted()) {
        out.println(
            (dryRun ? "would abort" : "aborted")
                + " incomplete upload "
                + u.path()
                + " (begun "
                + Durations.format(age(u))
                + " ago)");
      }
      for (Storage.PendingUpload u : r.uploadsKept()) {
        out.println(
            "kept incomplete upload "
                + u.path()
                + " (begun "
                + Durations.format(age(u))
                + " ago, within the grace period of "
                + Durations.format(gracePeriod)
                + ")");
      }
      String summary =
          r.deleted().isEmpty()
              ? "no orphaned data files"
              : ValidateCommand.count(r.deleted().size(), "orphaned data file")
                  + (dryRun ? " (dry run: nothing deleted)" : " deleted");
      if (!r.kept().isEmpty()) {
        summary +=
            "; "
                + r.kept().size()
                + " younger than "
                + Durations.format(gracePeriod)
                + " kept (see --grace)";
      }
      if (!r.uploadsAborted().isEmpty()) {
        summary +=
            "; "
                + ValidateCommand.count(r.uploadsAborted().size(), "incomplete upload")
                + (dryRun ? " to abort" : " aborted");
      }
      out.println(summary);
      out.flush();
    }
    return 0;
  }

  private static Duration age(Storage.PendingUpload u) {
    Duration age = Duration.between(u.started(), Instant.now());
    return age.isNegative() ? Duration.ZERO : age;
  }

  private static void uploadsJson(ArrayNode array, List<Storage.PendingUpload> uploads) {
    for (Storage.PendingUpload u : uploads) {
      array
          .addObject()
          .put("path", u.path())
          .put("uploadId", u.id())
          .put("ageSeconds", age(u).toSeconds());
    }
  }

  /**
   * gc's {@link Progress}: manifests read, then orphaned files handled, one line each, made once
   * its total is known (the number of orphans only after every manifest was read).
   */
  private static final class GcProgress implements DatasetGc.Listener {
    private final PrintWriter err;
    private Progress manifests;
    private Progress orphans;

    GcProgress(PrintWriter err) {
      this.err = err;
    }

    @Override
    public void manifestsRead(long done, long total) {
      if (manifests == null) {
        manifests = Progress.count(err, "gc: reading manifests", total, "manifest");
      }
      manifests.update(done);
    }

    @Override
    public void orphansDone(long done, long total) {
      if (orphans == null) {
        if (manifests != null) {
          manifests.done();
        }
        orphans = Progress.count(err, "gc", total, "orphaned file");
      }
      orphans.update(done);
    }

    void done() {
      if (orphans != null) {
        orphans.done();
      } else if (manifests != null) {
        manifests.done();
      }
    }
  }

  /**
   * What a single-file writer does before it writes into {@code dir}: deletes the temporary files
   * there whose writer, a process on this host, is gone, saying so on {@code err} (no grace period:
   * those files can never be finished).
   */
  static void removeAbandonedTemps(Path dir, PrintWriter err) throws IOException {
    for (TempFiles.Leftover t : TempFiles.abandoned(dir, null, Instant.now())) {
      Files.deleteIfExists(t.path());
      err.println(
          "riffle: deleted "
              + t.path()
              + " ("
              + InspectCommand.humanBytes(t.byteLength())
              + "), a temporary file left behind: "
              + t.why());
    }
    err.flush();
  }

  /** Whether anything of a dataset is there: a version, a data file or a lease. */
  private static boolean looksLikeDataset(Storage storage) throws IOException {
    return !Dataset.versions(storage).isEmpty()
        || !storage.list(DatasetLayout.DATA_DIR).isEmpty()
        || !storage.list(DatasetLayout.LEASES_DIR).isEmpty();
  }

  private void collectTemps(Path dir, Duration gracePeriod, PrintWriter out) throws IOException {
    List<TempFiles.Leftover> left = TempFiles.abandoned(dir, gracePeriod, Instant.now());
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("uri", location);
    o.put("dryRun", dryRun);
    o.putArray("deleted");
    o.putArray("kept");
    o.putArray("leasesRemoved");
    ArrayNode temps = o.putArray("tempsDeleted");
    o.putArray("uploadsAborted");
    o.putArray("uploadsKept");
    for (TempFiles.Leftover t : left) {
      if (!dryRun) {
        Files.deleteIfExists(t.path());
      }
      temps.add(t.path().getFileName().toString());
      if (json) {
        continue;
      }
      out.println(
          (dryRun ? "would delete " : "deleted ")
              + t.path().getFileName()
              + " ("
              + InspectCommand.humanBytes(t.byteLength())
              + "; "
              + t.why()
              + ")");
    }
    if (json) {
      out.println(Json.line(o));
      out.flush();
      return;
    }
    out.println(
        left.isEmpty()
            ? "no temporary files of killed writers in " + location + " (it holds no dataset)"
            : ValidateCommand.count(left.size(), "temporary file")
                + (dryRun ? " (dry run: nothing deleted)" : " deleted"));
    out.flush();
  }
}
