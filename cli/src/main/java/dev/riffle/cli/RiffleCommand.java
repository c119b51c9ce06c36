package dev.riffle.cli;

import java.util.concurrent.Callable;
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
    description = "Inspect, read and generate Riffle files.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:missing, unreadable or corrupt file, or an internal error",
      "2:bad arguments, including unknown columns and rows out of range"
    },
    subcommands = {
      InspectCommand.class,
      TakeCommand.class,
      ScanCommand.class,
      GenerateCommand.class,
      DemoCommand.class
    })
public final class RiffleCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(), "missing command: one of inspect, take, scan, generate, demo");
  }

  /** Reads the version from the jar manifest, which is absent when run from classes. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = RiffleCommand.class.getPackage().getImplementationVersion();
      return new String[] {"riffle " + (v == null ? "(development build)" : v)};
    }
  }
}
