package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A string label column, as Spark and DuckDB write one: {@code load --label} refuses it and says
 * how to fix it; after {@code convert --categorical} it is a label.
 */
class ConvertCategoricalTest {
  @TempDir Path dir;

  static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message m { required int64 id; optional binary cell_type (STRING); }");

  /** Rows whose label cycles through {@code labels}, null every 10th. */
  static void writeParquet(Path file, int first, int rows, String... labels) throws IOException {
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(SCHEMA)
            .withConf(new PlainParquetConfiguration())
            .build()) {
      for (int i = 0; i < rows; i++) {
        SimpleGroup g = new SimpleGroup(SCHEMA);
        g.add("id", (long) first + i);
        if (i % 10 != 9) {
          g.add("cell_type", labels[i % labels.length]);
        }
        w.write(g);
      }
    }
  }

  String a;
  String b;

  @BeforeEach
  void write() throws IOException {
    a = dir.resolve("a.parquet").toString();
    b = dir.resolve("b.parquet").toString();
    writeParquet(Path.of(a), 0, 1500, "T cell", "B cell");
    writeParquet(Path.of(b), 1500, 1500, "NK cell", "B cell", "monocyte");
  }

  @Test
  void aStringLabelIsRefusedWithTheFixAndWorksAfterCategorical() throws Exception {
    String plain = dir.resolve("plain").toString();
    Cli.ok("convert", "parquet", a, b, plain);
    String[] load = {"--sampler", "balanced", "--block", "8", "--fetch", "4", "--batch", "32"};
    Cli.Result refused =
        Cli.run(concat(new String[] {"load", plain, "--label", "cell_type"}, load));
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .isEqualTo(
            "riffle: label column 'cell_type' is utf8; it must be categorical (dictionary-encoded)"
                + " or an integer; convert the data with --categorical cell_type (riffle convert"
                + " parquet or arrow) to make it one\n");

    String ds = dir.resolve("ds").toString();
    Cli.Result r = Cli.ok("convert", "parquet", a, b, ds, "--categorical", "cell_type");
    assertThat(r.out()).startsWith("converted 3,000 rows from 2 files");
    JsonNode j =
        Json.MAPPER.readTree(
            Cli.ok(concat(new String[] {"load", ds, "--label", "cell_type", "--json"}, load))
                .out());
    assertThat(j.get("classes").asInt()).isEqualTo(4);
    // Diversity by label, through the block sampler.
    Cli.ok("load", ds, "--label", "cell_type", "--batch", "32");
    assertThat(Cli.ok("take", ds, "--rows", "0,1,1500,1502,9").outLines())
        .containsExactly(
            "{\"id\":0,\"cell_type\":\"T cell\"}",
            "{\"id\":1,\"cell_type\":\"B cell\"}",
            "{\"id\":1500,\"cell_type\":\"NK cell\"}",
            "{\"id\":1502,\"cell_type\":\"monocyte\"}",
            "{\"id\":9,\"cell_type\":null}");

    // Arrow IPC input too.
    String arrow = dir.resolve("plain.arrow").toString();
    Cli.ok("export", "arrow", plain, arrow);
    String fromArrow = dir.resolve("from-arrow").toString();
    Cli.ok("convert", "arrow", arrow, fromArrow, "--categorical", "cell_type");
    JsonNode k =
        Json.MAPPER.readTree(
            Cli.ok(concat(new String[] {"load", fromArrow, "--label", "cell_type", "--json"}, load))
                .out());
    assertThat(k.get("classes").asInt()).isEqualTo(4);
  }

  @Test
  void aColumnThatIsNoStringIsOneLineAndLeavesNothing() {
    Path ds = dir.resolve("ds");
    Cli.Result r = Cli.run("convert", "parquet", a, b, ds.toString(), "--categorical", "id");
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.err())
        .isEqualTo(
            "riffle: "
                + a
                + ": --categorical column 'id' is int64, not a string column (utf8 or"
                + " large_utf8)\n");
    assertThat(ds).doesNotExist();
    Cli.Result missing =
        Cli.run("convert", "parquet", a, b, ds.toString(), "--categorical", "cell_type,celltype");
    assertThat(missing.errLines())
        .containsExactly(
            "riffle: "
                + a
                + ": --categorical names no column 'celltype' (the top-level columns are id,"
                + " cell_type)");
    assertThat(ds).doesNotExist();
  }

  @Test
  void helpSaysTheOrderOfTheDictionary() {
    assertThat(Cli.ok("convert", "parquet", "--help").out().replaceAll("\\s+", " "))
        .contains("--categorical=COLUMN")
        .contains("sorted by code point (UTF-8 bytes)");
    assertThat(Cli.ok("convert", "arrow", "--help").out()).contains("--categorical=COLUMN");
  }

  private static String[] concat(String[] x, String[] y) {
    String[] out = java.util.Arrays.copyOf(x, x.length + y.length);
    System.arraycopy(y, 0, out, x.length, y.length);
    return out;
  }
}
