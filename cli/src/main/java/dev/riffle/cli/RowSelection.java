package dev.riffle.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The three ways to name the rows of a take, exactly one of which must be used: a list on the
 * command line, a file of row numbers (for lists too long for a command line), or N numbers drawn
 * from a seeded generator (for reproducible benchmarks). A picocli mixin, so that its options
 * appear in the help of the command that uses it.
 */
final class RowSelection {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(
      names = "--rows",
      split = ",",
      paramLabel = "ROW",
      description = "Row numbers, comma separated, in the order to print; duplicates allowed.")
  long[] rows;

  @Option(
      names = "--rows-file",
      paramLabel = "PATH",
      description = "A file with one row number per line (blank lines and # comments skipped).")
  Path rowsFile;

  @Option(
      names = "--random",
      paramLabel = "N",
      description =
          "Take N row numbers drawn uniformly (with repeats) from [0, rows) (on a dataset:"
              + " among the live rows, or of the --split).")
  Integer random;

  @Option(
      names = "--seed",
      paramLabel = "S",
      description = "Seed of the generator for --random (default: ${DEFAULT-VALUE}).",
      defaultValue = "0")
  long seed;

  /**
   * Checks that exactly one source was given and reads the rows file; done before the data file is
   * opened so that argument errors are reported as such.
   *
   * @return the row numbers, or null for {@code --random}, which needs the row count
   */
  long[] readExplicit() throws IOException {
    int given = (rows != null ? 1 : 0) + (rowsFile != null ? 1 : 0) + (random != null ? 1 : 0);
    if (given != 1) {
      throw usage(
          given == 0
              ? "missing rows: give --rows, --rows-file or --random"
              : "give only one of --rows, --rows-file and --random");
    }
    if (random != null && random < 0) {
      throw usage("--random must not be negative, not " + random);
    }
    if (random == null && mixee.commandLine().getParseResult().hasMatchedOption("--seed")) {
      throw usage("--seed is only used with --random");
    }
    if (rows != null) {
      return rows.clone();
    }
    return rowsFile == null ? null : readRowsFile(rowsFile);
  }

  /** The rows to take from a file (or dataset view) of {@code rowCount} rows. */
  long[] resolve(long[] explicit, long rowCount) {
    if (explicit != null) {
      return explicit;
    }
    if (rowCount == 0 && random > 0) {
      throw new IllegalArgumentException("cannot draw random rows from no rows");
    }
    SplittableRandom rng = new SplittableRandom(seed);
    long[] drawn = new long[random];
    Arrays.setAll(drawn, i -> rng.nextLong(rowCount));
    return drawn;
  }

  private long[] readRowsFile(Path path) throws IOException {
    long[] out = new long[64];
    int n = 0;
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      int lineNo = 0;
      for (String line; (line = in.readLine()) != null; ) {
        lineNo++;
        String s = line.strip();
        if (s.isEmpty() || s.startsWith("#")) {
          continue;
        }
        if (n == out.length) {
          out = Arrays.copyOf(out, n * 2);
        }
        try {
          out[n++] = Long.parseLong(s);
        } catch (NumberFormatException e) {
          throw usage(path + " line " + lineNo + ": '" + s + "' is not a row number");
        }
      }
    }
    return Arrays.copyOf(out, n);
  }

  private ParameterException usage(String message) {
    return new ParameterException(mixee.commandLine(), message);
  }
}
