package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.RowSets;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.PageInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Datasets damaged behind the manifest's back, or with manifests that parse but cannot be right
 * (issue #15 items 2, 3 and 7): every command fails with one clear line naming the file and the
 * field or offset, or, for damage in another version, keeps working on the healthy ones.
 */
class DamagedDatasetTest {
  @TempDir Path dir;
  String ds;

  @BeforeEach
  void generate() {
    ds = dir.resolve("ds").toString();
    DatasetCommandsTest.generate(ds, "sparse", "300", "1", "--files", "3");
  }

  private Path manifest(long v) {
    return dir.resolve("ds/_versions/" + String.format("%020d", v) + ".manifest.json");
  }

  private void editManifest(long v, Consumer<ObjectNode> edit) throws Exception {
    ObjectNode json = (ObjectNode) Json.MAPPER.readTree(Files.readAllBytes(manifest(v)));
    edit.accept(json);
    Files.write(manifest(v), Json.MAPPER.writeValueAsBytes(json));
  }

  private static ObjectNode file(ObjectNode manifest, int i) {
    return (ObjectNode) manifest.get("files").get(i);
  }

  @Test
  void aRowIdOf2To64Minus1InASplitIsAManifestError() throws Exception {
    Roaring64Bitmap train = Roaring64Bitmap.bitmapOf(0, 1, 2, -1L);
    editManifest(1, m -> m.putObject("splits").put("train", RowSets.encode(train)));
    Cli.Result v = DatasetCommandsTest.fails(1, "validate", ds);
    assertThat(v.out()).contains("split train names row 18446744073709551615, outside [0, 300)");
    for (String[] args :
        List.of(
            new String[] {"take", ds, "--split", "train", "--rows", "0,1,2,3"},
            new String[] {"scan", ds, "--split", "train"},
            new String[] {"info", ds},
            new String[] {"ls", ds})) {
      Cli.Result r = Cli.run(args);
      assertThat(r.err()).as(String.join(" ", args)).doesNotContain("row -1");
      if (!args[0].equals("ls")) {
        assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(1);
        assertThat(r.err())
            .startsWith("riffle: corrupt file: ")
            .contains("00000000000000000001.manifest.json", "18446744073709551615");
      }
    }
  }

  @Test
  void deletionsOf2To63AndAboveAreAManifestError() throws Exception {
    Roaring64Bitmap deleted = Roaring64Bitmap.bitmapOf(5, -1L);
    editManifest(1, m -> m.put("deletions", RowSets.encode(deleted)));
    assertThat(DatasetCommandsTest.fails(1, "validate", ds).out())
        .contains("deletions names row 18446744073709551615");
    assertThat(DatasetCommandsTest.fails(1, "scan", ds).err())
        .contains("deletions names row 18446744073709551615");
  }

  @Test
  void anOverflowingRowCountIsAManifestErrorInEveryCommand() throws Exception {
    editManifest(1, m -> file(m, m.get("files").size() - 1).put("rowCount", Long.MAX_VALUE));
    for (String[] args :
        List.of(
            new String[] {"info", ds},
            new String[] {"take", ds, "--rows", "0"},
            new String[] {"scan", ds},
            new String[] {"load", ds},
            new String[] {"validate", ds})) {
      Cli.Result r = Cli.run(args);
      String all = r.out() + r.err();
      assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(1);
      assertThat(all)
          .as(String.join(" ", args))
          .doesNotContain("internal error")
          .contains("rowCount 9223372036854775807", "2^63 - 1");
    }
    // ls lists the version as damaged, naming the field.
    assertThat(Cli.ok("ls", ds).out()).contains("rowCount 9223372036854775807");
  }

  @Test
  void aGarbageOldManifestLeavesTheOtherVersionsListedAndValid() throws Exception {
    Cli.ok("split", ds, "--name", "train", "--fraction", "0.5", "--seed", "1");
    Cli.ok("split", ds, "--name", "test", "--fraction", "0.5", "--seed", "2");
    Files.writeString(manifest(2), "garbage");

    List<String> ls = Cli.ok("ls", ds).outLines();
    assertThat(ls).hasSize(5);
    assertThat(ls.get(1).trim()).startsWith("1 ");
    assertThat(ls.get(2).trim().split("\\s+"))
        .containsExactly("2", "damaged", "-", "-", "-", "-", "-");
    assertThat(ls.get(3).trim()).startsWith("3 ").endsWith("test,train");
    assertThat(ls.get(4))
        .startsWith("note: version 2 is damaged: ")
        .contains("00000000000000000002.manifest.json", "not a valid manifest");
    JsonNode json = DatasetCommandsTest.json("ls", ds, "--json");
    assertThat(json.get("versions")).hasSize(3);
    assertThat(json.get("versions").get(1).get("damaged").asText())
        .contains("not a valid manifest");
    assertThat(json.get("versions").get(2).get("rows").asLong()).isEqualTo(300);

    // The healthy latest version is intact; the note names the damaged one.
    Cli.Result v3 = Cli.ok("validate", ds);
    assertThat(v3.outLines().get(0)).startsWith("OK: version 3, 3 files");
    assertThat(v3.out()).contains("note: ", "00000000000000000002.manifest.json");
    assertThat(Cli.ok("validate", ds + "@1").outLines().get(0)).startsWith("OK: version 1");
    Cli.Result v2 = DatasetCommandsTest.fails(1, "validate", ds + "@2");
    assertThat(v2.out()).startsWith("FAILED: version 2").contains("not a valid manifest");
    // gc still refuses: it cannot tell which files version 2 names.
    Cli.Result gc = Cli.run("gc", ds);
    assertThat(gc.exitCode()).isEqualTo(1);
    assertThat(gc.err()).contains("not collecting garbage", "00000000000000000002.manifest.json");
  }

  @Test
  void aFlippedByteInAZipFixedPageFailsTheDatasetScanAsTheFileScan() throws Exception {
    String vectors = dir.resolve("vectors").toString();
    DatasetCommandsTest.generate(vectors, "vectors", "300", "1", "--files", "2");
    // A ZIP_FIXED page of the last file: takes read its slots without a checksum.
    JsonNode files = DatasetCommandsTest.json("info", vectors, "--files", "--json").get("files");
    Path file = dir.resolve("vectors").resolve(files.get(files.size() - 1).get("path").asText());
    PageInfo victim = null;
    try (BufferAllocator allocator = new RootAllocator();
        FileReader r = FileReader.open(file, allocator)) {
      for (int c = 0; c < r.schema().columns().size() && victim == null; c++) {
        for (PageInfo p : r.pages(c)) {
          if (p.layout() == ColumnLayout.LAYOUT_ZIP_FIXED && victim == null) {
            victim = p;
          }
        }
      }
    }
    assertThat(victim).as("a ZIP_FIXED page").isNotNull();
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) (victim.offset() + victim.byteLength() / 2)] ^= 0x04;
    Files.write(file, bytes);

    String fileError = DatasetCommandsTest.fails(1, "scan", file.toString()).err();
    assertThat(fileError)
        .startsWith("riffle: corrupt file: " + file + " at offset " + victim.offset() + ": ")
        .contains("fails its checksum");
    for (String[] args :
        List.of(
            new String[] {"scan", vectors},
            new String[] {"scan", vectors, "--columns", "embedding"},
            new String[] {"export", "parquet", vectors, dir.resolve("out.parquet").toString()},
            // Into directories export makes: they go again with the failed file.
            new String[] {
              "export", "arrow", vectors, dir.resolve("new/sub/out.arrow").toString()
            })) {
      assertThat(DatasetCommandsTest.fails(1, args).err())
          .as(String.join(" ", args))
          .isEqualTo(fileError);
    }
    assertThat(dir.resolve("out.parquet")).doesNotExist();
    assertThat(dir.resolve("new")).doesNotExist();
  }

  @Test
  void swappedDataFilesFailTakeScanAndLoad() throws Exception {
    // Two files of equal length and row count: rows of fixed width, in two versions.
    String vectors = dir.resolve("vectors").toString();
    DatasetCommandsTest.generate(vectors, "vectors", "200", "1");
    DatasetCommandsTest.generate(vectors, "vectors", "200", "2", "--append");
    List<Path> files = new ArrayList<>();
    for (JsonNode f : DatasetCommandsTest.json("info", vectors, "--files", "--json").get("files")) {
      files.add(dir.resolve("vectors").resolve(f.get("path").asText()));
    }
    assertThat(Files.size(files.get(0))).isEqualTo(Files.size(files.get(1)));
    List<String> before = Cli.ok("take", vectors, "--rows", "0", "--columns", "label").outLines();
    Path tmp = dir.resolve("tmp");
    Files.move(files.get(0), tmp);
    Files.move(files.get(1), files.get(0));
    Files.move(tmp, files.get(1));

    String first = dir.resolve("vectors").relativize(files.get(0)).toString();
    for (String[] args :
        List.of(
            new String[] {"take", vectors, "--rows", "0"},
            new String[] {"scan", vectors, "--limit", "1"},
            new String[] {"load", vectors},
            new String[] {"export", "parquet", vectors, dir.resolve("out.parquet").toString()})) {
      Cli.Result r = DatasetCommandsTest.fails(1, args);
      assertThat(r.out()).as(String.join(" ", args)).isEmpty();
      assertThat(r.err())
          .as(String.join(" ", args))
          .startsWith("riffle: corrupt file: " + files.get(0))
          .contains(first + " is not the file version 2 names (footer CRC 0x")
          .contains("files were swapped or replaced");
    }
    assertThat(before).hasSize(1);
  }
}
