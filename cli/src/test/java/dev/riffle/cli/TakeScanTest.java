package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TakeScanTest {
  @TempDir static Path dir;

  static Path file(String kind) {
    return dir.resolve(kind + ".riffle");
  }

  @BeforeAll
  static void generate() {
    Cli.ok("generate", "scalars", file("scalars").toString(), "--rows", "1500", "--seed", "11");
    Cli.ok("generate", "vectors", file("vectors").toString(), "--rows", "200", "--seed", "11");
    Cli.ok("generate", "sparse", file("sparse").toString(), "--rows", "200", "--seed", "11");
    Cli.ok("generate", "atoms", file("atoms").toString(), "--rows", "300", "--seed", "11");
    Cli.ok("generate", "lance8", file("lance8").toString(), "--rows", "8", "--seed", "11");
  }

  @ParameterizedTest
  @ValueSource(strings = {"scalars", "vectors", "sparse", "atoms", "lance8"})
  void takeReturnsTheRowsScanReturnsInTheRequestedOrder(String kind) {
    String path = file(kind).toString();
    List<String> scan = Cli.ok("scan", path).outLines();
    Cli.Result take = Cli.ok("take", path, "--rows", "3,1,3");
    assertThat(take.outLines()).containsExactly(scan.get(3), scan.get(1), scan.get(3));
    assertThat(Cli.ok("take", path, "--rows", "3,1,3", "--json").out()).isEqualTo(take.out());
    assertThat(Cli.ok("scan", path, "--json").outLines()).isEqualTo(scan);
  }

  @Test
  void columnsAreSelectedAndOrderedAsRequested() throws Exception {
    String path = file("scalars").toString();
    List<String> lines = Cli.ok("take", path, "--rows", "0,5", "--columns", "name,id").outLines();
    assertThat(lines).hasSize(2);
    List<String> keys = new ArrayList<>();
    Json.MAPPER.readTree(lines.get(0)).fieldNames().forEachRemaining(keys::add);
    assertThat(keys).containsExactly("name", "id");
    List<String> scanned = Cli.ok("scan", path, "--columns", "name,id", "--limit", "6").outLines();
    assertThat(lines).containsExactly(scanned.get(0), scanned.get(5));
  }

  @Test
  void uint64IsUnsignedAndNullsAreNull() throws Exception {
    boolean sawNull = false;
    boolean sawHigh = false;
    for (String line : Cli.ok("scan", file("scalars").toString()).outLines()) {
      JsonNode id = Json.MAPPER.readTree(line).get("id");
      if (id.isNull()) {
        sawNull = true;
      } else {
        // A number up to 2^53 (what a double holds exactly), a decimal string beyond (#18 item 7).
        BigInteger v = id.isTextual() ? new BigInteger(id.asText()) : id.bigIntegerValue();
        assertThat(v.signum()).isNotNegative();
        assertThat(id.isTextual()).isEqualTo(v.compareTo(BigInteger.ONE.shiftLeft(53)) > 0);
        sawHigh |= v.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) > 0;
      }
    }
    assertThat(sawNull).isTrue();
    assertThat(sawHigh).isTrue();
  }

  @Test
  void statsPrintsExactlyTheSixCountersOnOneStderrLine() throws Exception {
    Cli.Result r = Cli.run("take", file("sparse").toString(), "--rows", "5,1", "--stats");
    assertThat(r.exitCode()).isZero();
    assertThat(r.outLines()).hasSize(2);
    assertThat(r.errLines()).hasSize(1);
    JsonNode stats = Json.MAPPER.readTree(r.err());
    List<String> keys = new ArrayList<>();
    stats.fieldNames().forEachRemaining(keys::add);
    assertThat(keys)
        .containsExactly("rows", "reads", "bytesRead", "sectors", "rounds", "valuesDecoded");
    assertThat(stats.get("rows").asLong()).isEqualTo(2);
    assertThat(stats.get("rounds").asLong()).isEqualTo(1);
    // Two rows of four fields; the group's two fields and the two dictionary fields.
    assertThat(stats.get("valuesDecoded").asLong()).isEqualTo(8);
    assertThat(stats.get("reads").asLong()).isPositive();
    assertThat(stats.get("bytesRead").asLong()).isPositive();
  }

  @Test
  void quietPrintsNoRowsButTheSameStats() {
    String path = file("vectors").toString();
    Cli.Result loud = Cli.run("take", path, "--rows", "9,2,150", "--stats");
    Cli.Result quiet = Cli.run("take", path, "--rows", "9,2,150", "--stats", "--quiet");
    assertThat(loud.outLines()).hasSize(3);
    assertThat(quiet.out()).isEmpty();
    assertThat(quiet.err()).isEqualTo(loud.err());
  }

  @Test
  void rowsFileAndRandomAreAlternativesToRows() throws Exception {
    String path = file("scalars").toString();
    Path rowsFile = dir.resolve("rows.txt");
    Files.writeString(rowsFile, "# rows to take\n7\n\n 2 \n7\n");
    assertThat(Cli.ok("take", path, "--rows-file", rowsFile.toString()).out())
        .isEqualTo(Cli.ok("take", path, "--rows", "7,2,7").out());

    Cli.Result a = Cli.run("take", path, "--random", "25", "--seed", "4", "--stats");
    Cli.Result b = Cli.ok("take", path, "--random", "25", "--seed", "4");
    Cli.Result c = Cli.ok("take", path, "--random", "25", "--seed", "5");
    assertThat(a.outLines()).hasSize(25);
    assertThat(b.out()).isEqualTo(a.out());
    assertThat(c.out()).isNotEqualTo(a.out());
    assertThat(Json.MAPPER.readTree(a.err()).get("rows").asLong()).isEqualTo(25);
  }

  @Test
  void scanLimitStopsAfterThatManyRows() {
    String path = file("scalars").toString();
    List<String> all = Cli.ok("scan", path).outLines();
    assertThat(all).hasSize(1500);
    assertThat(Cli.ok("scan", path, "--limit", "5").outLines()).isEqualTo(all.subList(0, 5));
    assertThat(Cli.ok("scan", path, "--limit", "4100").outLines()).isEqualTo(all.subList(0, 1500));
    assertThat(Cli.ok("scan", path, "--limit", "0").out()).isEmpty();
  }

  @Test
  void inspectShowsTablesAndJson() throws Exception {
    String path = file("atoms").toString();
    String text = Cli.ok("inspect", path).out();
    assertThat(text)
        .contains("rows            300")
        .contains("positions+forces")
        .contains("list<fixed_size_list<float32 not null, 3> not null>")
        .contains("(total)");
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", path, "--json").out());
    // Written with the default options: every file is format 1.4 (spec/CHANGES.md).
    assertThat(info.get("formatVersion").asText()).isEqualTo("1.4");
    List<String> fields = new ArrayList<>();
    info.get("schema").forEach(f -> fields.add(f.get("name").asText()));
    assertThat(fields).containsExactly("positions", "forces", "numbers", "energy");
    List<String> columns = new ArrayList<>();
    info.get("columns").forEach(c -> columns.add(c.get("name").asText()));
    assertThat(columns).containsExactly("positions+forces", "numbers", "energy");
    for (JsonNode c : info.get("columns")) {
      for (String key :
          List.of(
              "fields",
              "pages",
              "layouts",
              "sectors",
              "dataBytes",
              "blockBytes",
              "ramBytes",
              "ramPercent")) {
        assertThat(c.has(key)).as(key).isTrue();
      }
      int pages = 0;
      for (JsonNode n : c.get("layouts")) {
        pages += n.asInt();
      }
      assertThat(pages).isEqualTo(c.get("pages").asInt());
      // Page statistics (format 1.4): per field of the column, over the whole file.
      assertThat(c.get("hasStats").asBoolean()).isTrue();
      for (JsonNode f : c.get("fields")) {
        JsonNode s = c.get("stats").get(f.asText());
        assertThat(s.get("rows").asLong()).isEqualTo(300);
        assertThat(s.get("nullCount").asLong()).isZero();
      }
    }
    JsonNode energy = info.get("columns").get(2).get("stats").get("energy");
    assertThat(energy.get("min").isNumber()).isTrue();
    assertThat(energy.get("min").asDouble()).isLessThan(energy.get("max").asDouble());
    assertThat(info.get("columns").get(1).get("stats").get("numbers").has("min"))
        .as("lists have null counts only")
        .isFalse();
    // The column table (after the schema table, whose row for energy comes first).
    assertThat(text.lines().filter(l -> l.startsWith("energy")).reduce((a, b) -> b).orElseThrow())
        .endsWith("yes");
    // Readable in 100 columns; --wide adds fields, layouts, sectors and metadata bytes.
    assertThat(text.lines()).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(100));
    assertThat(text).doesNotContain("layouts");
    String wide = Cli.ok("inspect", path, "--wide", "--raw").out();
    assertThat(wide).contains("layouts", "sectors", "block", "data/arrow", "(file)");
    // Sizes in binary units, the raw byte counts in --json.
    assertThat(text).contains("bytes           " + Sizes.bytes(info.get("bytes").asLong()));
  }

  @Test
  void inspectSaysWhenAFileHasNoStatistics() throws Exception {
    // A format 1.0 golden file: no statistics section in any column block.
    String old =
        java.nio.file.Path.of("..", "spec", "golden", "1.0", "dictionary.riffle").toString();
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", old, "--json").out());
    assertThat(info.get("formatVersion").asText()).isEqualTo("1.0");
    for (JsonNode c : info.get("columns")) {
      assertThat(c.get("hasStats").asBoolean()).isFalse();
      assertThat(c.has("stats")).isFalse();
    }
    String path = java.nio.file.Path.of("..", "spec", "golden", "dictionary.riffle").toString();
    info = Json.MAPPER.readTree(Cli.ok("inspect", path, "--json").out());
    JsonNode category = info.get("columns").get(0).get("stats").get("category");
    assertThat(category.get("codesPresent").asInt()).isEqualTo(37);
    assertThat(category.has("min")).isFalse();
  }

  /** --records counts records by encoding: sparse rows (ids + random floats) pack, vectors not. */
  @Test
  void inspectRecordsSaysHowRecordsAreEncoded() throws Exception {
    JsonNode sparse =
        Json.MAPPER.readTree(
            Cli.ok("inspect", file("sparse").toString(), "--records", "--json").out());
    JsonNode group = sparse.get("columns").get(0);
    assertThat(group.get("name").asText()).isEqualTo("indices+values");
    assertThat(group.get("records").get("packed").get("count").asLong()).isEqualTo(200);
    assertThat(sparse.get("recordRules").asText()).contains("packed");
    JsonNode vectors =
        Json.MAPPER.readTree(
            Cli.ok("inspect", file("vectors").toString(), "--records", "--json").out());
    JsonNode embedding = vectors.get("columns").get(0).get("records");
    assertThat(embedding.get("plain").get("count").asLong()).isEqualTo(200);
    assertThat(embedding.get("plain").get("bytes").asLong()).isEqualTo(200L * (768 * 4 + 4));
    String text = Cli.ok("inspect", file("sparse").toString(), "--records").out();
    assertThat(text).contains("indices+values  packed 200").contains("why: ");
  }

  /**
   * --records counts sectors by codec: list columns of the golden file with decimal float items are
   * LISTS sectors that pack their items, and say so.
   */
  @Test
  void inspectRecordsCountsSectorsByCodec() throws Exception {
    String path =
        java.nio.file.Path.of("..", "spec", "golden", "sectors-lists-decimals.riffle").toString();
    JsonNode info = Json.MAPPER.readTree(Cli.ok("inspect", path, "--records", "--json").out());
    for (JsonNode column : info.get("columns")) {
      JsonNode sectors = column.get("records").get("sectors");
      long all = 0;
      for (String codec : List.of("flat", "for", "records", "lists")) {
        all += sectors.get(codec).get("count").asLong();
      }
      assertThat(all).as(column.get("name").asText()).isEqualTo(column.get("sectors").asLong());
      assertThat(sectors.get("lists").get("decimalItems").asLong())
          .as(column.get("name").asText())
          .isPositive();
    }
    assertThat(Cli.ok("inspect", path, "--records").out())
        .contains("rows in sectors: ")
        .contains("decimal items")
        .contains("as decimals");
  }
}
