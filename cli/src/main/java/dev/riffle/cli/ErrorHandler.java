package dev.riffle.cli;

import dev.riffle.format.CorruptFileException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure into exactly one line {@code riffle: <message>} on stderr and an exit code:
 * {@value #USAGE} for bad arguments (including an unknown column or a row out of range, which the
 * reader reports as {@link IllegalArgumentException}), {@value #FAILURE} for missing, unreadable or
 * corrupt files and anything unexpected. Stack traces are printed only with {@code RIFFLE_DEBUG=1},
 * because users of a command line need the message, not the call chain.
 */
final class ErrorHandler implements IParameterExceptionHandler, IExecutionExceptionHandler {
  /** Exit code for data and I/O errors. */
  static final int FAILURE = 1;

  /** Exit code for usage errors. */
  static final int USAGE = 2;

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine cmd = ex.getCommandLine();
    String help = cmd.getCommandSpec().qualifiedName() + " --help";
    return report(cmd.getErr(), ex, oneLine(ex.getMessage()) + " (see '" + help + "')", USAGE);
  }

  @Override
  public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
    if (ex instanceof ParameterException) {
      return handleParseException((ParameterException) ex, new String[0]);
    }
    Throwable e = ex;
    if (e instanceof UncheckedIOException && e.getCause() != null) {
      e = e.getCause();
    }
    PrintWriter err = cmd.getErr();
    if (noS3Credentials(e)) {
      // S3A's own message names the AWS SDK's variables; riffle reads its own.
      return report(
          err,
          e,
          "no S3 credentials"
              + (e instanceof FileSystemException f && f.getFile() != null
                  ? " for " + f.getFile()
                  : "")
              + ": set RIFFLE_S3_ACCESS_KEY and RIFFLE_S3_SECRET_KEY (and RIFFLE_S3_ENDPOINT,"
              + " RIFFLE_S3_REGION for a server other than AWS S3)",
          FAILURE);
    }
    if (e instanceof NoSuchFileException) {
      return report(err, e, "no such file: " + fileOf((FileSystemException) e), FAILURE);
    }
    if (e instanceof AccessDeniedException) {
      return report(err, e, "permission denied: " + fileOf((FileSystemException) e), FAILURE);
    }
    if (e instanceof FileSystemException f && f.getReason() == null && f.getFile() != null) {
      // The JDK's FileAlreadyExistsException and NotDirectoryException carry only the path.
      return report(err, e, f.getFile() + ": " + whatIsWrong(f), FAILURE);
    }
    if (e instanceof CorruptFileException) {
      // The message already names the file and the byte offset.
      return report(err, e, "corrupt file: " + oneLine(e.getMessage()), FAILURE);
    }
    if (e instanceof IOException) {
      return report(err, e, oneLine(e.getMessage()), FAILURE);
    }
    if (e instanceof IllegalArgumentException) {
      return report(err, e, oneLine(e.getMessage()), USAGE);
    }
    return report(
        err,
        e,
        "internal error: "
            + e.getClass().getName()
            + ": "
            + oneLine(e.getMessage())
            + " (run with RIFFLE_DEBUG=1 for details)",
        FAILURE);
  }

  /** S3A's exceptions for "no access key" (default chain, or keys that the configuration lacks). */
  private static final List<String> NO_CREDENTIALS =
      List.of("NoAuthWithAWSException", "NoAwsCredentialsException");

  /** S3A found no access key: one of {@link #NO_CREDENTIALS}, anywhere in the cause chain. */
  static boolean noS3Credentials(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (String name : NO_CREDENTIALS) {
        if (t.getClass().getSimpleName().equals(name)
            || (t.getMessage() != null && t.getMessage().contains(name))) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static int report(PrintWriter err, Throwable e, String message, int code) {
    err.println("riffle: " + message);
    if ("1".equals(System.getenv("RIFFLE_DEBUG"))) {
      e.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  /** What an exception that carries only a path means, in words. */
  private static String whatIsWrong(FileSystemException e) {
    if (e instanceof FileAlreadyExistsException) {
      return Files.isDirectory(Path.of(e.getFile()))
          ? "exists already"
          : "exists already, and is not a directory";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "a directory that is not empty";
    }
    return e.getClass().getSimpleName().replaceAll("Exception$", "");
  }

  private static String fileOf(FileSystemException e) {
    String reason = e.getReason();
    return e.getFile() + (reason == null ? "" : " (" + reason + ")");
  }

  /** The message on one line, so that the error is always exactly one line. */
  static String oneLine(String message) {
    if (message == null || message.isBlank()) {
      return "(no message)";
    }
    return message.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
  }
}
