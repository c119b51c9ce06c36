package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.Manifest;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeNames;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.types.pojo.Field;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle info URI[@v] [--json] [--files]}: what a version's manifest says: identity, schema,
 * size, splits, deletions and where the data came from. Only the manifest is read, and with {@code
 * --json} each categorical's dictionary (one read per data file and categorical field).
 */
@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    description = {
      "Show a dataset version's manifest: dataset id, version, parent, creation time, schema,"
          + " files (count, bytes, rows), splits with their live rows, deleted rows, provenance,"
          + " license, citation and metadata. Reads only the manifest, and with --json the"
          + " categoricals' dictionaries (values in code order, ordered flag)."
    })
public final class InfoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URI[@VERSION]",
      description = "A dataset, optionally with @VERSION (default: the latest).")
  String location;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Option(
      names = "--files",
      description = "Also list every data file: path, bytes, rows, first row, SHA-256.")
  boolean files;

  @Override
  public Integer call() throws IOException {
    Locations.Location loc = Locations.parse(location);
    try (OpenedDataset opened = OpenedDataset.open(loc, "info")) {
      Dataset d = opened.dataset();
      Summary s = new Summary(d);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(toJson(d, s)));
      } else {
        printText(out, d, s);
      }
      out.flush();
    }
    return 0;
  }

  /** The figures both outputs show. */
  private static final class Summary {
    final long bytes;
    final long deleted;
    final Map<String, Long> splits = new TreeMap<>();

    Summary(Dataset d) throws IOException {
      bytes = d.manifest().files().stream().mapToLong(Manifest.DataFile::byteLength).sum();
      deleted = d.totalRows() - d.rowCount();
      for (String name : d.splitNames()) {
        splits.put(name, d.split(name).rowCount());
      }
    }
  }

  private ObjectNode toJson(Dataset d, Summary s) throws IOException {
    Manifest m = d.manifest();
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("uri", d.storage().uri());
    root.put("datasetId", m.datasetId());
    root.put("version", m.version());
    if (m.parentVersion() != null) {
      root.put("parentVersion", m.parentVersion());
    } else {
      root.putNull("parentVersion");
    }
    root.put("createdAt", m.createdAt());
    root.put("rows", d.totalRows());
    root.put("liveRows", d.rowCount());
    root.put("deletedRows", s.deleted);
    root.put("fileCount", m.files().size());
    root.put("bytes", s.bytes);
    ArrayNode schema = root.putArray("schema");
    RiffleSchema rs = d.schema();
    for (int f = 0; f < rs.fields().size(); f++) {
      Field field = rs.fields().get(f);
      ObjectNode node = schema.addObject();
      node.put("name", field.getName());
      node.put("type", TypeNames.of(field, rs.dictionaryValues(f)));
      node.put("nullable", field.isNullable());
      if (field.getDictionary() != null) {
        DictionaryJson.put(node, field, rs.dictionaryValues(f), d.dictionaries());
      }
    }
    if (files) {
      ArrayNode list = root.putArray("files");
      for (Manifest.DataFile f : m.files()) {
        ObjectNode node = list.addObject();
        node.put("path", f.path());
        node.put("bytes", f.byteLength());
        node.put("rows", f.rowCount());
        node.put("firstRow", f.firstRow());
        node.put("sha256", f.sha256());
      }
    }
    ObjectNode splits = root.putObject("splits");
    s.splits.forEach(splits::put);
    root.set("provenance", Json.MAPPER.valueToTree(m.provenance()));
    root.put("license", m.license());
    root.set("citation", Json.MAPPER.valueToTree(m.citation()));
    root.set("metadata", Json.MAPPER.valueToTree(new TreeMap<>(m.metadata())));
    return root;
  }

  private void printText(PrintWriter out, Dataset d, Summary s) {
    Manifest m = d.manifest();
    Map<String, String> lines = new LinkedHashMap<>();
    lines.put("dataset", d.storage().uri());
    lines.put("dataset id", m.datasetId());
    lines.put(
        "version",
        m.version() + (m.parentVersion() == null ? "" : " (parent " + m.parentVersion() + ")"));
    lines.put("created", m.createdAt());
    String rows = Sizes.count(d.totalRows());
    if (s.deleted > 0) {
      rows += " (" + Sizes.count(d.rowCount()) + " live, " + Sizes.count(s.deleted) + " deleted)";
    }
    lines.put("rows", rows);
    lines.put("files", Sizes.count(m.files().size()) + ", " + Sizes.bytes(s.bytes));
    lines.put("provenance", provenance(m.provenance()));
    lines.put("license", m.license() == null ? "-" : m.license());
    lines.put("citation", citation(m.citation()));
    StringBuilder meta = new StringBuilder();
    new TreeMap<>(m.metadata())
        .forEach((k, v) -> meta.append(meta.length() == 0 ? "" : ", ").append(k + "=" + v));
    lines.put("metadata", meta.length() == 0 ? "-" : meta.toString());
    lines.forEach((k, v) -> out.println(String.format(Locale.ROOT, "%-12s%s", k, v)));
    out.println();
    TextTable schema = new TextTable("field", "type", "nullable");
    RiffleSchema rs = d.schema();
    for (int f = 0; f < rs.fields().size(); f++) {
      Field field = rs.fields().get(f);
      schema.add(
          field.getName(),
          TypeNames.of(field, rs.dictionaryValues(f)),
          field.isNullable() ? "yes" : "no");
    }
    schema.print(out, "");
    if (!s.splits.isEmpty()) {
      out.println();
      TextTable splits = new TextTable("split", ">rows");
      s.splits.forEach((name, n) -> splits.add(name, Sizes.count(n)));
      splits.print(out, "");
    }
    if (files) {
      out.println();
      TextTable table = new TextTable("path", ">bytes", ">rows", ">firstRow", "sha256");
      for (Manifest.DataFile f : m.files()) {
        table.add(
            f.path(),
            Sizes.bytes(f.byteLength()),
            Sizes.count(f.rowCount()),
            Sizes.count(f.firstRow()),
            f.sha256());
      }
      table.print(out, "");
    }
  }

  private static String provenance(Manifest.Provenance p) {
    if (p == null) {
      return "-";
    }
    StringBuilder b = new StringBuilder(String.valueOf(p.tool()));
    if (p.toolVersion() != null) {
      b.append(' ').append(p.toolVersion());
    }
    for (Manifest.Source src : p.sources()) {
      b.append("; source ").append(src.uri());
      if (src.byteLength() != null) {
        b.append(", ").append(Sizes.bytes(src.byteLength()));
      }
      if (src.sha256() != null) {
        b.append(", sha256 ").append(src.sha256());
      }
    }
    return b.toString();
  }

  private static String citation(Manifest.Citation c) {
    if (c == null) {
      return "-";
    }
    StringBuilder b = new StringBuilder();
    if (c.title() != null) {
      b.append(c.title());
    }
    if (!c.authors().isEmpty()) {
      b.append(b.length() == 0 ? "" : "; ").append(String.join(", ", c.authors()));
    }
    if (c.doi() != null) {
      b.append(b.length() == 0 ? "" : "; ").append("doi:").append(c.doi());
    }
    return b.length() == 0 ? "-" : b.toString();
  }
}
