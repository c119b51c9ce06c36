package dev.riffle.cli;

import dev.riffle.format.FileReader;
import dev.riffle.format.ScanCursor;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
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
 * {@code riffle scan FILE [--columns a,b] [--limit N]}: all rows in order as JSON lines, read page
 * by page with every page's checksum verified.
 */
@Command(
    name = "scan",
    mixinStandardHelpOptions = true,
    description = "Print rows in order as JSON lines (one object per row).")
public final class ScanCommand implements Callable<Integer> {
  /** Rows per batch: large enough to amortise per-batch work, small enough to bound memory. */
  static final int BATCH_ROWS = 4096;

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "A Riffle file.")
  Path file;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "NAME",
      description = "Top-level columns to print, in this order (default: all).")
  List<String> columns;

  @Option(names = "--limit", paramLabel = "N", description = "Stop after N rows.")
  Long limit;

  @Option(names = "--json", description = "Accepted for symmetry; the output is always JSON lines.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    if (limit != null && limit < 0) {
      throw new ParameterException(
          spec.commandLine(), "--limit must not be negative, not " + limit);
    }
    long remaining = limit == null ? Long.MAX_VALUE : limit;
    try (OpenedFile opened = OpenedFile.open(file)) {
      FileReader reader = opened.reader();
      // A small limit needs no full batch; the cursor is still made so that column names are
      // checked even for --limit 0.
      int batchRows = (int) Math.max(1, Math.min(BATCH_ROWS, remaining));
      ScanCursor cursor = reader.scan(columns, batchRows);
      DictionaryProvider dictionaries = reader.dictionaries();
      PrintWriter out = spec.commandLine().getOut();
      JsonLines lines = new JsonLines(out);
      while (remaining > 0) {
        VectorSchemaRoot next = cursor.next();
        if (next == null) {
          break;
        }
        try (VectorSchemaRoot batch = next) {
          int n = (int) Math.min(batch.getRowCount(), remaining);
          lines.write(batch, dictionaries, 0, n);
          remaining -= n;
        }
        if (lines.flushAndCheckClosed()) {
          break;
        }
      }
      out.flush();
    }
    return 0;
  }
}
