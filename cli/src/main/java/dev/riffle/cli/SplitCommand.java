package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.RowSets;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetVersions;
import dev.riffle.format.io.Numbers;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle split URI --name train --fraction 0.9 --seed S [--rest test]}: publishes a new
 * version whose split {@code name} holds each live row with probability {@code fraction}, decided
 * by a hash of (seed, row): the same rows for the same seed on any machine. No data is rewritten.
 */
@Command(
    name = "split",
    mixinStandardHelpOptions = true,
    description = {
      "Publish a new version of a dataset with a random split: each live row of the latest"
          + " version goes to split NAME with probability F, by a hash of (seed, row) that gives"
          + " the same rows for the same seed anywhere; with --rest, the other live rows go to"
          + " split NAME2. Existing splits are kept (one of the same name is replaced). Prints the"
          + " new version and the split sizes."
    })
public final class SplitCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "URI", description = "A dataset (its latest version).")
  String location;

  @Option(names = "--name", required = true, paramLabel = "NAME", description = "The split.")
  String name;

  @Option(
      names = "--fraction",
      required = true,
      paramLabel = "F",
      description = "Probability of a row being in the split, in [0, 1].")
  double fraction;

  @Option(names = "--seed", required = true, paramLabel = "S", description = "Random seed.")
  long seed;

  @Option(names = "--rest", paramLabel = "NAME2", description = "A split of the other live rows.")
  String rest;

  @Option(
      names = "--json",
      description = "Print one JSON object instead: uri, version, splits (name: rows).")
  boolean json;

  @Override
  public Integer call() throws IOException {
    Locations.Location loc = Locations.parse(location);
    Locations.requireNoVersion(loc, "a split is always made from the latest version");
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new ParameterException(
          spec.commandLine(), "--fraction must be in [0, 1], not " + Numbers.text(fraction));
    }
    if (name.isBlank() || (rest != null && rest.isBlank())) {
      throw new IllegalArgumentException("split names must not be blank");
    }
    try (Storage storage = Locations.openDataset(loc, "split")) {
      Manifest m = DatasetVersions.randomSplit(storage, name, fraction, seed, rest);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("uri", storage.uri());
        o.put("version", m.version());
        ObjectNode splits = o.putObject("splits");
        splits.put(name, RowSets.decode(m.splits().get(name)).getLongCardinality());
        if (rest != null) {
          splits.put(rest, RowSets.decode(m.splits().get(rest)).getLongCardinality());
        }
        out.println(Json.line(o));
        out.flush();
        return 0;
      }
      out.println("published version " + m.version() + " of " + storage.uri());
      TextTable table = new TextTable("split", ">rows");
      table.add(name, Sizes.count(RowSets.decode(m.splits().get(name)).getLongCardinality()));
      if (rest != null) {
        table.add(rest, Sizes.count(RowSets.decode(m.splits().get(rest)).getLongCardinality()));
      }
      table.print(out, "  ");
      out.flush();
    }
    return 0;
  }
}
