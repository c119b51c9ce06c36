package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.format.ColumnInfo;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageStats;
import dev.riffle.format.read.RecordCensus;
import dev.riffle.format.read.ScanCursor;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeNames;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code riffle inspect FILE [--json] [--raw] [--records]}: the schema, size and format version of
 * a file, and for each stored column the layouts its pages use, what its metadata costs on disk and
 * in memory, and whether its pages carry statistics (format 1.4; with {@code --json}, each field's
 * null count and bounds over the whole file); with {@code --records}, how its records are encoded
 * and why.
 */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Show a file's schema, row count, size and format version, and per stored column: pages,"
          + " layouts, sectors, data bytes, metadata bytes on disk, search metadata held in"
          + " RAM, and whether pages carry statistics (with --json: each field's null count and"
          + " min/max over the file)."
    })
public final class InspectCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "A Riffle file.")
  Path file;

  @Option(names = "--json", description = "Print one JSON object instead of tables.")
  boolean json;

  @Option(
      names = "--raw",
      description =
          "Also scan the whole file and report each column's size as Arrow buffers in memory"
              + " (values, offsets, validity): the raw data size the file size compares to.")
  boolean raw;

  @Option(
      names = "--wide",
      description =
          "Show every column of the per-column table: the fields of each stored column, page"
              + " layouts, sectors and metadata bytes on disk (the default table fits 100"
              + " columns).")
  boolean wide;

  @Option(
      names = "--records",
      description =
          "Also read every zipped page and count each column's records by encoding (plain,"
              + " packed, zstd, split, null) with their bytes, and say why the writer chose it.")
  boolean records;

  /** Why the writer picks each record kind (FORMAT.md §5.5), for --records. */
  static final String RECORD_RULES =
      "plain: no candidate qualified; packed: integer lists and integer-valued float lists"
          + " bit-packed, other float lists as a dictionary of their distinct values and"
          + " bit-packed indices where that is shorter, kept at <= 19/20 of plain; zstd: records >= 2 KiB whose frame is <= 3/4"
          + " of plain and of packed (an inflate per read must buy a quarter); split: float byte"
          + " planes (option splitFloats), kept at <= 19/20; the smallest qualifying candidate wins."
          + " Sector pages hold narrow rows, many to a 4 KiB sector: fixed-width values flat or"
          + " frame-of-reference, lists of fixed-width items as lists (float items as decimals,"
          + " n / 10^e bit-packed, where that holds a quarter more rows), other rows as records;"
          + " zstd where a sector then holds a quarter more rows.";

  @Override
  public Integer call() throws IOException {
    try (OpenedFile opened = OpenedFile.open(file)) {
      FileReader reader = opened.reader();
      // describe() loads every column's metadata: a figure of what a reader of all columns holds.
      List<ColumnInfo> columns = reader.describe();
      Map<String, PageStats> stats = fileStats(reader);
      Map<String, Long> arrowBytes = raw ? arrowBytes(reader) : null;
      List<RecordCensus> census = records ? census(reader) : null;
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(
            Json.MAPPER
                .writerWithDefaultPrettyPrinter()
                .writeValueAsString(toJson(reader, columns, stats, arrowBytes, census)));
      } else {
        printTables(out, reader, columns, stats, arrowBytes);
        if (census != null) {
          printCensus(out, columns, census);
        }
      }
      out.flush();
    }
    return 0;
  }

  /**
   * Each field's page statistics merged over the file, by field name; fields of a file without
   * statistics (format 1.0) or without pages are absent.
   */
  private static Map<String, PageStats> fileStats(FileReader reader) throws IOException {
    Map<String, PageStats> out = new LinkedHashMap<>();
    for (Field f : reader.schema().fields()) {
      List<PageStats> pages = reader.pageStats(f.getName());
      if (!pages.isEmpty()) {
        out.put(f.getName(), PageStats.merge(pages));
      }
    }
    return out;
  }

  private static List<RecordCensus> census(FileReader reader) throws IOException {
    List<RecordCensus> out = new java.util.ArrayList<>();
    for (int c = 0; c < reader.schema().columns().size(); c++) {
      out.add(reader.recordCensus(c));
    }
    return out;
  }

  private static void printCensus(
      PrintWriter out, List<ColumnInfo> columns, List<RecordCensus> census) {
    out.println();
    TextTable t = new TextTable("column", "records (count, stored bytes, bytes/record)");
    for (int c = 0; c < columns.size(); c++) {
      RecordCensus rc = census.get(c);
      StringBuilder b = new StringBuilder();
      for (int k = 0; k < RecordCensus.KIND_NAMES.length; k++) {
        if (rc.counts()[k] > 0) {
          b.append(b.length() == 0 ? "" : "; ")
              .append(RecordCensus.KIND_NAMES[k])
              .append(' ')
              .append(Sizes.count(rc.counts()[k]))
              .append(", ")
              .append(Sizes.bytes(rc.bytes()[k]));
          if (k != RecordCensus.KIND_NULL) {
            b.append(", ")
                .append(
                    String.format(Locale.ROOT, "%.0f", (double) rc.bytes()[k] / rc.counts()[k]));
          }
        }
      }
      if (rc.sectorRows() > 0) {
        b.append(b.length() == 0 ? "" : "; ")
            .append(Sizes.count(rc.sectorRows(), "row"))
            .append(" in sectors:");
        for (int k = 0; k < RecordCensus.SECTOR_NAMES.length; k++) {
          if (rc.sectors()[k] == 0) {
            continue;
          }
          b.append(' ').append(RecordCensus.SECTOR_NAMES[k]).append(' ');
          b.append(Sizes.count(rc.sectors()[k]));
          List<String> of = new java.util.ArrayList<>();
          if (rc.zstdSectors()[k] > 0) {
            of.add(Sizes.count(rc.zstdSectors()[k]) + " zstd");
          }
          if (k == 3 && rc.packedItemSectors() > 0) {
            of.add(Sizes.count(rc.packedItemSectors()) + " decimal items");
          }
          b.append(of.isEmpty() ? "" : " (" + String.join(", ", of) + ")");
        }
      }
      t.add(columns.get(c).name(), b);
    }
    t.print(out, "");
    out.println("why: " + RECORD_RULES);
  }

  /** Arrow buffer bytes per top-level field over a full scan. */
  private static Map<String, Long> arrowBytes(FileReader reader) throws IOException {
    Map<String, Long> bytes = new java.util.LinkedHashMap<>();
    ScanCursor cursor = reader.scan(null, 65_536);
    VectorSchemaRoot batch;
    while ((batch = cursor.next()) != null) {
      try (VectorSchemaRoot b = batch) {
        for (FieldVector v : b.getFieldVectors()) {
          bytes.merge(v.getName(), (long) v.getBufferSize(), Long::sum);
        }
      }
    }
    return bytes;
  }

  private static long arrowBytesOf(ColumnInfo c, Map<String, Long> arrowBytes) {
    long sum = 0;
    for (String f : c.fields()) {
      sum += arrowBytes.getOrDefault(f, 0L);
    }
    return sum;
  }

  private ObjectNode toJson(
      FileReader reader,
      List<ColumnInfo> columns,
      Map<String, PageStats> stats,
      Map<String, Long> arrowBytes,
      List<RecordCensus> census)
      throws IOException {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("file", file.toString());
    root.put("formatVersion", reader.formatVersion());
    root.put("rows", reader.rowCount());
    root.put("bytes", reader.byteLength());
    ArrayNode schema = root.putArray("schema");
    RiffleSchema rs = reader.schema();
    for (int f = 0; f < rs.fields().size(); f++) {
      Field field = rs.fields().get(f);
      ObjectNode node = schema.addObject();
      node.put("name", field.getName());
      node.put("type", TypeNames.of(field, rs.dictionaryValues(f)));
      node.put("nullable", field.isNullable());
      if (field.getDictionary() != null) {
        DictionaryJson.put(node, field, rs.dictionaryValues(f), reader.dictionaries());
      }
    }
    ArrayNode cols = root.putArray("columns");
    for (int ci = 0; ci < columns.size(); ci++) {
      ColumnInfo c = columns.get(ci);
      ObjectNode node = cols.addObject();
      node.put("name", c.name());
      ArrayNode fields = node.putArray("fields");
      c.fields().forEach(fields::add);
      node.put("pages", c.pages());
      ObjectNode layouts = node.putObject("layouts");
      for (Map.Entry<String, Integer> e : c.layouts().entrySet()) {
        layouts.put(e.getKey(), e.getValue());
      }
      node.put("sectors", c.sectors());
      node.put("dataBytes", c.dataBytes());
      node.put("blockBytes", c.blockBytes());
      node.put("ramBytes", c.ramBytes());
      node.put("ramPercent", ramPercent(c));
      if (arrowBytes != null) {
        node.put("arrowBytes", arrowBytesOf(c, arrowBytes));
      }
      node.put("hasStats", hasStats(c, stats));
      if (hasStats(c, stats)) {
        ObjectNode fieldStats = node.putObject("stats");
        for (String f : c.fields()) {
          Field field = rs.fields().get(rs.fieldIndex(f));
          fieldStats.set(f, StatsJson.of(stats.get(f), field.getType()));
        }
      }
      if (census != null) {
        ObjectNode recs = node.putObject("records");
        RecordCensus rc = census.get(ci);
        for (int k = 0; k < RecordCensus.KIND_NAMES.length; k++) {
          ObjectNode kind = recs.putObject(RecordCensus.KIND_NAMES[k]);
          kind.put("count", rc.counts()[k]);
          kind.put("bytes", rc.bytes()[k]);
        }
        recs.put("sectorRows", rc.sectorRows());
        ObjectNode sectors = recs.putObject("sectors");
        for (int k = 0; k < RecordCensus.SECTOR_NAMES.length; k++) {
          ObjectNode kind = sectors.putObject(RecordCensus.SECTOR_NAMES[k]);
          kind.put("count", rc.sectors()[k]);
          kind.put("zstd", rc.zstdSectors()[k]);
          if (k == 3) {
            kind.put("decimalItems", rc.packedItemSectors());
          }
        }
      }
    }
    if (census != null) {
      root.put("recordRules", RECORD_RULES);
    }
    return root;
  }

  /** Whether the pages of a column carry statistics (those of a 1.4 file with pages do). */
  private static boolean hasStats(ColumnInfo c, Map<String, PageStats> stats) {
    return stats.containsKey(c.fields().get(0));
  }

  private void printTables(
      PrintWriter out,
      FileReader reader,
      List<ColumnInfo> columns,
      Map<String, PageStats> stats,
      Map<String, Long> arrowBytes) {
    out.println("file            " + file);
    out.println("format version  " + reader.formatVersion());
    out.println("rows            " + Sizes.count(reader.rowCount()));
    out.println("bytes           " + Sizes.bytes(reader.byteLength()));
    out.println();
    TextTable schema = new TextTable("field", "type", "nullable");
    RiffleSchema rs = reader.schema();
    for (int f = 0; f < rs.fields().size(); f++) {
      Field field = rs.fields().get(f);
      schema.add(
          field.getName(),
          TypeNames.of(field, rs.dictionaryValues(f)),
          field.isNullable() ? "yes" : "no");
    }
    schema.print(out, "");
    out.println();
    // The default table fits 100 columns; --wide adds the fields, layouts, sectors and metadata.
    List<String> titles = new ArrayList<>(List.of("column"));
    titles.addAll(
        wide
            ? List.of("fields", ">pages", "layouts", ">sectors", ">data", ">block", ">ram", ">ram%")
            : List.of(">pages", ">data", ">ram", ">ram%"));
    if (arrowBytes != null) {
      titles.addAll(List.of(">arrow", ">data/arrow"));
    }
    titles.add("stats");
    TextTable table = new TextTable(titles.toArray(String[]::new));
    long data = 0;
    long block = 0;
    long ram = 0;
    for (ColumnInfo c : columns) {
      StringBuilder layouts = new StringBuilder();
      for (Map.Entry<String, Integer> e : c.layouts().entrySet()) {
        layouts.append(layouts.length() == 0 ? "" : " ").append(e.getKey()).append('=');
        layouts.append(Sizes.count(e.getValue()));
      }
      List<Object> row = new ArrayList<>(List.of(c.name()));
      if (wide) {
        row.addAll(
            List.of(
                String.join(",", c.fields()),
                Sizes.count(c.pages()),
                layouts.length() == 0 ? "-" : layouts,
                Sizes.count(c.sectors()),
                Sizes.bytes(c.dataBytes()),
                Sizes.bytes(c.blockBytes())));
      } else {
        row.addAll(List.of(Sizes.count(c.pages()), Sizes.bytes(c.dataBytes())));
      }
      row.addAll(List.of(Sizes.bytes(c.ramBytes()), percent(c.ramBytes(), c.dataBytes())));
      if (arrowBytes != null) {
        long arrow = arrowBytesOf(c, arrowBytes);
        row.addAll(List.of(Sizes.bytes(arrow), ratio(c.dataBytes(), arrow)));
      }
      row.add(hasStats(c, stats) ? "yes" : "-");
      table.add(row.toArray());
      data += c.dataBytes();
      block += c.blockBytes();
      ram += c.ramBytes();
    }
    List<Object> total = new ArrayList<>(List.of("(total)"));
    if (wide) {
      total.addAll(List.of("", "", "", "", Sizes.bytes(data), Sizes.bytes(block)));
    } else {
      total.addAll(List.of("", Sizes.bytes(data)));
    }
    total.addAll(List.of(Sizes.bytes(ram), percent(ram, data)));
    if (arrowBytes != null) {
      long arrow = 0;
      for (long b : arrowBytes.values()) {
        arrow += b;
      }
      total.addAll(List.of(Sizes.bytes(arrow), ratio(reader.byteLength(), arrow) + " (file)"));
    }
    total.add("");
    table.add(total.toArray());
    table.print(out, "");
  }

  private static String ratio(long a, long b) {
    return String.format(Locale.ROOT, "%.3f", b == 0 ? 0.0 : (double) a / b);
  }

  private static double ramPercent(ColumnInfo c) {
    return c.dataBytes() == 0 ? 0 : 100.0 * c.ramBytes() / c.dataBytes();
  }

  private static String percent(long part, long whole) {
    return String.format(Locale.ROOT, "%.3f%%", whole == 0 ? 0.0 : 100.0 * part / whole);
  }

  static String humanBytes(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
