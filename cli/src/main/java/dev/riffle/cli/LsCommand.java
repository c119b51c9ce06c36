package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.RowSets;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.CorruptFileException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle ls URI [--json]}: the published versions of a dataset, one line each, from their
 * manifests alone (no data file is opened). A version whose manifest cannot be read is listed as
 * damaged, with the problem, and the others as usual.
 */
@Command(
    name = "ls",
    mixinStandardHelpOptions = true,
    description = {
      "List the versions of a dataset: version, creation time, data files, rows (total, and"
          + " live: not deleted), bytes of the data files and split names. Reads only manifests;"
          + " a version whose manifest cannot be read is listed as damaged, with the problem."
    })
public final class LsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URI",
      description = "A dataset: a local directory, file:, s3a:// or another Hadoop URI.")
  String location;

  @Option(names = "--json", description = "Print one JSON object instead of a table.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    Locations.Location loc = Locations.parse(location);
    Locations.requireNoVersion(loc, "ls lists every version");
    try (Storage storage = Locations.openDataset(loc, "ls")) {
      List<Long> versions = Dataset.versions(storage);
      PrintWriter out = spec.commandLine().getOut();
      ObjectNode root = Json.MAPPER.createObjectNode();
      root.put("uri", storage.uri());
      ArrayNode list = root.putArray("versions");
      TextTable table =
          new TextTable(">version", "created", ">files", ">rows", ">live", ">bytes", "splits");
      List<String> damaged = new ArrayList<>();
      for (long v : versions) {
        Manifest m;
        try {
          m = Dataset.readManifest(storage, v);
        } catch (CorruptFileException | NoSuchFileException e) {
          // One unreadable manifest must not hide the healthy versions: it is listed as damaged.
          String problem = ErrorHandler.oneLine(e.getMessage());
          ObjectNode node = list.addObject();
          node.put("version", v);
          node.put("damaged", problem);
          table.add(v, "damaged", "-", "-", "-", "-", "-");
          damaged.add("note: version " + v + " is damaged: " + problem);
          continue;
        }
        long bytes = m.files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
        long live = liveRows(m);
        TreeSet<String> splits = new TreeSet<>(m.splits().keySet());
        ObjectNode node = list.addObject();
        node.put("version", v);
        if (m.parentVersion() != null) {
          node.put("parentVersion", m.parentVersion());
        }
        node.put("createdAt", m.createdAt());
        node.put("files", m.files().size());
        node.put("rows", m.totalRows());
        node.put("liveRows", live);
        node.put("bytes", bytes);
        splits.forEach(node.putArray("splits")::add);
        table.add(
            v,
            m.createdAt(),
            Sizes.count(m.files().size()),
            Sizes.count(m.totalRows()),
            Sizes.count(live),
            Sizes.bytes(bytes),
            splits.isEmpty()
                ? "-"
                : String.join(",", splits.stream().map(LsCommand::shown).toList()));
      }
      if (json) {
        out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root));
      } else {
        table.print(out, "");
        damaged.forEach(out::println);
      }
      out.flush();
    }
    return 0;
  }

  /** Rows that are not deleted. */
  static long liveRows(Manifest m) throws IOException {
    return m.deletions() == null
        ? m.totalRows()
        : m.totalRows() - RowSets.decode(m.deletions()).getLongCardinality();
  }

  /**
   * A split name in the comma-separated list: quoted where it holds a comma or a quote, so that the
   * list reads one way ('a,b' is one split, not two).
   */
  static String shown(String split) {
    return split.indexOf(',') < 0 && split.indexOf('\'') < 0 && !split.equals("-")
        ? split
        : "'" + split.replace("'", "''") + "'";
  }
}
