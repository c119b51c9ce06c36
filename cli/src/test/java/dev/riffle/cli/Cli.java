package dev.riffle.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;

/** Runs the command line in-process, capturing what it prints. */
final class Cli {
  private Cli() {}

  record Result(int exitCode, String out, String err) {
    List<String> outLines() {
      return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
    }

    List<String> errLines() {
      return err.isEmpty() ? List.of() : Arrays.asList(err.split("\n"));
    }
  }

  static Result run(String... args) {
    CommandLine cmd = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** Runs a command that must succeed and say nothing on stderr. */
  static Result ok(String... args) {
    Result r = run(args);
    if (r.exitCode() != 0 || !r.err().isEmpty()) {
      throw new AssertionError(
          "riffle " + String.join(" ", args) + " failed with " + r.exitCode() + ": " + r.err());
    }
    return r;
  }
}
