package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.RowRanges;
import dev.riffle.format.read.ScanCursor;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle scan FILE|URI[@v] [--columns a,b] [--limit N] [--split NAME]}: all rows in order as
 * JSON lines, read page by page with every page's checksum verified. On a dataset: its live rows
 * (or a split's) in global row order, read the same way, file by file.
 */
@Command(
    name = "scan",
    mixinStandardHelpOptions = true,
    description = {
      "Print rows in order as JSON lines (one object per row).",
      "On a dataset: the live rows in global row order, or with --split NAME the rows of that"
          + " split."
    })
public final class ScanCommand implements Callable<Integer> {
  /** Rows per batch: large enough to amortise per-batch work, small enough to bound memory. */
  static final int BATCH_ROWS = 4096;

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
      description = "Datasets only: scan the rows of this split.")
  String split;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "NAME",
      description = "Top-level columns to print, in this order (default: all).")
  List<String> columns;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "Stop after N rows (default: all rows).")
  Long limit;

  @Option(
      names = "--offset",
      paramLabel = "N",
      description =
          "Skip the first N rows (of the file, the dataset's live rows or the split; default:"
              + " ${DEFAULT-VALUE}).")
  long offset;

  @Option(
      names = "--with-row-id",
      description =
          "Begin each object with \"_row\": the row's number in the file, or its global row id"
              + " in the dataset.")
  boolean withRowId;

  @Option(
      names = "--where",
      paramLabel = "FILTER",
      description = {
        "Only the rows that match, e.g. \"plate = 3 and n_genes > 500\", \"cell_type in"
            + " ('T', 'B')\", \"score between 0.2 and 0.4\", \"donor is not null\": =, !=, <,"
            + " <=, >, >=, in, between, is [not] null, and, or, parentheses. Strings in quotes;"
            + " dates and timestamps as ISO strings. A file's pages that its statistics exclude"
            + " are not read. --offset and --limit count matching rows."
      })
  String where;

  @Option(names = "--json", description = "Accepted for symmetry; the output is always JSON lines.")
  boolean json;

  @Option(
      names = "--stats",
      description =
          "Print the scan's I/O counters on stderr as one JSON object, as take --stats does:"
              + " rows printed, reads, bytesRead, sectors, rounds, valuesDecoded, and for lazy"
              + " reads (RIFFLE_LAZY_CACHE) \"lazy\": gets, bytesFetched, fetchRounds,"
              + " cacheHits, cacheMisses; a staged view adds \"staged\" (nothing fetched).")
  boolean stats;

  @Override
  public Integer call() throws IOException {
    if (limit != null && limit < 0) {
      throw new ParameterException(
          spec.commandLine(), "--limit must not be negative, not " + limit);
    }
    if (offset < 0) {
      throw new ParameterException(
          spec.commandLine(), "--offset must not be negative, not " + offset);
    }
    long remaining = limit == null ? Long.MAX_VALUE : limit;
    // A small limit needs no full batch; the cursor is still made so that column names are
    // checked even for --limit 0.
    int batchRows = (int) Math.max(1, Math.min(BATCH_ROWS, remaining));
    Locations.Location loc = Locations.parse(location);
    if (loc.readsAsFile()) {
      if (split != null) {
        throw new IllegalArgumentException(
            "--split applies to datasets; " + location + " is a file");
      }
      try (OpenedFile opened = OpenedFile.open(loc.path())) {
        FileReader reader = opened.reader();
        long printed;
        if (where == null) {
          ScanCursor cursor = reader.scan(columns, batchRows);
          printed = print(remaining, reader.dictionaries(), cursor::next, p -> p);
        } else {
          // The matching rows first (only the filter's columns read, over the pages their
          // statistics cannot exclude), then the columns of those rows, numbered through the
          // ranges for --with-row-id.
          RowRanges rows =
              WhereExpression.parse(where, reader.schema(), loc.path().toString())
                  .matchingRows(reader, RowRanges.all(reader.rowCount()));
          ScanCursor cursor = reader.scan(columns, batchRows, rows);
          printed = print(remaining, reader.dictionaries(), cursor::next, new NthRow(rows)::row);
        }
        if (stats) {
          printStats(IoFigures.reads(printed, reader.stats()));
        }
      }
    } else {
      // A staged view is pinned while it is read, as by take and load.
      try (StagedRun staged = StagedRun.pinIfStaged(loc);
          OpenedDataset opened = OpenedDataset.open(loc, "scan")) {
        Dataset dataset = opened.dataset();
        opened.checkColumns(columns);
        DatasetView view = split == null ? dataset.all() : dataset.split(split);
        IoFigures figures = IoFigures.start(opened.storage(), staged != null);
        if (where != null) {
          // The matching rows become the view (the filter's columns read first, page statistics
          // skipping what they exclude); --offset, --limit and _row then count in it.
          view =
              view.where(
                  WhereExpression.parse(
                      where, dataset.schema(), opened.storage().uri().toString()));
        }
        long printed;
        // Page by page with every page's checksum verified, as for a file; closed early (at the
        // limit), it drops the pages read ahead.
        try (DatasetView.Cursor cursor = view.scan(columns, batchRows)) {
          printed =
              print(remaining, opened.dictionariesFor(columns), cursor::next, view::globalRow);
        }
        if (stats) {
          ObjectNode node = IoFigures.reads(printed, dataset.stats());
          figures.putInto(node);
          printStats(node);
        }
      }
    }
    return 0;
  }

  /** The n-th row of a set of ranges, for n rising as a scan of them goes. */
  private static final class NthRow {
    private final RowRanges ranges;
    private int range;
    private long before; // rows of the ranges before {@code range}

    NthRow(RowRanges ranges) {
      this.ranges = ranges;
    }

    long row(long n) {
      while (n - before >= ranges.end(range) - ranges.start(range)) {
        before += ranges.end(range) - ranges.start(range);
        range++;
      }
      return ranges.start(range) + (n - before);
    }
  }

  /** The next batch of a file's or a dataset's cursor, null at the end. */
  private interface Batches {
    VectorSchemaRoot next() throws IOException;
  }

  private void printStats(ObjectNode node) throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    err.println(Json.MAPPER.writeValueAsString(node));
    err.flush();
  }

  /**
   * Prints up to {@code remaining} rows after the first {@code offset}, and returns how many it
   * printed; {@code rowId} maps a row's position in the scan to the id {@code --with-row-id}
   * prints.
   */
  private long print(
      long remaining,
      DictionaryProvider dictionaries,
      Batches cursor,
      java.util.function.LongUnaryOperator rowId)
      throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    JsonLines lines = new JsonLines(out);
    long position = 0; // of the batch's first row
    long printed = 0;
    while (remaining > 0) {
      VectorSchemaRoot next = cursor.next();
      if (next == null) {
        break;
      }
      try (VectorSchemaRoot batch = next) {
        // The skipped rows are read and dropped: the cursor reads pages in order anyway.
        int from = (int) Math.max(0, Math.min(batch.getRowCount(), offset - position));
        int n = (int) Math.min(batch.getRowCount() - from, remaining);
        long first = position;
        lines.write(
            batch, dictionaries, from, n, withRowId ? i -> rowId.applyAsLong(first + i) : null);
        position += batch.getRowCount();
        remaining -= n;
        printed += n;
      }
      if (lines.flushAndCheckClosed()) {
        break;
      }
    }
    out.flush();
    return printed;
  }
}
