package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
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
        .containsExactly("wrote " + rows + " rows, " + Files.size(a) + " bytes to " + a);
    assertThat(Files.readAllBytes(b)).isEqualTo(Files.readAllBytes(a));
    assertThat(Files.readAllBytes(c)).isNotEqualTo(Files.readAllBytes(a));
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", a.toString(), "--json").out());
    assertThat(info.get("rows").asLong()).isEqualTo(rows);
    assertThat(info.get("bytes").asLong()).isEqualTo(Files.size(a));
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

  @Test
  void sparseRowsHaveSortedGenesPositiveValuesAndPlatesInOrder() throws Exception {
    Path file = dir.resolve("sparse.riffle");
    Cli.ok("generate", "sparse", file.toString(), "--rows", "280", "--seed", "3");
    List<String> lines = Cli.ok("scan", file.toString()).outLines();
    assertThat(lines).hasSize(280);
    long totalNonZeros = 0;
    for (int row = 0; row < lines.size(); row++) {
      JsonNode o = Json.MAPPER.readTree(lines.get(row));
      JsonNode indices = o.get("indices");
      JsonNode values = o.get("values");
      assertThat(indices.size()).isBetween(300, 4000).isEqualTo(values.size());
      for (int k = 0; k < indices.size(); k++) {
        assertThat(indices.get(k).asInt()).isBetween(0, 19_999);
        if (k > 0) {
          assertThat(indices.get(k).asInt()).isGreaterThan(indices.get(k - 1).asInt());
        }
        assertThat(values.get(k).asDouble()).isPositive();
      }
      totalNonZeros += indices.size();
      // 280 rows over 14 plates: 20 rows each, in order.
      assertThat(o.get("plate").asText()).isEqualTo(String.format("plate%02d", row / 20 + 1));
      assertThat(o.get("cell_line").asText()).matches("CL00[0-5][0-9]");
    }
    assertThat(totalNonZeros / (double) lines.size()).isBetween(1300.0, 1700.0);

    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", file.toString(), "--json").out());
    List<String> columns = new ArrayList<>();
    info.get("columns").forEach(c -> columns.add(c.get("name").asText()));
    assertThat(columns).containsExactly("indices+values", "plate", "cell_line");
    assertThat(info.get("schema").get(2).get("type").asText())
        .isEqualTo("dictionary<values=utf8, indices=int8>");
  }

  @Test
  void lance8RowsHaveTheAdvertisedSizes() throws Exception {
    Path file = dir.resolve("lance8.riffle");
    Cli.ok("generate", "lance8", file.toString(), "--rows", "12", "--seed", "5");
    Base64.Decoder base64 = Base64.getDecoder();
    int nulls = 0;
    for (String line : Cli.ok("scan", file.toString()).outLines()) {
      JsonNode o = Json.MAPPER.readTree(line);
      nulls += o.get("u64").isNull() ? 1 : 0;
      assertThat(o.get("str16").asText()).hasSize(16);
      assertThat(o.get("list_u64").size()).isBetween(1, 9);
      assertThat(o.get("list_str").size()).isBetween(1, 9);
      o.get("list_str").forEach(s -> assertThat(s.asText()).hasSize(16));
      assertThat(o.get("vec768").size()).isEqualTo(768);
      assertThat(o.get("list_vec").size()).isBetween(1, 9);
      o.get("list_vec").forEach(v -> assertThat(v.size()).isEqualTo(768));
      assertThat(base64.decode(o.get("bin20k").asText())).hasSize(20 * 1024);
      assertThat(o.get("list_bin").size()).isBetween(1, 9);
      o.get("list_bin").forEach(b -> assertThat(base64.decode(b.asText())).hasSize(20 * 1024));
    }
    assertThat(nulls).isLessThan(12);
  }

  @Test
  void atomsHaveMatchingPositionsForcesAndNumbers() throws Exception {
    Path file = dir.resolve("atoms.riffle");
    Cli.ok("generate", "atoms", file.toString(), "--rows", "50", "--seed", "2");
    for (String line : Cli.ok("scan", file.toString()).outLines()) {
      JsonNode o = Json.MAPPER.readTree(line);
      int atoms = o.get("numbers").size();
      assertThat(atoms).isBetween(2, 200);
      assertThat(o.get("positions").size()).isEqualTo(atoms);
      assertThat(o.get("forces").size()).isEqualTo(atoms);
      assertThat(o.get("positions").get(0).size()).isEqualTo(3);
      o.get("numbers").forEach(z -> assertThat(z.asInt()).isBetween(1, 100));
      assertThat(o.get("energy").isNumber()).isTrue();
    }
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", file.toString(), "--json").out());
    assertThat(info.get("columns").get(0).get("name").asText()).isEqualTo("positions+forces");
  }
}
