package dev.riffle.cli;

import picocli.CommandLine.Option;

/**
 * The {@code --json} option of commands that share a summary printer (convert's and export's
 * subcommands): one JSON object on stdout instead of the summary line, raw numbers, no units.
 */
final class JsonOutput {
  @Option(
      names = "--json",
      description = "Print one JSON object instead of the summary line (raw counts and bytes).")
  boolean json;
}
