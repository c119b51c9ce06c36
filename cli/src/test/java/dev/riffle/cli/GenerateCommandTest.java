package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GenerateCommandTest {
  @TempDir Path dir;

  static Stream<Arguments> kinds() {
    return Stream.of(
        Arguments.of("scalars", 2000),
        Arguments.of("vectors", 300),
        Arguments.of("sparse", 300),
        Arguments.of("cells", 100),
        Arguments.of("atoms", 1000),
        Arguments.of("lance8", 20));
  }

  @ParameterizedTest
  @MethodSource("kinds")
  void sameSeedGivesSameBytesAndAnotherSeedDoesNot(String kind, int rows) throws Exception {
    Path a = dir.resolve(kind + "-a.riffle");
    Path b = dir.resolve(kind + "-b.riffle");
    Path c = dir.resolve(kind + "-c.riffle");
    Cli.Result r = Cli.ok("generate", kind, a.toString(), "--rows", "" + rows, "--seed", "7");
    Cli.ok("generate", kind, b.toString(), "--rows", "" + rows, "--seed", "7");
    Cli.ok("generate", kind, c.toString(), "--rows", "" + rows, "--seed", "8");

    assertThat(r.outLines())
        .containsExactly(
            "wrote " + Sizes.count(rows, "row") + " (" + Sizes.bytes(Files.size(a)) + ") to " + a);
    assertThat(Files.readAllBytes(b)).isEqualTo(Files.readAllBytes(a));
    assertThat(Files.readAllBytes(c)).isNotEqualTo(Files.readAllBytes(a));
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", a.toString(), "--json").out());
    assertThat(info.get("rows").asLong()).isEqualTo(rows);
    assertThat(info.get("bytes").asLong()).isEqualTo(Files.size(a));
  }

  @Test
  void helpDescribesEveryKindAndPrintsNothingElse() {
    // Descriptions are format strings: picocli warns about a bare '%' on System.err, not on the
    // command line's writer that Cli captures.
    PrintStream stderr = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    Cli.Result r;
    System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
    try {
      r = Cli.ok("generate", "--help");
    } finally {
      System.setErr(stderr);
    }
    assertThat(warnings.toString(StandardCharsets.UTF_8)).isEmpty();
    for (String kind : GenerateCommand.KINDS.keySet()) {
      assertThat(r.out()).contains("\n  " + kind + " ");
    }
    assertThat(r.out()).contains("(10% null)");
  }

  @Test
  void pageBytesChangesThePageCount() throws Exception {
    Path big = dir.resolve("big.riffle");
    Path small = dir.resolve("small.riffle");
    Cli.ok("generate", "vectors", big.toString(), "--rows", "200", "--seed", "1");
    Cli.ok(
        "generate",
        "vectors",
        small.toString(),
        "--rows",
        "200",
        "--seed",
        "1",
        "--page-bytes",
        "65536");
    assertThat(pages(small, "embedding")).isGreaterThan(pages(big, "embedding"));
  }

  private static int pages(Path file, String column) throws Exception {
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", file.toString(), "--json").out());
    for (JsonNode c : info.get("columns")) {
      if (c.get("name").asText().equals(column)) {
        return c.get("pages").asInt();
      }
    }
    throw new AssertionError("no column " + column);
  }

  /**
   * The layout each kind asks of the writer, and the labels read back as strings. The values
   * themselves are the datagen module's (its GeneratorsTest).
   */
  @Test
  void sparseAndAtomsAreWrittenWithTheirColumnGroupsAndDictionaries() throws Exception {
    Path sparse = dir.resolve("sparse.riffle");
    Cli.ok("generate", "sparse", sparse.toString(), "--rows", "28", "--seed", "3");
    List<String> lines = Cli.ok("scan", sparse.toString()).outLines();
    assertThat(lines).hasSize(28);
    for (int row = 0; row < lines.size(); row++) {
      JsonNode o = Json.MAPPER.readTree(lines.get(row));
      assertThat(o.get("indices").size()).isEqualTo(o.get("values").size());
      // 28 rows over 14 plates: 2 rows each, in order.
      assertThat(o.get("plate").asText()).isEqualTo(String.format("plate%02d", row / 2 + 1));
      assertThat(o.get("cell_line").asText()).matches("CL00[0-5][0-9]");
    }
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", sparse.toString(), "--json").out());
    List<String> columns = new ArrayList<>();
    info.get("columns").forEach(c -> columns.add(c.get("name").asText()));
    assertThat(columns).containsExactly("indices+values", "plate", "cell_line");
    assertThat(info.get("schema").get(2).get("type").asText())
        .isEqualTo("dictionary<values=utf8, indices=int8>");

    Path atoms = dir.resolve("atoms.riffle");
    Cli.ok("generate", "atoms", atoms.toString(), "--rows", "50", "--seed", "2");
    info = Json.MAPPER.readTree(Cli.ok("inspect", atoms.toString(), "--json").out());
    assertThat(info.get("columns").get(0).get("name").asText()).isEqualTo("positions+forces");
  }

  @Test
  void weightAddsAColumnOfWeightsAndLeavesTheOthersAsTheyWere() throws Exception {
    Path plain = dir.resolve("plain.riffle");
    Path weighted = dir.resolve("weighted/");
    Cli.ok("generate", "sparse", plain.toString(), "--rows", "300", "--seed", "4");
    Cli.ok(
        "generate", "sparse", weighted.toString(), "--rows", "300", "--seed", "4", "--weight", "w");
    List<String> base = Cli.ok("scan", plain.toString()).outLines();
    List<String> rows = Cli.ok("scan", weighted.toString()).outLines();
    assertThat(rows).hasSize(300);
    float min = Float.MAX_VALUE;
    float max = 0;
    for (int i = 0; i < rows.size(); i++) {
      com.fasterxml.jackson.databind.node.ObjectNode o =
          (com.fasterxml.jackson.databind.node.ObjectNode) Json.MAPPER.readTree(rows.get(i));
      float w = o.remove("w").floatValue();
      assertThat(w).isEqualTo(dev.riffle.datagen.WeightedData.weight(i));
      min = Math.min(min, w);
      max = Math.max(max, w);
      assertThat(o).isEqualTo(Json.MAPPER.readTree(base.get(i)));
    }
    // Log-uniform in [0.1, 10): 300 draws spread over most of it.
    assertThat(min).isBetween(0.1f, 0.2f);
    assertThat(max).isBetween(5f, 10f);
    assertThat(
            Cli.ok("load", weighted.toString(), "--sampler", "weighted", "--weight", "w", "--json")
                .out())
        .contains("\"sampler\"");
    Cli.Result clash =
        Cli.run(
            "generate",
            "sparse",
            dir.resolve("x/").toString(),
            "--rows",
            "1",
            "--seed",
            "1",
            "--weight",
            "plate");
    assertThat(clash.exitCode()).isEqualTo(2);
    assertThat(clash.err()).contains("sparse: the kind already has a column 'plate'");
  }

  @Test
  void lance8ColumnsSelectsColumns() throws Exception {
    Path file = dir.resolve("lance8.riffle");
    Cli.ok(
        "generate",
        "lance8",
        file.toString(),
        "--rows",
        "100",
        "--seed",
        "5",
        "--columns",
        "str16,u64");
    JsonNode o = Json.MAPPER.readTree(Cli.ok("scan", file.toString(), "--limit", "1").out());
    List<String> names = new ArrayList<>();
    o.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactly("str16", "u64");
    assertThat(o.get("str16").asText()).hasSize(16);
  }

  @Test
  void cellsTakesAGeneCountAndKeepsItInTheDatasetMetadata() throws Exception {
    Path file = dir.resolve("cells.riffle");
    Cli.ok("generate", "cells", file.toString(), "--rows", "40", "--seed", "1", "--genes", "500");
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", file.toString(), "--json").out());
    List<String> columns = new ArrayList<>();
    info.get("columns").forEach(c -> columns.add(c.get("name").asText()));
    assertThat(columns).containsExactly("indices+values", "cell_type", "plate", "cell_line");
    for (String line : Cli.ok("scan", file.toString(), "--columns", "indices").outLines()) {
      Json.MAPPER.readTree(line).get("indices").forEach(g -> assertThat(g.asInt()).isLessThan(500));
    }
    Path ds = dir.resolve("cells");
    Cli.ok("generate", "cells", ds + "/", "--rows", "40", "--seed", "1", "--genes", "500");
    assertThat(Cli.ok("info", ds.toString()).out()).contains("genes=500, kind=cells");
    // Appended cells address the same genes, or nothing is written.
    Cli.Result other =
        Cli.run(
            "generate",
            "cells",
            ds + "/",
            "--rows",
            "5",
            "--seed",
            "2",
            "--genes",
            "600",
            "--append");
    assertThat(other.exitCode()).isEqualTo(ErrorHandler.USAGE);
    assertThat(other.errLines())
        .containsExactly(
            "riffle: cannot append to "
                + ds.toUri().toString().replaceAll("/$", "")
                + ": its cells have 500 genes (version 1), not --genes 600");
    assertThat(Cli.ok("ls", ds.toString()).outLines()).hasSize(2);
    Cli.ok(
        "generate", "cells", ds + "/", "--rows", "5", "--seed", "2", "--genes", "500", "--append");

    Cli.Result r =
        Cli.run(
            "generate", "sparse", file.toString(), "--rows", "1", "--seed", "1", "--genes", "5");
    assertThat(r.exitCode()).isEqualTo(ErrorHandler.USAGE);
    assertThat(r.errLines())
        .containsExactly("riffle: --genes applies to cells only (see 'riffle generate --help')");
    r = Cli.run("generate", "cells", file.toString(), "--rows", "1", "--seed", "1", "--genes", "5");
    assertThat(r.errLines())
        .containsExactly(
            "riffle: --genes must be 100 to 1000000, not 5 (see 'riffle generate --help')");
  }
}
