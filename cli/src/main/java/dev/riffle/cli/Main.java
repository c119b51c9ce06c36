package dev.riffle.cli;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
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
    } finally {
      out.flush();
      err.flush();
    }
  }

  /**
   * A fresh command line with all subcommands and the error handling installed. Tests call this and
   * set their own writers with {@link CommandLine#setOut} and {@link CommandLine#setErr}.
   */
  public static CommandLine commandLine() {
    CommandLine cmd = new CommandLine(new RiffleCommand());
    ErrorHandler handler = new ErrorHandler();
    cmd.setParameterExceptionHandler(handler);
    cmd.setExecutionExceptionHandler(handler);
    return cmd;
  }
}
