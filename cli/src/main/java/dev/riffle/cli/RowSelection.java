package dev.riffle.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
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
  /** Longest line of a rows file: a row number and a comment fit many times over. */
  static final int MAX_LINE_BYTES = 4096;

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  /** Rows a --rows list may expand to: a range is for reading a stretch, not a whole file. */
  static final long MAX_LISTED_ROWS = 10_000_000;

  @Option(
      names = "--rows",
      split = ",",
      paramLabel = "ROW",
      description =
          "Row numbers, comma separated, in the order to print; duplicates allowed; A-B is rows A"
              + " to B, both included (10-20 is 11 rows).")
  List<String> rows;

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
    if (random != null && random > MAX_LISTED_ROWS) {
      // As for --rows: the drawn row numbers are held in memory (2^31 of them would not fit).
      throw usage(
          "--random draws at most "
              + Sizes.count(MAX_LISTED_ROWS)
              + " rows; use scan --offset/--limit for long stretches");
    }
    if (random == null && mixee.commandLine().getParseResult().hasMatchedOption("--seed")) {
      throw usage("--seed is only used with --random");
    }
    if (rows != null) {
      return parseRows(rows);
    }
    return rowsFile == null ? null : readRowsFile(rowsFile);
  }

  /** The numbers of a --rows list: single rows and inclusive ranges A-B, in order. */
  private long[] parseRows(List<String> items) {
    if (items.isEmpty()) {
      // "--rows ," splits into nothing: a mistake, not a request for no rows.
      throw usage("--rows: no row numbers given");
    }
    long total = 0;
    List<long[]> spans = new ArrayList<>();
    for (String item : items) {
      String t = item.strip();
      int dash = t.indexOf('-', 1);
      long a;
      long b;
      try {
        a = Long.parseLong(dash < 0 ? t : t.substring(0, dash).strip());
        b = dash < 0 ? a : Long.parseLong(t.substring(dash + 1).strip());
      } catch (NumberFormatException e) {
        throw usage("--rows: '" + item + "' is not a row number or a range A-B");
      }
      if (a < 0 || b < 0) {
        throw usage("--rows: row numbers are not negative ('" + item + "')");
      }
      if (b < a) {
        throw usage("--rows: range '" + item + "' ends before it starts");
      }
      total += b - a + 1;
      if (total > MAX_LISTED_ROWS || total < 0) {
        throw usage(
            "--rows lists more than "
                + MAX_LISTED_ROWS
                + " rows; use scan --offset/--limit for long stretches");
      }
      spans.add(new long[] {a, b});
    }
    long[] out = new long[(int) total];
    int k = 0;
    for (long[] span : spans) {
      // Counted, not compared with the end: a range ending at Long.MAX_VALUE would never stop.
      for (long n = 0; n <= span[1] - span[0]; n++) {
        out[k++] = span[0] + n;
      }
    }
    return out;
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

  /**
   * Reads row numbers, one a line. Any file that reads as a stream will do, a pipe included ({@code
   * --rows-file <(seq 0 99)}, {@code /dev/stdin}): it is read once, front to back, as {@code cat}
   * would.
   */
  private long[] readRowsFile(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      throw usage(path + " is a directory, not a file of row numbers");
    }
    long[] out = new long[64];
    int n = 0;
    // Strict UTF-8, line by line, so that a byte that is not UTF-8 is reported on its own line.
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try (InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16)) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int lineNo = 0;
      boolean end = false;
      while (!end) {
        bytes.reset();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
          if (bytes.size() == MAX_LINE_BYTES) {
            // A binary file may have no line breaks at all: do not read it into memory.
            throw usage(
                path
                    + " line "
                    + (lineNo + 1)
                    + ": longer than "
                    + MAX_LINE_BYTES
                    + " bytes (a file of row numbers has one decimal number a line)");
          }
          bytes.write(c);
        }
        end = c < 0;
        if (end && bytes.size() == 0) {
          break;
        }
        lineNo++;
        String s;
        try {
          s = utf8.decode(ByteBuffer.wrap(bytes.toByteArray())).toString().strip();
        } catch (CharacterCodingException e) {
          throw usage(
              path
                  + " line "
                  + lineNo
                  + ": not UTF-8 text (a file of row numbers has one decimal number a line)");
        }
        if (s.isEmpty() || s.startsWith("#")) {
          continue;
        }
        if (n == MAX_LISTED_ROWS) {
          throw usage(
              path
                  + " lists more than "
                  + Sizes.count(MAX_LISTED_ROWS)
                  + " rows; use scan --offset/--limit for long stretches");
        }
        if (n == out.length) {
          out = Arrays.copyOf(out, (int) Math.min((long) n * 2, MAX_LISTED_ROWS));
        }
        try {
          out[n] = Long.parseLong(s);
        } catch (NumberFormatException e) {
          throw usage(path + " line " + lineNo + ": " + shown(s) + " is not a row number");
        }
        if (out[n++] < 0) {
          // As --rows says it: a usage error, not a row "out of range".
          throw usage(path + " line " + lineNo + ": row numbers are not negative (" + s + ")");
        }
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** A line for a message: quoted, control characters escaped, long ones cut. */
  private static String shown(String line) {
    StringBuilder b = new StringBuilder("'");
    int limit = 40;
    for (int i = 0; i < line.length() && i < limit; i++) {
      char c = line.charAt(i);
      if (Character.isISOControl(c)) {
        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append(line.length() > limit ? "...'" : "'").toString();
  }

  private ParameterException usage(String message) {
    return new ParameterException(mixee.commandLine(), message);
  }
}
