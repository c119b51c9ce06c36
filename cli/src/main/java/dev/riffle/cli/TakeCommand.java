package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.format.read.FileReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle take FILE|URI[@v] --rows 3,17,5 [--columns a,b] [--stats]}: random access by row
 * number, printed as JSON lines in the requested order. With {@code --stats} it also prints the
 * reader's I/O counters for the take alone, the figures the format's claims are measured by. On a
 * dataset, rows are global row ids, or with {@code --split} positions in that split.
 */
@Command(
    name = "take",
    mixinStandardHelpOptions = true,
    description = {
      "Print rows by number as JSON lines (one object per row, in the requested order).",
      "With --stats, print on stderr one JSON object with the I/O of the take alone: rows,"
          + " reads, bytesRead, sectors, rounds, valuesDecoded (counted after the file is opened"
          + " and the columns' search metadata loaded). Takes of more than 65,536 rows are"
          + " split into several calls of the reader, one round each. Lazy reads"
          + " (RIFFLE_LAZY_CACHE) add \"lazy\": gets, bytesFetched, fetchRounds, cacheHits,"
          + " cacheMisses; a staged view adds \"staged\" (nothing fetched).",
      "On a dataset, --rows are global row ids (deleted rows are refused); with --split NAME"
          + " they are positions 0..n-1 in that split. --random draws positions among the live"
          + " rows (of the split)."
    })
public final class TakeCommand implements Callable<Integer> {
  /**
   * Rows per {@link FileReader#take} call: one call for any ordinary take (so {@code rounds} is 1),
   * while a benchmark of millions of rows still runs in bounded memory.
   */
  static final int MAX_ROWS_PER_TAKE = 65_536;

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "FILE|URI[@VERSION]",
      description =
          "A Riffle file, or a dataset (a directory or a URI such as s3a://bucket/prefix),"
              + " optionally with @VERSION (default: the latest).")
  String location;

  @Option(
      names = "--split",
      paramLabel = "NAME",
      description = "Datasets only: rows are positions in this split.")
  String split;

  @Mixin RowSelection selection;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "NAME",
      description = "Top-level columns to print, in this order (default: all).")
  List<String> columns;

  @Option(names = "--json", description = "Accepted for symmetry; the output is always JSON lines.")
  boolean json;

  @Option(
      names = "--with-row-id",
      description =
          "Begin each object with \"_row\": the row's number in the file, or its global row id"
              + " in the dataset (also with --split and --random).")
  boolean withRowId;

  @Option(names = "--stats", description = "Print the take's I/O counters on stderr as JSON.")
  boolean stats;

  @Option(
      names = {"-q", "--quiet"},
      description = "Do not print the rows (for measurements with --stats).")
  boolean quiet;

  @Override
  public Integer call() throws IOException {
    long[] explicit = selection.readExplicit();
    Locations.Location loc = Locations.parse(location);
    if (loc.readsAsFile()) {
      if (split != null) {
        throw new IllegalArgumentException(
            "--split applies to datasets; " + location + " is a file");
      }
      takeFile(loc.path(), explicit);
    } else {
      takeDataset(loc, explicit);
    }
    return 0;
  }

  private void takeFile(Path file, long[] explicit) throws IOException {
    try (OpenedFile opened = OpenedFile.open(file)) {
      FileReader reader = opened.reader();
      long[] rows = selection.resolve(explicit, reader.rowCount());
      // Search metadata and dictionaries are the cost of opening, paid once per reader; the
      // counters are reset after them so that --stats shows what a take costs a warm reader.
      reader.loadColumns(columns);
      DictionaryProvider dictionaries = reader.dictionaries();
      reader.stats().reset();
      print(rows, dictionaries, chunk -> reader.take(chunk, columns));
      if (stats) {
        printStats(IoFigures.reads(rows.length, reader.stats()));
      }
    }
  }

  private void takeDataset(Locations.Location loc, long[] explicit) throws IOException {
    // A staged view is pinned while it is read, as by load: no eviction removes a file under it.
    try (StagedRun staged = StagedRun.pinIfStaged(loc);
        OpenedDataset opened = OpenedDataset.open(loc, "take")) {
      Dataset dataset = opened.dataset();
      opened.checkColumns(columns);
      DatasetView view = split == null ? dataset.all() : dataset.split(split);
      long[] rows = selection.resolve(explicit, view.rowCount());
      // Explicit rows without a split are global ids; everything else is a position in the view.
      if (split != null || explicit == null) {
        long[] global = new long[rows.length];
        for (int i = 0; i < rows.length; i++) {
          global[i] = view.globalRow(rows[i]);
        }
        rows = global;
      }
      DictionaryProvider dictionaries = opened.dictionariesFor(columns);
      IoFigures figures = null;
      if (stats) {
        // As for a file: the counters start after the files the take touches are opened and
        // their columns' search metadata loaded.
        for (int i : opened.filesOf(rows)) {
          dataset.file(i).loadColumns(columns);
        }
        dataset.stats().reset();
        figures = IoFigures.start(opened.storage(), staged != null);
      }
      print(rows, dictionaries, chunk -> dataset.take(chunk, columns));
      if (figures != null) {
        ObjectNode node = IoFigures.reads(rows.length, dataset.stats());
        figures.putInto(node);
        printStats(node);
      }
    }
  }

  /** Takes rows from a file or a dataset. */
  private interface Taker {
    VectorSchemaRoot take(long[] rows) throws IOException;
  }

  private void print(long[] rows, DictionaryProvider dictionaries, Taker taker) throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    JsonLines lines = new JsonLines(out);
    for (int from = 0; from < rows.length; from += MAX_ROWS_PER_TAKE) {
      long[] chunk =
          Arrays.copyOfRange(rows, from, Math.min(rows.length, from + MAX_ROWS_PER_TAKE));
      try (VectorSchemaRoot batch = taker.take(chunk)) {
        if (!quiet) {
          lines.write(
              batch, dictionaries, 0, batch.getRowCount(), withRowId ? i -> chunk[i] : null);
          if (lines.flushAndCheckClosed()) {
            break;
          }
        }
      }
    }
    out.flush();
  }

  private void printStats(ObjectNode node) throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    err.println(Json.MAPPER.writeValueAsString(node));
    err.flush();
  }
}
