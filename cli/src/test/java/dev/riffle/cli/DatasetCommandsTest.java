package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dataset commands on a local directory: generate, ls, info, take, scan, split, validate, gc.
 * Datasets are small, with 64 KiB pages so that --files 3 has page flushes to end files at.
 */
class DatasetCommandsTest {
  static final String ROWS = "300";

  @TempDir Path dir;
  String ds;

  @BeforeEach
  void generate() {
    ds = dir.resolve("ds").toString();
    Cli.Result r = generate(ds, "sparse", ROWS, "1", "--files", "3");
    assertThat(r.out()).startsWith("wrote 300 rows in 3 files (").contains("version 1");
  }

  static Cli.Result generate(String out, String kind, String rows, String seed, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "generate", kind, out, "--rows", rows, "--seed", seed, "--page-bytes", "65536"));
    args.addAll(Arrays.asList(more));
    return Cli.ok(args.toArray(new String[0]));
  }

  static JsonNode json(String... args) throws Exception {
    return Json.MAPPER.readTree(Cli.ok(args).out());
  }

  static Cli.Result fails(int exitCode, String... args) {
    Cli.Result r = Cli.run(args);
    assertThat(r.exitCode())
        .as("exit code of %s: %s", Arrays.toString(args), r.err())
        .isEqualTo(exitCode);
    assertThat(r.errLines()).as("stderr of %s", Arrays.toString(args)).hasSize(1);
    assertThat(r.err()).startsWith("riffle: ");
    return r;
  }

  /** The data files of a version: path, firstRow, rows. */
  List<JsonNode> files(String location) throws Exception {
    List<JsonNode> files = new ArrayList<>();
    json("info", location, "--files", "--json").get("files").forEach(files::add);
    return files;
  }

  @Test
  void lsShowsVersionOneWithThreeFiles() throws Exception {
    List<String> lines = Cli.ok("ls", ds).outLines();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0).split("\\s+"))
        .containsExactly("version", "created", "files", "rows", "live", "bytes", "splits");
    String[] v1 = lines.get(1).trim().split("\\s+");
    assertThat(v1[0]).isEqualTo("1");
    assertThat(v1[2]).isEqualTo("3");
    assertThat(v1[3]).isEqualTo(ROWS);
    assertThat(v1[4]).isEqualTo(ROWS);

    JsonNode ls = json("ls", ds, "--json");
    assertThat(ls.get("versions")).hasSize(1);
    JsonNode v = ls.get("versions").get(0);
    assertThat(v.get("files").asInt()).isEqualTo(3);
    assertThat(v.get("rows").asLong()).isEqualTo(300);
    assertThat(v.get("liveRows").asLong()).isEqualTo(300);
    long bytes = 0;
    try (Stream<Path> data = Files.list(dir.resolve("ds/data"))) {
      for (Path p : data.toList()) {
        bytes += Files.size(p);
      }
    }
    assertThat(v.get("bytes").asLong()).isEqualTo(bytes);
  }

  @Test
  void infoDescribesTheManifest() throws Exception {
    JsonNode info = json("info", ds, "--json");
    assertThat(info.get("version").asLong()).isEqualTo(1);
    assertThat(info.get("parentVersion").isNull()).isTrue();
    assertThat(info.get("datasetId").asText()).isNotEmpty();
    assertThat(info.get("fileCount").asInt()).isEqualTo(3);
    assertThat(info.get("rows").asLong()).isEqualTo(300);
    assertThat(info.has("files")).isFalse();
    List<String> fields = new ArrayList<>();
    info.get("schema").forEach(f -> fields.add(f.get("name").asText()));
    assertThat(fields).containsExactly("indices", "values", "plate", "cell_line");
    assertThat(info.get("schema").get(2).get("type").asText())
        .isEqualTo("dictionary<values=utf8, indices=int8>");
    assertThat(info.get("provenance").get("tool").asText()).isEqualTo("riffle generate sparse");
    assertThat(info.get("provenance").get("toolVersion").asText()).isNotEmpty();
    assertThat(info.get("metadata").get("kind").asText()).isEqualTo("sparse");
    assertThat(info.get("metadata").get("seed").asText()).isEqualTo("1");
    assertThat(info.get("metadata").get("rows").asText()).isEqualTo("300");

    List<JsonNode> files = files(ds);
    assertThat(files).hasSize(3);
    long next = 0;
    for (JsonNode f : files) {
      assertThat(f.get("path").asText()).startsWith("data/").endsWith(".riffle");
      assertThat(f.get("sha256").asText()).matches("[0-9a-f]{64}");
      assertThat(f.get("firstRow").asLong()).isEqualTo(next);
      assertThat(Files.size(dir.resolve("ds").resolve(f.get("path").asText())))
          .isEqualTo(f.get("bytes").asLong());
      next += f.get("rows").asLong();
    }
    assertThat(next).isEqualTo(300);

    String text = Cli.ok("info", ds, "--files").out();
    assertThat(text)
        .contains("dataset id", "version     1", "riffle generate sparse", "kind=sparse")
        .contains(files.get(2).get("sha256").asText());
    // Sizes in binary units in text; the raw byte counts are in --json.
    long total = 0;
    for (JsonNode f : files) {
      total += f.get("bytes").asLong();
      assertThat(text).contains(Sizes.bytes(f.get("bytes").asLong()));
    }
    assertThat(text).contains("files       3, " + Sizes.bytes(total) + "\n");
  }

  @Test
  void takeAndScanReadTheRowsOfTheFiles() throws Exception {
    // The same kind, rows and seed as one file: the same rows, whatever the files.
    String single = dir.resolve("single.riffle").toString();
    generate(single, "sparse", ROWS, "1");
    List<String> scan = Cli.ok("scan", ds).outLines();
    assertThat(scan).hasSize(300).isEqualTo(Cli.ok("scan", single).outLines());

    // Rows of every file, in an order that crosses files, as the files themselves give them.
    List<JsonNode> files = files(ds);
    List<Long> rows = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = files.size() - 1; i >= 0; i--) {
      JsonNode f = files.get(i);
      long first = f.get("firstRow").asLong();
      long last = first + f.get("rows").asLong() - 1;
      String file = dir.resolve("ds").resolve(f.get("path").asText()).toString();
      List<String> fromFile = Cli.ok("take", file, "--rows", "0," + (last - first)).outLines();
      rows.add(last);
      expected.add(fromFile.get(1));
      rows.add(first);
      expected.add(fromFile.get(0));
    }
    String list = String.join(",", rows.stream().map(String::valueOf).toList());
    assertThat(Cli.ok("take", ds, "--rows", list).outLines()).isEqualTo(expected);
    for (int k = 0; k < rows.size(); k++) {
      assertThat(expected.get(k)).isEqualTo(scan.get(rows.get(k).intValue()));
    }

    assertThat(Cli.ok("scan", ds, "--limit", "5", "--columns", "plate").outLines()).hasSize(5);
    Cli.Result stats = Cli.run("take", ds, "--rows", "5,250", "--columns", "plate", "--stats");
    assertThat(stats.exitCode()).isZero();
    JsonNode counters = Json.MAPPER.readTree(stats.err());
    assertThat(counters.get("rows").asLong()).isEqualTo(2);
    assertThat(counters.get("valuesDecoded").asLong()).isEqualTo(2);
    assertThat(counters.get("reads").asLong()).isPositive();

    Cli.Result random = Cli.ok("take", ds, "--random", "20", "--seed", "3");
    assertThat(random.outLines()).hasSize(20).isSubsetOf(scan);
  }

  @Test
  void splitPublishesVersionTwoAndOldVersionsStayReadable() throws Exception {
    List<String> before = Cli.ok("take", ds, "--rows", "7,299").outLines();
    Cli.Result split =
        Cli.ok(
            "split", ds, "--name", "train", "--fraction", "0.8", "--seed", "5", "--rest", "test");
    assertThat(split.outLines().get(0)).startsWith("published version 2 of ");
    assertThat(split.out()).contains("train", "test");

    List<String> ls = Cli.ok("ls", ds).outLines();
    assertThat(ls).hasSize(3);
    assertThat(ls.get(2).trim()).startsWith("2 ").endsWith("test,train");
    JsonNode info = json("info", ds, "--json");
    assertThat(info.get("version").asLong()).isEqualTo(2);
    assertThat(info.get("parentVersion").asLong()).isEqualTo(1);
    long train = info.get("splits").get("train").asLong();
    long test = info.get("splits").get("test").asLong();
    assertThat(train + test).isEqualTo(300);
    assertThat(train).isBetween(200L, 280L);

    // Version 1, by name, after version 2 exists.
    JsonNode v1 = json("info", ds + "@1", "--json");
    assertThat(v1.get("version").asLong()).isEqualTo(1);
    assertThat(v1.get("splits").size()).isZero();
    assertThat(Cli.ok("take", ds + "@1", "--rows", "7,299").outLines()).isEqualTo(before);
    assertThat(Cli.ok("scan", ds + "@1").outLines()).hasSize(300);
    fails(2, "take", ds + "@1", "--split", "train", "--rows", "0");

    // A split is read as positions 0..n-1, in global row order.
    List<String> trainRows = Cli.ok("scan", ds, "--split", "train").outLines();
    assertThat(trainRows).hasSize((int) train);
    assertThat(Cli.ok("scan", ds, "--split", "test").outLines()).hasSize((int) test);
    assertThat(Cli.ok("take", ds, "--split", "train", "--rows", "3,0").outLines())
        .containsExactly(trainRows.get(3), trainRows.get(0));
    assertThat(Cli.ok("take", ds, "--split", "train", "--random", "10").outLines())
        .hasSize(10)
        .isSubsetOf(trainRows);
    fails(2, "take", ds, "--split", "train", "--rows", "" + train);
    assertThat(fails(2, "scan", ds, "--split", "nope").err()).contains("train");

    // The same seed gives the same split.
    Cli.ok("split", ds, "--name", "again", "--fraction", "0.8", "--seed", "5");
    assertThat(Cli.ok("scan", ds, "--split", "again").outLines()).isEqualTo(trainRows);
    assertThat(Cli.ok("validate", ds).out()).startsWith("OK: version 3, 3 files, ");

    // A name with a comma is quoted in ls's comma-separated list: one split, not two.
    Cli.ok("split", ds, "--name", "a,b", "--fraction", "0.5", "--seed", "5");
    List<String> listed = Cli.ok("ls", ds).outLines();
    assertThat(listed.get(listed.size() - 1)).endsWith(" 'a,b',again,test,train");
  }

  @Test
  void validatePassesThenNamesACorruptAndAMissingFile() throws Exception {
    long bytes = json("ls", ds, "--json").get("versions").get(0).get("bytes").asLong();
    assertThat(Cli.ok("validate", ds).outLines())
        .containsExactly("OK: version 1, 3 files, " + Sizes.bytes(bytes) + " verified");
    assertThat(Cli.ok("validate", ds + "@1", "--deep").outLines())
        .containsExactly(
            "OK: version 1, 3 files, " + Sizes.bytes(bytes) + " verified, every page checked");

    List<JsonNode> files = files(ds);
    String corrupt = files.get(1).get("path").asText();
    Path path = dir.resolve("ds").resolve(corrupt);
    byte[] b = Files.readAllBytes(path);
    b[b.length / 2] ^= 0x55;
    Files.write(path, b);
    Cli.Result r = fails(1, "validate", ds);
    assertThat(r.outLines().get(0)).startsWith("FAILED: version 1 of " + ds + ", 1 problem");
    assertThat(r.outLines()).hasSize(2);
    assertThat(r.outLines().get(1)).contains(corrupt, "SHA-256");
    assertThat(r.err()).contains("version 1", "1 problem");

    String missing = files.get(2).get("path").asText();
    Files.delete(dir.resolve("ds").resolve(missing));
    r = fails(1, "validate", ds, "--deep");
    assertThat(r.outLines()).hasSize(3);
    assertThat(r.out()).contains(corrupt).contains(missing + ": missing");
  }

  @Test
  void orphansAreNotesForValidateAndGcRemovesThem() throws Exception {
    String kept = files(ds).get(0).get("path").asText();
    Path data = dir.resolve("ds/data");
    Files.copy(dir.resolve("ds").resolve(kept), data.resolve("orphan.riffle"));

    Cli.Result validate = Cli.ok("validate", ds);
    assertThat(validate.outLines().get(0)).startsWith("OK: version 1, 3 files");
    assertThat(validate.out())
        .contains("note: 1 data file that no version references", "riffle gc");
    assertThat(validate.outLines()).contains("  data/orphan.riffle");

    // Just written: within the grace period, so kept (a writer without a lease may own it).
    assertThat(Cli.ok("gc", ds).outLines())
        .hasSize(2)
        .satisfies(
            l ->
                assertThat(l.get(0))
                    .startsWith("kept data/orphan.riffle (written ")
                    .endsWith(" ago, within the grace period of 1 h)"))
        .endsWith("no orphaned data files; 1 younger than 1 h kept (see --grace)");
    assertThat(Cli.ok("gc", ds, "--dry-run", "--grace", "0").outLines())
        .containsExactly(
            "would delete data/orphan.riffle", "1 orphaned data file (dry run: nothing deleted)");
    assertThat(data.resolve("orphan.riffle")).exists();

    Cli.Result gc = Cli.ok("gc", ds, "--grace", "0s");
    assertThat(gc.outLines())
        .containsExactly("deleted data/orphan.riffle", "1 orphaned data file deleted");
    assertThat(data.resolve("orphan.riffle")).doesNotExist();
    assertThat(data.resolve(kept.substring("data/".length()))).exists();
    assertThat(Cli.ok("validate", ds).outLines()).hasSize(1);
    assertThat(Cli.ok("gc", ds, "--dry-run").outLines()).containsExactly("no orphaned data files");
  }

  @Test
  void appendPublishesAVersionWithMoreRows() throws Exception {
    Cli.Result r = generate(ds, "sparse", "100", "2", "--append");
    assertThat(r.out()).contains("100 rows in 1 file", "version 2, 400 rows in all");
    JsonNode ls = json("ls", ds, "--json");
    assertThat(ls.get("versions")).hasSize(2);
    assertThat(ls.get("versions").get(1).get("rows").asLong()).isEqualTo(400);
    assertThat(ls.get("versions").get(1).get("files").asInt()).isEqualTo(4);
    assertThat(ls.get("versions").get(1).get("parentVersion").asLong()).isEqualTo(1);
    assertThat(json("info", ds, "--json").get("metadata").get("seed").asText()).isEqualTo("2");

    // The appended rows are those of a 100-row file with that seed.
    String single = dir.resolve("more.riffle").toString();
    generate(single, "sparse", "100", "2");
    assertThat(Cli.ok("take", ds, "--rows", "300,399").outLines())
        .isEqualTo(Cli.ok("take", single, "--rows", "0,99").outLines());
    fails(2, "take", ds + "@1", "--rows", "300");
    assertThat(Cli.ok("scan", ds).outLines()).hasSize(400);
    assertThat(Cli.ok("validate", ds).out()).startsWith("OK: version 2, 4 files");
  }

  @Test
  void errorsAreOneLine() throws Exception {
    String nowhere = dir.resolve("nowhere").toString();
    for (String command : List.of("ls", "info", "validate", "gc", "take", "scan")) {
      List<String> args = new ArrayList<>(List.of(command, nowhere));
      if (command.equals("take")) {
        args.addAll(List.of("--rows", "1"));
      }
      assertThat(fails(1, args.toArray(new String[0])).err())
          .isEqualTo("riffle: no Riffle dataset at " + nowhere + "\n");
    }
    fails(1, "split", nowhere, "--name", "a", "--fraction", "0.5", "--seed", "1");
    assertThat(fails(1, "info", ds + "@9").err())
        .isEqualTo("riffle: no version 9 of " + ds + "; versions are 1\n");
    fails(1, "take", ds + "@0", "--rows", "1");
    fails(2, "ls", ds + "@1");
    fails(2, "gc", ds + "@1");
    fails(2, "split", ds + "@1", "--name", "a", "--fraction", "0.5", "--seed", "1");
    fails(2, "split", ds, "--name", "a", "--fraction", "1.5", "--seed", "1");
    assertThat(fails(2, "split", ds, "--name", "a", "--fraction", "1e20", "--seed", "1").err())
        .startsWith("riffle: --fraction must be in [0, 1], not 1e+20");
    fails(2, "split", ds, "--name", "a", "--fraction", "0.5");
    fails(2, "split", ds, "--name", "a", "--fraction", "0.5", "--seed", "1", "--rest", "a");
    fails(2, "take", ds, "--rows", "300");
    fails(2, "take", ds, "--rows", "1", "--columns", "nope");
    fails(2, "scan", ds, "--columns", "plate,plate");
    assertThat(fails(1, "generate", "sparse", ds, "--rows", "1", "--seed", "1").err())
        .contains("already exists", "--append");
    assertThat(fails(2, "generate", "scalars", ds, "--rows", "1", "--seed", "1", "--append").err())
        .contains("schema differs");
    fails(1, "generate", "scalars", nowhere, "--rows", "1", "--seed", "1", "--append");
    fails(2, "generate", "scalars", nowhere, "--rows", "1", "--seed", "1", "--files", "0");
    fails(2, "generate", "scalars", ds + "@2", "--rows", "1", "--seed", "1");

    String file = dir.resolve("f.riffle").toString();
    fails(2, "generate", "scalars", file, "--rows", "1", "--seed", "1", "--files", "2");
    generate(file, "scalars", "10", "1");
    assertThat(fails(2, "info", file).err()).contains("single Riffle file", "inspect");
    // #18 item 12: a file in another format is named as such, with the command that reads it.
    Path pq = dir.resolve("other.parquet");
    java.nio.file.Files.write(
        pq, "PAR1 and more".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(fails(2, "info", pq.toString()).err())
        .contains("is a Parquet file ('riffle convert parquet' makes a dataset of it)")
        .doesNotContain("Riffle file,");
    Path text = dir.resolve("notes.txt");
    java.nio.file.Files.writeString(text, "hello");
    assertThat(fails(2, "ls", text.toString()).err())
        .contains("is a file that is not in the Riffle format, not a dataset");
    fails(2, "validate", file);
    // A dataset asked for at a file ("f.riffle/"): named as such, and the file is left alone.
    byte[] before = Files.readAllBytes(Path.of(file));
    assertThat(fails(2, "generate", "scalars", file + "/", "--rows", "1", "--seed", "1").err())
        .isEqualTo("riffle: " + file + "/ is a single Riffle file, not a dataset directory\n");
    assertThat(fails(2, "convert", "parquet", pq.toString(), file + "/").err())
        .contains("is a single Riffle file, not a dataset directory");
    assertThat(Files.readAllBytes(Path.of(file))).isEqualTo(before);
    fails(2, "take", file + "@1", "--rows", "1");
    fails(2, "take", file, "--rows", "1", "--split", "train");
    Files.createDirectories(dir.resolve("other"));
    Files.writeString(dir.resolve("other/notes.txt"), "not a dataset");
    assertThat(
            fails(
                    1,
                    "generate",
                    "scalars",
                    dir.resolve("other").toString(),
                    "--rows",
                    "1",
                    "--seed",
                    "1")
                .err())
        .contains("notes.txt");
    assertThat(Cli.ok("--help").out()).contains("ls", "info", "validate", "split", "gc");
  }

  @Test
  void trailingSlashAndFileUrisNameTheSameDataset() throws Exception {
    String viaUri = dir.resolve("ds").toUri().toString();
    assertThat(Cli.ok("take", viaUri + "@1", "--rows", "0,150").out())
        .isEqualTo(Cli.ok("take", ds + "/", "--rows", "0,150").out());
    String fresh = dir.resolve("fresh").toString() + "/";
    assertThat(generate(fresh, "scalars", "1000", "4").out()).contains("1,000 rows in 1 file");
    assertThat(json("ls", fresh, "--json").get("versions").get(0).get("rows").asLong())
        .isEqualTo(1000);
  }
}
