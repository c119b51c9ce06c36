package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --where} (#20 item 6): scan of a file and of a dataset prints exactly the rows the filter
 * matches, as the test decides them from a full scan; page statistics skip pages without changing
 * the answer; load plans over the matching rows only; bad filters are one clear line.
 */
class WhereTest {
  @TempDir static Path dir;

  static String scalars;
  static String cellsFile;
  static String cells;

  @BeforeAll
  static void generate() {
    scalars = dir.resolve("s.riffle").toString();
    cellsFile = dir.resolve("c.riffle").toString();
    cells = dir.resolve("cells").toString() + "/";
    // 4 KiB pages: several pages a column, so that statistics have pages to exclude and a scan
    // of the candidates has ranges to number rows through.
    Cli.ok("generate", "scalars", scalars, "--rows", "3000", "--seed", "3", "--page-bytes", "4096");
    Cli.ok(
        "generate",
        "cells",
        cellsFile,
        "--rows",
        "40000",
        "--genes",
        "100",
        "--seed",
        "4",
        "--page-bytes",
        "4096");
    Cli.ok(
        "generate",
        "cells",
        cells,
        "--rows",
        "6000",
        "--genes",
        "100",
        "--files",
        "3",
        "--seed",
        "5",
        "--page-bytes",
        "4096");
    Cli.ok(
        "generate", "cells", cells, "--rows", "900", "--genes", "100", "--seed", "6", "--append");
  }

  private static List<JsonNode> rows(List<String> lines) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String l : lines) {
      out.add(Json.MAPPER.readTree(l));
    }
    return out;
  }

  /** The lines of a full scan (with _row) whose row the predicate accepts. */
  private static List<String> expected(String location, String columns, Predicate<JsonNode> p)
      throws Exception {
    List<String> all =
        columns == null
            ? Cli.ok("scan", location, "--with-row-id").outLines()
            : Cli.ok("scan", location, "--with-row-id", "--columns", columns).outLines();
    List<String> out = new ArrayList<>();
    for (String line : all) {
      if (p.test(Json.MAPPER.readTree(line))) {
        out.add(line);
      }
    }
    return out;
  }

  private static List<String> where(String location, String columns, String filter) {
    return columns == null
        ? Cli.ok("scan", location, "--with-row-id", "--where", filter).outLines()
        : Cli.ok("scan", location, "--with-row-id", "--columns", columns, "--where", filter)
            .outLines();
  }

  private static BigInteger id(JsonNode row) {
    JsonNode id = row.get("id");
    return id.isNull() ? null : new BigInteger(id.asText());
  }

  @Test
  void aFileScanPrintsExactlyTheMatchingRows() throws Exception {
    List<JsonNode> all = rows(Cli.ok("scan", scalars).outLines());
    BigInteger a = id(all.get(7)) != null ? id(all.get(7)) : id(all.get(8));
    BigInteger b = id(all.get(2000)) != null ? id(all.get(2000)) : id(all.get(2001));
    assertThat(where(scalars, null, "x > 0"))
        .isNotEmpty()
        .isEqualTo(expected(scalars, null, r -> r.get("x").asDouble() > 0));
    assertThat(where(scalars, null, "x >= -100.5 and x < 250 or name < 'c'"))
        .isEqualTo(
            expected(
                scalars,
                null,
                r -> {
                  double x = r.get("x").asDouble();
                  return x >= -100.5 && x < 250 || r.get("name").asText().compareTo("c") < 0;
                }));
    assertThat(where(scalars, "name", "id in (" + a + ", " + b + ")"))
        .hasSize(2)
        .isEqualTo(
            expected(
                scalars,
                "name",
                r -> {
                  BigInteger id = id(all.get((int) r.get("_row").asLong()));
                  return a.equals(id) || b.equals(id);
                }));
    assertThat(where(scalars, "id", "id is null"))
        .isNotEmpty()
        .isEqualTo(expected(scalars, "id", r -> r.get("id").isNull()));
    // --offset and --limit count matching rows.
    List<String> positive = where(scalars, null, "x > 0");
    assertThat(
            Cli.ok(
                    "scan",
                    scalars,
                    "--with-row-id",
                    "--where",
                    "x > 0",
                    "--offset",
                    "5",
                    "--limit",
                    "3")
                .outLines())
        .isEqualTo(positive.subList(5, 8));
  }

  @Test
  void statisticsSkipPagesWithoutChangingTheAnswer() throws Exception {
    String filter = "plate in ('plate03', 'plate04') and cell_type != 'T cell'";
    assertThat(where(cellsFile, "plate,cell_type", filter))
        .isNotEmpty()
        .isEqualTo(
            expected(
                cellsFile,
                "plate,cell_type",
                r ->
                    List.of("plate03", "plate04").contains(r.get("plate").asText())
                        && !r.get("cell_type").asText().equals("T cell")));
    // Plates are written in runs, so most pages of plate are excluded and never read (the filter's
    // pass and the printing pass each read the few candidate pages: without skipping, the two
    // passes would read the whole column twice).
    long whole = bytesRead(Cli.run("scan", cellsFile, "--columns", "plate", "--stats"));
    long some =
        bytesRead(
            Cli.run(
                "scan",
                cellsFile,
                "--columns",
                "plate",
                "--stats",
                "--where",
                "plate = 'plate03'"));
    assertThat(some).isPositive().isLessThan(whole / 2);
  }

  private static long bytesRead(Cli.Result r) throws Exception {
    assertThat(r.exitCode()).isZero();
    return Json.MAPPER.readTree(r.err()).get("bytesRead").asLong();
  }

  @Test
  void aDatasetScanPrintsTheMatchingLiveRowsWithTheirGlobalIds() throws Exception {
    String filter =
        "(plate = 'plate02' or plate >= 'plate13') and cell_type in ('B cell', 'NK cell')";
    List<String> got = where(cells, "plate,cell_type", filter);
    assertThat(got)
        .isNotEmpty()
        .isEqualTo(
            expected(
                cells,
                "plate,cell_type",
                r -> {
                  String plate = r.get("plate").asText();
                  String type = r.get("cell_type").asText();
                  return (plate.equals("plate02") || plate.compareTo("plate13") >= 0)
                      && (type.equals("B cell") || type.equals("NK cell"));
                }));
    // Rows of both versions' files are among them (global ids beyond the first 6,000).
    assertThat(rows(got).stream().mapToLong(r -> r.get("_row").asLong()).max().getAsLong())
        .isGreaterThanOrEqualTo(6000);
  }

  @Test
  void loadPlansOverTheMatchingRowsOnly() throws Exception {
    long matching = where(cells, "plate", "plate = 'plate05'").size();
    JsonNode report =
        Json.MAPPER.readTree(
            Cli.ok("load", cells, "--where", "plate = 'plate05'", "--label", "plate", "--json")
                .out());
    assertThat(report.get("viewRows").asLong()).isEqualTo(matching).isPositive();
    assertThat(report.get("coverageExact").asBoolean()).isTrue();
    // One plate only: every batch has a single label.
    assertThat(report.get("labelEntropyMean").asDouble()).isZero();
    Cli.Result none = Cli.run("load", cells, "--where", "plate = 'plate99'");
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err()).contains("--where matches none of the 6,900 rows");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "nope = 1                | no column 'nope'",
        "plate = 3               | column 'plate' (utf8) takes a string in quotes, not 3",
        "n = 1 and               | no column 'n'",
        "plate =                 | expected a value at the end",
        "plate = 'plate01' and   | expected a column name at the end",
        "not plate = 'plate01'   | 'not' is not supported",
        "plate = 'plate01        | unterminated '",
        "(plate = 'plate01'      | expected ')'",
        "plate ~ 'x'             | expected a comparison",
        "plate between 'a' 'b'   | expected 'and'",
        "indices = 1             | field 'indices' (List) has no order to compare",
        "''                      | empty filter",
      })
  void aBadFilterIsOneClearLine(String filter, String message) {
    String f = filter.equals("''") ? "" : filter;
    for (String location : List.of(cellsFile, cells)) {
      Cli.Result r = Cli.run("scan", location, "--where", f);
      assertThat(r.exitCode()).as(filter).isEqualTo(2);
      assertThat(r.errLines()).as(filter).hasSize(1);
      assertThat(r.err()).as(filter).contains(message).doesNotContain("Exception");
      assertThat(r.out()).isEmpty();
    }
  }
}
