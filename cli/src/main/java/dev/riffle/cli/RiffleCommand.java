package dev.riffle.cli;

import dev.riffle.format.FileLayout;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The top-level {@code riffle} command; it only dispatches to its subcommands. */
@Command(
    name = "riffle",
    mixinStandardHelpOptions = true,
    versionProvider = RiffleCommand.Version.class,
    description = {
      "Inspect, read and generate Riffle files and datasets.",
      "A dataset is a local directory or a URI such as s3a://bucket/prefix (configured by"
          + " RIFFLE_S3_ENDPOINT, RIFFLE_S3_REGION, RIFFLE_S3_ACCESS_KEY, RIFFLE_S3_SECRET_KEY);"
          + " URI@VERSION names a version, the latest without it."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:missing, unreadable or corrupt file or dataset, unknown version, failed validation,"
          + " a concurrent publish, or an internal error",
      "2:bad arguments, including unknown columns and rows out of range"
    },
    subcommands = {
      InspectCommand.class,
      TakeCommand.class,
      ScanCommand.class,
      GenerateCommand.class,
      LsCommand.class,
      InfoCommand.class,
      ValidateCommand.class,
      SplitCommand.class,
      GcCommand.class,
      ConvertCommand.class,
      ExportCommand.class,
      LoadCommand.class,
      DemoCommand.class,
      StageCommand.class,
      // riffle help COMMAND, and a bash/zsh completion script: source <(riffle generate-completion)
      CommandLine.HelpCommand.class,
      AutoComplete.GenerateCompletion.class
    })
public final class RiffleCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(),
        "missing command: one of inspect, take, scan, generate, ls, info, validate, split, gc,"
            + " convert, export, load, stage, demo (riffle help COMMAND explains one)");
  }

  /**
   * The Riffle version (from the jar manifest, absent when run from classes), the file format
   * versions it writes and reads, and the Java and Arrow it runs on.
   */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = RiffleCommand.class.getPackage().getImplementationVersion();
      String arrow = arrowVersion();
      String writes = FileLayout.VERSION_MAJOR + "." + FileLayout.VERSION_MINOR;
      return new String[] {
        "riffle " + (v == null ? "(development build)" : v),
        "file format: writes "
            + writes
            + ", reads "
            + FileLayout.VERSION_MAJOR
            + ".0 and "
            + writes,
        "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")",
        "Arrow Java " + (arrow == null ? "(unknown)" : arrow)
      };
    }

    /** Arrow's version from its Maven properties, which the shaded jar keeps (its manifest not). */
    private static String arrowVersion() {
      try (java.io.InputStream in =
          org.apache.arrow.vector.VectorSchemaRoot.class.getResourceAsStream(
              "/META-INF/maven/org.apache.arrow/arrow-vector/pom.properties")) {
        if (in == null) {
          return null;
        }
        java.util.Properties p = new java.util.Properties();
        p.load(in);
        return p.getProperty("version");
      } catch (java.io.IOException e) {
        return null;
      }
    }
  }
}
