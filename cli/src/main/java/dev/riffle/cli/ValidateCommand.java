package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetValidator;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle validate URI[@v] [--deep]}: checks a version against its manifest (every data file
 * present, of the right length and SHA-256; with {@code --deep} every page read and its CRC
 * checked). The problems are the command's output, on stdout one per line; stderr gets the usual
 * single {@code riffle:} line and the exit code is 1, so that scripts can test it.
 */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = {
      "Check a dataset version: every data file present, with the size and SHA-256 its manifest"
          + " records; with --deep also every page read and its CRC32C checked.",
      "Prints 'OK: ...' and exits 0, or prints the problems, one per line, and exits 1. Data"
          + " files that no version references (orphans) are listed as notes, not failures:"
          + " 'riffle gc' removes them."
    })
public final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URI[@VERSION]",
      description = "A dataset, optionally with @VERSION (default: the latest).")
  String location;

  @Option(names = "--deep", description = "Also read every page and verify its checksum.")
  boolean deep;

  @Option(
      names = "--json",
      description =
          "Print one JSON object instead (ok, version, filesChecked, bytesChecked, problems, notes,"
              + " orphans); the exit code is the same.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    Locations.Location loc = Locations.parse(location);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    DatasetValidator.Report report;
    try (Storage storage = Locations.openDataset(loc, "validate");
        BufferAllocator allocator = new RootAllocator()) {
      long version = Locations.version(storage, loc);
      Progress progress = Progress.bytes(err, "validate", totalBytes(storage, version));
      report = DatasetValidator.validate(storage, version, deep, allocator, progress::update);
      progress.done();
    }
    if (json) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("uri", loc.uri());
      o.put("version", report.version());
      o.put("ok", report.ok());
      o.put("deep", deep);
      o.put("filesChecked", report.filesChecked());
      o.put("bytesChecked", report.bytesChecked());
      ArrayNode problems = o.putArray("problems");
      report.problems().forEach(p -> problems.add(ErrorHandler.oneLine(p)));
      ArrayNode notes = o.putArray("notes");
      report.notes().forEach(n -> notes.add(ErrorHandler.oneLine(n)));
      ArrayNode orphans = o.putArray("orphans");
      report.orphans().forEach(orphans::add);
      out.println(Json.line(o));
    } else if (report.ok()) {
      out.println(
          "OK: version "
              + report.version()
              + ", "
              + Sizes.count(report.filesChecked(), "file")
              + ", "
              + Sizes.bytes(report.bytesChecked())
              + " verified"
              + (deep ? ", every page checked" : ""));
    } else {
      out.println(
          "FAILED: version "
              + report.version()
              + " of "
              + loc.uri()
              + ", "
              + count(report.problems().size(), "problem")
              + ":");
      report.problems().forEach(p -> out.println("  " + ErrorHandler.oneLine(p)));
    }
    // Damage elsewhere in the dataset (another version's manifest): worth knowing, but this
    // version is judged on its own.
    if (!json) {
      report.notes().forEach(n -> out.println("note: " + ErrorHandler.oneLine(n)));
    }
    if (!json && !report.orphans().isEmpty()) {
      out.println(
          "note: "
              + count(report.orphans().size(), "data file")
              + " that no version references (left by a failed or racing writer; 'riffle gc "
              + loc.uri()
              + "' removes them when no writer is running):");
      report.orphans().forEach(o -> out.println("  " + o));
    }
    out.flush();
    if (!report.ok()) {
      err.println(
          "riffle: version "
              + report.version()
              + " of "
              + loc.uri()
              + " is damaged: "
              + count(report.problems().size(), "problem")
              + " (listed on stdout)");
      err.flush();
      return ErrorHandler.FAILURE;
    }
    return 0;
  }

  /** The bytes to hash, for the progress line; 0 (no progress) if the manifest is unreadable. */
  private static long totalBytes(Storage storage, long version) {
    try {
      return Dataset.readManifest(storage, version).files().stream()
          .mapToLong(Manifest.DataFile::byteLength)
          .sum();
    } catch (IOException e) {
      // The validator reads it again and reports the problem properly.
      return 0;
    }
  }

  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
