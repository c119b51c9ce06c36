package dev.riffle.cli;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;

/** Entry point of the {@code riffle} command line (the main class of the shaded jar). */
public final class Main {
  private Main() {}

  /** Runs the command line and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line on the process's stdout and stderr, returning the exit code. */
  static int run(String... args) {
    // JSON lines are UTF-8 whatever the platform's default charset (a POSIX locale would
    // otherwise turn non-ASCII strings into '?'); a large buffer keeps scans from being bound by
    // small writes.
    PrintWriter out =
        new PrintWriter(
            new BufferedWriter(
                new OutputStreamWriter(
                    new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8),
                1 << 16));
    PrintWriter err =
        new PrintWriter(
            new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8),
            true);
    CommandLine cmd = commandLine();
    cmd.setOut(out);
    cmd.setErr(err);
    try {
      return cmd.execute(args);
    } catch (OutOfMemoryError e) {
      // Not an Exception, so picocli's handler never sees it; still one line, no stack trace.
      err.println("riffle: out of memory; give the JVM more heap, e.g. RIFFLE_JAVA_OPTS=-Xmx8g");
      return 1;
    } catch (StackOverflowError e) {
      // Nor is this; a bug if it happens (inputs that nest are bounded), but one line all the same.
      err.println("riffle: internal error: stack overflow (run with RIFFLE_DEBUG=1 for details)");
      if ("1".equals(System.getenv("RIFFLE_DEBUG"))) {
        e.printStackTrace(err);
      }
      return 1;
    } finally {
      out.flush();
      err.flush();
    }
  }

  /**
   * One example per command, the help's last lines, on the README's data (README, Using the CLI):
   * the line a newcomer copies first. Keyed by the command's full name. Each is a command of the
   * README's (ConveniencesTest), so that ReadmeCommandsIT runs it, and fits one line of help.
   */
  static final Map<String, String> EXAMPLES =
      Map.ofEntries(
          Map.entry("riffle", "riffle generate sparse cells.riffle --rows 2000 --seed 1"),
          Map.entry("riffle inspect", "riffle inspect cells.riffle"),
          Map.entry("riffle take", "riffle take cells.riffle --rows 10-12,3 --columns plate"),
          Map.entry(
              "riffle scan",
              "riffle scan cells.riffle --columns plate --offset 100 --limit 3 --with-row-id"),
          Map.entry(
              "riffle generate",
              "riffle generate cells cells/ --rows 20000 --seed 1 --genes 2000 --files 4"),
          Map.entry("riffle ls", "riffle ls cells"),
          Map.entry("riffle info", "riffle info cells@1 --files"),
          Map.entry("riffle validate", "riffle validate cells --deep"),
          Map.entry(
              "riffle split",
              "riffle split cells --name train --fraction 0.9 --seed 7 --rest test"),
          Map.entry("riffle gc", "riffle gc cells --dry-run"),
          Map.entry("riffle convert", "riffle convert parquet cells.parquet from-parquet/"),
          Map.entry("riffle convert parquet", "riffle convert parquet cells.parquet from-parquet/"),
          Map.entry("riffle convert arrow", "riffle convert arrow cells.arrow from-arrow/"),
          Map.entry("riffle convert h5ad", "riffle convert h5ad pbmc.h5ad pbmc/"),
          Map.entry("riffle export", "riffle export parquet cells@1 cells.parquet"),
          Map.entry("riffle export parquet", "riffle export parquet cells@1 cells.parquet"),
          Map.entry("riffle export arrow", "riffle export arrow cells@1 cells.arrow"),
          Map.entry(
              "riffle load",
              "riffle load cells --sampler block --block 16 --fetch 256 --label plate"),
          Map.entry("riffle demo", "riffle demo"),
          Map.entry(
              "riffle stage",
              "riffle stage s3a://riffle-test/cells@1 --cache /nvme/riffle-cache --threads 16"),
          Map.entry("riffle help", "riffle help take"),
          Map.entry("riffle generate-completion", "source <(riffle generate-completion)"));

  private static void addExamples(CommandLine cmd, String name) {
    String example = EXAMPLES.get(name);
    if (example != null) {
      cmd.getCommandSpec().usageMessage().footer("", "Example:", "  " + example);
    }
    cmd.getSubcommands().forEach((sub, line) -> addExamples(line, name + " " + sub));
  }

  /**
   * A fresh command line with all subcommands and the error handling installed. Tests call this and
   * set their own writers with {@link CommandLine#setOut} and {@link CommandLine#setErr}.
   */
  public static CommandLine commandLine() {
    CommandLine cmd = new CommandLine(new RiffleCommand());
    addExamples(cmd, "riffle");
    ErrorHandler handler = new ErrorHandler();
    cmd.setParameterExceptionHandler(handler);
    cmd.setExecutionExceptionHandler(handler);
    return cmd;
  }
}
