package dev.riffle.cli;

import dev.riffle.format.ColumnInfo;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ReadStats;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code riffle demo}: the main job on an embedded default, no S3 needed. Generates a narrow scalar
 * file and a single-cell-like sparse file, then takes random rows from each and shows what one row
 * cost: reads, 4 KiB sectors and bytes, counted by the reader itself.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "The main job on generated data: show the cost of random access to a scalar file"
          + " (1,000,000 rows) and a single-cell-like sparse file (5,000 rows, ~1,500 non-zeros"
          + " each), then write a 20,000-cell sparse dataset and load one epoch of it with"
          + " block-shuffled sampling (block 16, fetch 256, batches of 64), printing throughput"
          + " and diversity. Files go to --dir (kept) or to a temporary directory (deleted)."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR", description = "Keep the files in this directory.")
  Path dir;

  @Option(names = "--take", paramLabel = "N", description = "Random rows per take (default 256).")
  int take = 256;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    boolean temporary = dir == null;
    Path where = temporary ? Files.createTempDirectory("riffle-demo") : dir;
    Files.createDirectories(where);
    try {
      Path scalars = where.resolve("scalars.riffle");
      Path sparse = where.resolve("sparse.riffle");
      generate("scalars", scalars, 1_000_000);
      generate("sparse", sparse, 5_000);
      out.println();
      out.printf(
          Locale.ROOT,
          "%-28s %8s %9s %9s %11s %10s %12s%n",
          "random take of " + take + " rows",
          "rounds",
          "reads/row",
          "sectors/row",
          "bytes/row",
          "RAM meta",
          "rows/s (warm)");
      report(scalars, List.of("id"), "scalars: id (u64, 10% null)");
      report(scalars, List.of("name"), "scalars: name (utf8)");
      report(sparse, List.of("indices", "values"), "sparse: indices+values group");
      report(sparse, List.of("plate"), "sparse: plate (categorical)");
      out.println();
      out.println(
          "Counters are the reader's own (see `riffle take FILE --random N --stats`);"
              + " rows/s is from this machine's page cache, not a benchmark.");
      out.println();
      out.println(
          "Loading one epoch of a 20,000-cell dataset, block-shuffled (b=16, f=256, m=64):");
      Path cells = where.resolve("cells");
      run("generate", "sparse", cells + "/", "--rows", "20000", "--seed", "1", "--files", "2");
      run(
          "load",
          cells.toString(),
          "--sampler",
          "block",
          "--block",
          "16",
          "--fetch",
          "256",
          "--batch",
          "64",
          "--label",
          "plate",
          "--seed",
          "1");
      if (!temporary) {
        out.println("Files kept in " + where + "; try: ./riffle inspect " + sparse);
      }
      out.flush();
      return 0;
    } finally {
      if (temporary) {
        try (Stream<Path> files = Files.walk(where)) {
          for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
            Files.deleteIfExists(p);
          }
        }
      }
    }
  }

  private void generate(String kind, Path file, long rows) throws IOException {
    run("generate", kind, file.toString(), "--rows", Long.toString(rows), "--seed", "1");
  }

  /** Runs a riffle command in this process, as a user would type it. */
  private void run(String... args) throws IOException {
    CommandLine cmd = new CommandLine(new RiffleCommand());
    cmd.setOut(spec.commandLine().getOut());
    cmd.setErr(spec.commandLine().getErr());
    int rc = cmd.execute(args);
    if (rc != 0) {
      throw new IOException("riffle " + String.join(" ", args) + " failed (exit " + rc + ")");
    }
  }

  private void report(Path file, List<String> columns, String label) throws IOException {
    try (OpenedFile opened = OpenedFile.open(file)) {
      FileReader reader = opened.reader();
      reader.loadColumns(columns);
      long ram = 0;
      for (ColumnInfo c : reader.describe()) {
        if (columns.contains(c.fields().get(0))) {
          ram += c.ramBytes();
        }
      }
      SplittableRandom r = new SplittableRandom(7);
      long[] rows = r.longs(take, 0, reader.rowCount()).toArray();
      ReadStats stats = reader.stats();
      stats.reset();
      try (VectorSchemaRoot batch = reader.take(rows, columns)) {
        batch.getRowCount();
      }
      double n = rows.length;
      String counters =
          String.format(
              Locale.ROOT,
              "%8d %9.2f %9.2f %11.0f %10s",
              stats.rounds(),
              stats.reads() / n,
              stats.sectors() / n,
              stats.bytesRead() / n,
              bytes(ram));
      // A short warm loop for an order of magnitude, clearly labelled as such; the first part
      // only warms the JIT up.
      long start = System.nanoTime();
      long done = 0;
      long measureFrom = start + 300_000_000L;
      while (System.nanoTime() < measureFrom) {
        long[] idx = r.longs(take, 0, reader.rowCount()).toArray();
        try (VectorSchemaRoot batch = reader.take(idx, columns)) {
          done += batch.getRowCount();
        }
      }
      start = System.nanoTime();
      done = 0;
      while (System.nanoTime() - start < 500_000_000L) {
        long[] idx = r.longs(take, 0, reader.rowCount()).toArray();
        try (VectorSchemaRoot batch = reader.take(idx, columns)) {
          done += batch.getRowCount();
        }
      }
      double rate = done / ((System.nanoTime() - start) / 1e9);
      spec.commandLine().getOut().printf(Locale.ROOT, "%-28s %s %12.0f%n", label, counters, rate);
    }
  }

  private static String bytes(long b) {
    return b < 10_000 ? b + " B" : (b / 1024) + " KiB";
  }
}
