package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.convert.ArrowIpcConverter;
import dev.riffle.convert.ConvertOptions;
import dev.riffle.convert.ConvertResult;
import dev.riffle.convert.ParquetConverter;
import dev.riffle.convert.SourceFile;
import dev.riffle.convert.SourceFiles;
import dev.riffle.convert.h5ad.BufferMeter;
import dev.riffle.convert.h5ad.H5adConverter;
import dev.riffle.convert.h5ad.XDtype;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle convert parquet|arrow|h5ad IN... OUT_URI}: writes version 1 of a new dataset from
 * other formats, or with {@code --append} the next version of the one there, with the inputs'
 * paths, sizes and SHA-256 in its provenance. Nothing is published if anything fails.
 */
@Command(
    name = "convert",
    mixinStandardHelpOptions = true,
    description = {"Convert Parquet, Arrow IPC or AnnData files into a new Riffle dataset."},
    subcommands = {
      ConvertCommand.Parquet.class,
      ConvertCommand.Arrow.class,
      ConvertCommand.H5ad.class
    })
public final class ConvertCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing format: one of parquet, arrow, h5ad");
  }

  /** A conversion, as {@link #leavingNothing} runs it. */
  interface Conversion {
    ConvertResult run() throws IOException;
  }

  /**
   * Runs a conversion into a new dataset and, if it fails where no local directory was before,
   * removes the directories it made: a failed converter has deleted its data files, but not the
   * folders that held them, and a failed conversion must leave nothing that looks like a dataset.
   * Only empty directories go, so a file that another process put there meanwhile stays.
   */
  static ConvertResult leavingNothing(Locations.Location loc, Conversion conversion)
      throws IOException {
    boolean fresh = loc.path() != null && !Files.exists(loc.path(), LinkOption.NOFOLLOW_LINKS);
    try {
      return conversion.run();
    } catch (Throwable t) {
      if (fresh && Files.isDirectory(loc.path(), LinkOption.NOFOLLOW_LINKS)) {
        removeEmptyDirectories(loc.path(), t);
      }
      throw t;
    }
  }

  private static void removeEmptyDirectories(Path root, Throwable failure) {
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) {
              try {
                Files.delete(dir);
              } catch (IOException notEmpty) {
                // Not ours to remove, or not empty: it stays.
              }
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Prints the one-line summary of a conversion, or with --json its JSON object: what it wrote, and
   * its throughput in rows (or {@code unit}, e.g. cells) and bytes of input per second.
   */
  static void summary(
      PrintWriter out, ConvertResult r, String target, int files, JsonOutput output) {
    summary(out, r, target, files, output, "rows");
  }

  static void summary(
      PrintWriter out, ConvertResult r, String target, int files, JsonOutput output, String unit) {
    if (output.json) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("out", target);
      o.put("version", r.manifest().version());
      o.put("rows", r.rows());
      o.put("files", files);
      o.put("bytesIn", r.bytesIn());
      o.put("bytesOut", r.bytesOut());
      o.put("seconds", r.seconds());
      o.put("rowsPerSecond", r.rowsPerSecond());
      o.put("inputBytesPerSecond", r.bytesPerSecond());
      String partitions = r.manifest().metadata().get(ParquetConverter.PARTITION_COLUMNS_KEY);
      if (partitions != null) {
        ArrayNode a = o.putArray("partitionColumns");
        for (String c : partitions.split(",")) {
          a.add(c);
        }
      }
      String x = r.manifest().metadata().get(H5adConverter.X_DTYPE_KEY);
      if (x != null) {
        o.put("xDtype", x);
        o.put("xFileDtype", r.manifest().metadata().get(H5adConverter.X_FILE_DTYPE_KEY));
        // What the dataset lacks of the file, as the text summary says it.
        o.put("notConverted", r.manifest().metadata().get(H5adConverter.SKIPPED_KEY));
      }
      out.println(Json.line(o));
      out.flush();
      return;
    }
    out.printf(
        Locale.ROOT,
        "converted %,d %s from %s (%s) to %s version %d (%s) in %.1f s: %,.0f %s/s,"
            + " %s/s of input%n",
        r.rows(),
        unit,
        Sizes.count(files, "file"),
        InspectCommand.humanBytes(r.bytesIn()),
        target,
        r.manifest().version(),
        InspectCommand.humanBytes(r.bytesOut()),
        r.seconds(),
        r.rowsPerSecond(),
        unit,
        Sizes.bytes(Math.round(r.bytesPerSecond())));
    String partitions = r.manifest().metadata().get(ParquetConverter.PARTITION_COLUMNS_KEY);
    if (partitions != null) {
      out.println(
          "columns from the key=value directories of the input: " + partitions.replace(",", ", "));
    }
    out.flush();
  }

  /** {@code riffle convert parquet IN... OUT_URI}. */
  @Command(
      name = "parquet",
      mixinStandardHelpOptions = true,
      description = {
        "Convert Parquet files into a new dataset. Inputs are files, directories (every file"
            + " below) and globs, local or on a Hadoop file system (s3a://...); as in Hadoop, a"
            + " directory or glob leaves out names starting with _ or . (_SUCCESS, .crc files,"
            + " _temporary/ of unfinished Spark jobs). Their schemas must be equal. Rows keep the"
            + " order of the inputs.",
        "A partitioned input keeps its keys: each key=value directory below a directory or a"
            + " glob's base (cells/plate=p07/part-0.parquet, as Spark, Hive and DuckDB write)"
            + " adds the column key, int64 or float64 where every value is written as one, a"
            + " date where every value is a day written yyyy-MM-dd, else a categorical of strings."
      })
  static final class Parquet implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin DatasetDescription about = new DatasetDescription();

    @Mixin JsonOutput output = new JsonOutput();

    @Mixin CategoricalColumns categorical = new CategoricalColumns();

    @Parameters(
        arity = "2..*",
        // As written: picocli's own rendering of an arity 2..* label repeats it.
        hideParamSyntax = true,
        paramLabel = "IN... OUT_URI",
        description = "Inputs, then the new dataset.")
    List<String> args;

    @Option(
        names = "--threads",
        paramLabel = "N",
        description = "Files decoded at once (default: cores - 1).")
    Integer threads;

    @Option(
        names = "--batch-rows",
        paramLabel = "N",
        description = "Rows per batch (default 65536).")
    Integer batchRows;

    @Override
    public Integer call() throws IOException {
      List<String> inputs = args.subList(0, args.size() - 1);
      String target = args.get(args.size() - 1);
      List<SourceFile> files = SourceFiles.expand(inputs, Locations.hadoopOverrides);
      long total = files.stream().mapToLong(SourceFile::length).sum();
      PrintWriter err = spec.commandLine().getErr();
      Progress progress = Progress.bytes(err, "convert", total);
      java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
      ConvertOptions options =
          categorical.applyTo(
              about.applyTo(
                  ConvertOptions.defaults().withProgress(n -> progress.update(done.addAndGet(n)))));
      if (threads != null) {
        options = options.withThreads(threads);
      }
      if (batchRows != null) {
        options = options.withBatchRows(batchRows);
      }
      Locations.Location loc = Locations.parse(target);
      about.requireNoVersion(loc);
      ConvertOptions opts = options;
      ConvertResult r =
          leavingNothing(
              loc,
              () -> {
                try (BufferAllocator allocator = new RootAllocator();
                    Storage storage = Locations.storage(loc)) {
                  about.refuseExisting(storage);
                  return ParquetConverter.convert(files, storage, allocator, opts);
                }
              });
      progress.done();
      summary(spec.commandLine().getOut(), r, target, files.size(), output);
      return 0;
    }
  }

  /** {@code riffle convert arrow IN OUT_URI}. */
  @Command(
      name = "arrow",
      mixinStandardHelpOptions = true,
      description = {"Convert an Arrow IPC file or stream into a new dataset."})
  static final class Arrow implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin DatasetDescription about = new DatasetDescription();

    @Mixin JsonOutput output = new JsonOutput();

    @Mixin CategoricalColumns categorical = new CategoricalColumns();

    @Parameters(index = "0", paramLabel = "IN", description = "An Arrow IPC file or stream.")
    String input;

    @Parameters(index = "1", paramLabel = "OUT_URI", description = "The new dataset.")
    String target;

    @Override
    public Integer call() throws IOException {
      List<SourceFile> files = SourceFiles.expand(List.of(input), Locations.hadoopOverrides);
      if (files.size() != 1) {
        throw new IllegalArgumentException(input + " names " + files.size() + " files; give one");
      }
      // With --categorical the input is read twice (its values first: ArrowIpcConverter).
      long passes = categorical.isEmpty() ? 1 : 2;
      Progress progress =
          Progress.bytes(spec.commandLine().getErr(), "convert", passes * files.get(0).length());
      java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
      Locations.Location loc = Locations.parse(target);
      about.requireNoVersion(loc);
      ConvertResult r =
          leavingNothing(
              loc,
              () -> {
                try (BufferAllocator allocator = new RootAllocator();
                    Storage storage = Locations.storage(loc)) {
                  about.refuseExisting(storage);
                  return ArrowIpcConverter.convert(
                      files.get(0),
                      storage,
                      allocator,
                      categorical.applyTo(
                          about.applyTo(
                              ConvertOptions.defaults()
                                  .withProgress(n -> progress.update(done.addAndGet(n))))));
                }
              });
      progress.done();
      summary(spec.commandLine().getOut(), r, target, 1, output);
      return 0;
    }
  }

  /** {@code riffle convert h5ad IN.h5ad OUT_URI}. */
  @Command(
      name = "h5ad",
      mixinStandardHelpOptions = true,
      description = {
        "Convert an AnnData file (.h5ad) into a new dataset: one row per cell (row of X), X as"
            + " sparse rows (indices + values, one column group), the obs columns, obsm matrices,"
            + " layers and raw/X; var and raw/var as side tables under tables/, uns as JSON"
            + " metadata. CSR, CSC and dense X are read in bounded memory."
      })
  static final class H5ad implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin DatasetDescription about = new DatasetDescription();

    @Mixin JsonOutput output = new JsonOutput();

    @Parameters(index = "0", paramLabel = "IN", description = "An .h5ad file, local or s3a://.")
    String input;

    @Parameters(index = "1", paramLabel = "OUT_URI", description = "The new dataset.")
    String target;

    @Option(
        names = "--batch-rows",
        paramLabel = "N",
        description = "Cells per batch (default 65536).")
    Integer batchRows;

    @Option(
        names = "--x-dtype",
        paramLabel = "TYPE",
        description =
            "X's value type: stored (default: the file's dtype, float64, int32, uint16..., losing"
                + " nothing), float32 or float64.")
    String xDtype = "stored";

    @Override
    public Integer call() throws IOException {
      XDtype xType;
      try {
        xType = XDtype.parse(xDtype);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--x-dtype: " + e.getMessage());
      }
      List<SourceFile> files = SourceFiles.expand(List.of(input), Locations.hadoopOverrides);
      if (files.size() != 1) {
        throw new IllegalArgumentException(input + " names " + files.size() + " files; give one");
      }
      Progress progress =
          Progress.bytes(spec.commandLine().getErr(), "convert", files.get(0).length());
      java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
      ConvertOptions options =
          about.applyTo(
              ConvertOptions.defaults().withProgress(n -> progress.update(done.addAndGet(n))));
      if (batchRows != null) {
        options = options.withBatchRows(batchRows);
      }
      Locations.Location loc = Locations.parse(target);
      about.requireNoVersion(loc);
      ConvertOptions opts = options;
      ConvertResult r =
          leavingNothing(
              loc,
              () -> {
                try (BufferAllocator allocator = new RootAllocator();
                    Storage storage = Locations.storage(loc)) {
                  about.refuseExisting(storage);
                  return H5adConverter.convert(
                      files.get(0), storage, allocator, opts, new BufferMeter(), xType);
                }
              });
      progress.done();
      summary(spec.commandLine().getOut(), r, target, 1, output, "cells");
      String stored = r.manifest().metadata().get(H5adConverter.X_DTYPE_KEY);
      String file = r.manifest().metadata().get(H5adConverter.X_FILE_DTYPE_KEY);
      if (stored != null && !output.json) {
        spec.commandLine()
            .getOut()
            .println(
                stored.equals(file)
                    ? "X stored as " + stored + ", the file's dtype"
                    : "X stored as "
                        + stored
                        + " (--x-dtype "
                        + xType
                        + "; the file's is "
                        + file
                        + ")");
        spec.commandLine().getOut().flush();
      }
      String skipped = r.manifest().metadata().get(H5adConverter.SKIPPED_KEY);
      if (skipped != null && !output.json) {
        // Parts of the file that the dataset lacks: said with the summary, not only kept in the
        // manifest.
        PrintWriter out = spec.commandLine().getOut();
        out.println(
            "not converted (kept in metadata " + H5adConverter.SKIPPED_KEY + "): " + skipped);
        out.flush();
      }
      return 0;
    }
  }
}
