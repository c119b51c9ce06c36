package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConvertCommandTest {
  @TempDir Path dir;

  static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message m { required int64 id; optional binary name (STRING); }");

  static void writeParquet(Path file, int rows) throws IOException {
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(SCHEMA)
            .withConf(new PlainParquetConfiguration())
            .build()) {
      for (int i = 0; i < rows; i++) {
        SimpleGroup g = new SimpleGroup(SCHEMA);
        g.add("id", (long) i);
        if (i % 3 != 0) {
          g.add("name", "n" + i);
        }
        w.write(g);
      }
    }
  }

  @Test
  void convertThenTakeThenExportBack() throws IOException {
    writeParquet(dir.resolve("a.parquet"), 100);
    writeParquet(dir.resolve("b.parquet"), 50);
    Path ds = dir.resolve("ds");
    Cli.Result r = Cli.ok("convert", "parquet", dir + "/*.parquet", ds.toString());
    assertThat(r.out())
        .startsWith("converted 150 rows from 2 files")
        .contains("version 1")
        .containsPattern("rows/s, [0-9.]+ (B|KiB|MiB|GiB)/s of input");
    Cli.Result take = Cli.ok("take", ds.toString(), "--rows", "101,0");
    assertThat(take.outLines())
        .containsExactly("{\"id\":1,\"name\":\"n1\"}", "{\"id\":0,\"name\":null}");

    Cli.Result e = Cli.ok("export", "parquet", ds + "@1", dir.resolve("out.parquet").toString());
    assertThat(e.out()).startsWith("exported 150 rows");
    Cli.ok(
        "convert", "parquet", dir.resolve("out.parquet").toString(), dir.resolve("ds2").toString());
    Cli.ok("export", "arrow", ds.toString(), dir.resolve("out.arrow").toString());
    Cli.Result a =
        Cli.ok(
            "convert", "arrow", dir.resolve("out.arrow").toString(), dir.resolve("ds3").toString());
    assertThat(a.out()).startsWith("converted 150 rows from 1 file ");
  }

  /** License, citation and description given to convert land in the manifest (#16 item 8). */
  @Test
  void licenseCitationAndDescriptionGoIntoTheManifest() throws IOException {
    writeParquet(dir.resolve("a.parquet"), 20);
    Path ds = dir.resolve("described");
    Cli.ok(
        "convert",
        "parquet",
        dir.resolve("a.parquet").toString(),
        ds.toString(),
        "--license",
        "CC-BY-4.0",
        "--description",
        "twenty rows",
        "--citation",
        "A dataset",
        "--citation-author",
        "A. Author",
        "--citation-author",
        "B. Author",
        "--citation-doi",
        "10.1234/x");
    JsonNode info = Json.MAPPER.readTree(Cli.ok("info", ds.toString(), "--json").out());
    assertThat(info.get("license").asText()).isEqualTo("CC-BY-4.0");
    assertThat(info.get("citation").get("title").asText()).isEqualTo("A dataset");
    assertThat(info.get("citation").get("authors").toString())
        .isEqualTo("[\"A. Author\",\"B. Author\"]");
    assertThat(info.get("citation").get("doi").asText()).isEqualTo("10.1234/x");
    assertThat(info.get("metadata").get("description").asText()).isEqualTo("twenty rows");
    Cli.Result orphan =
        Cli.run(
            "convert",
            "parquet",
            dir.resolve("a.parquet").toString(),
            dir.resolve("nope").toString(),
            "--citation-doi",
            "10.1/y");
    assertThat(orphan.exitCode()).isNotZero();
    assertThat(orphan.err()).contains("--citation-doi need --citation TITLE");
    assertThat(dir.resolve("nope")).doesNotExist();
  }

  /** --append adds a version; the error for an existing dataset names it (#16 item 8). */
  @Test
  void appendAddsAVersionAndRefusesAnotherSchema() throws IOException {
    writeParquet(dir.resolve("a.parquet"), 30);
    Path ds = dir.resolve("ds");
    String target = ds.toString();
    Cli.ok("convert", "parquet", dir.resolve("a.parquet").toString(), target);
    Cli.Result taken = Cli.run("convert", "parquet", dir.resolve("a.parquet").toString(), target);
    assertThat(taken.exitCode()).isEqualTo(1);
    assertThat(taken.errLines()).hasSize(1);
    assertThat(taken.err())
        .contains("a dataset already exists there (latest version 1)")
        .contains("add --append to convert into it as version 2");

    // An Arrow export of version 1, appended: version 2 holds it twice.
    Path arrow = dir.resolve("v1.arrow");
    Cli.ok("export", "arrow", target, arrow.toString());
    Cli.Result r = Cli.ok("convert", "arrow", "--append", arrow.toString(), target);
    assertThat(r.out()).startsWith("converted 30 rows from 1 file ").contains("version 2");
    assertThat(Cli.ok("take", target, "--rows", "31").outLines())
        .containsExactly("{\"id\":1,\"name\":\"n1\"}");

    // Another schema: one line naming the field; nothing written.
    MessageType other =
        MessageTypeParser.parseMessageType(
            "message m { required int64 id; optional binary label (STRING); }");
    Path b = dir.resolve("b.parquet");
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(b))
            .withType(other)
            .withConf(new PlainParquetConfiguration())
            .build()) {
      SimpleGroup g = new SimpleGroup(other);
      g.add("id", 1L);
      w.write(g);
    }
    long filesBefore;
    try (var all = Files.walk(ds)) {
      filesBefore = all.count();
    }
    Cli.Result bad = Cli.run("convert", "parquet", "--append", b.toString(), target);
    assertThat(bad.exitCode()).isEqualTo(1);
    assertThat(bad.errLines()).hasSize(1);
    assertThat(bad.err())
        .startsWith("riffle: " + b + ": cannot append to ")
        .contains("version 2: the schema differs in field 'name' is missing; field 'label' is new");
    try (var all = Files.walk(ds)) {
      assertThat(all.count()).isEqualTo(filesBefore);
    }
    assertThat(Cli.run("convert", "parquet", "--append", b.toString(), target + "@2").err())
        .contains("--append writes the dataset's next version; drop the @2");

    // Another type of a field: named as inspect and info name types, not as Arrow Java does.
    MessageType narrower =
        MessageTypeParser.parseMessageType(
            "message m { required int32 id; optional binary name (STRING); }");
    Path c = dir.resolve("c.parquet");
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(c))
            .withType(narrower)
            .withConf(new PlainParquetConfiguration())
            .build()) {
      SimpleGroup g = new SimpleGroup(narrower);
      g.add("id", 1);
      w.write(g);
    }
    Cli.Result type = Cli.run("convert", "parquet", "--append", c.toString(), target);
    assertThat(type.exitCode()).isEqualTo(1);
    assertThat(type.err())
        .endsWith(
            "version 2: the schema differs in field 'id' is int32 not null, the dataset has int64"
                + " not null\n");
  }

  @Test
  void badInputIsOneLineAndPublishesNothing() throws IOException {
    Path bad = dir.resolve("bad.parquet");
    Files.writeString(bad, "nope");
    Cli.Result r = Cli.run("convert", "parquet", bad.toString(), dir.resolve("ds").toString());
    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).startsWith("riffle: " + bad + ": not a readable Parquet file");
    assertThat(dir.resolve("ds")).doesNotExist();
  }

  @Test
  void exportToAnExistingFileFails() throws IOException {
    writeParquet(dir.resolve("a.parquet"), 10);
    Cli.ok("convert", "parquet", dir.resolve("a.parquet").toString(), dir.resolve("ds").toString());
    Cli.Result r =
        Cli.run(
            "export", "parquet", dir.resolve("ds").toString(), dir.resolve("a.parquet").toString());
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.errLines()).hasSize(1);
  }

  /** Converts input that must fail: exit 1, one line naming the input, no dataset left. */
  private String convertFails(String format, Path input) {
    Path ds = dir.resolve("from-" + input.getFileName());
    Cli.Result r = Cli.run("convert", format, input.toString(), ds.toString());
    assertThat(r.exitCode()).as("exit code for %s", input).isEqualTo(1);
    assertThat(r.errLines()).as("stderr for %s", input).hasSize(1);
    assertThat(r.err()).startsWith("riffle: " + input + ": ").doesNotContain("internal error");
    assertThat(ds).as("output of %s", input).doesNotExist();
    return r.err();
  }

  /** Issue #15 item 8: truncated or damaged Arrow IPC inputs, in both formats. */
  @Test
  void truncatedOrDamagedArrowFailsNamingItAndLeavesNothing() throws IOException {
    Path ds = dir.resolve("ds");
    Cli.ok("generate", "scalars", ds.toString(), "--rows", "100000", "--seed", "5");
    Path file = dir.resolve("all.arrow");
    Path stream = dir.resolve("all.arrows");
    Cli.ok("export", "arrow", ds.toString(), file.toString());
    Cli.ok("export", "arrow", "--stream", ds.toString(), stream.toString());
    byte[] fileBytes = Files.readAllBytes(file);
    byte[] streamBytes = Files.readAllBytes(stream);

    List<ArrowBlock> blocks;
    try (RootAllocator a = new RootAllocator();
        ArrowFileReader r =
            new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(fileBytes), a)) {
      blocks = r.getRecordBlocks();
    }
    assertThat(blocks).hasSizeGreaterThan(2);

    // The file cut where its third record batch starts: two whole batches, no footer.
    int cut = (int) blocks.get(2).getOffset();
    Path cutFile = dir.resolve("cut.arrow");
    Files.write(cutFile, Arrays.copyOf(fileBytes, cut));
    assertThat(convertFails("arrow", cutFile))
        .contains("incomplete Arrow IPC file: it ends at offset " + cut + " without its footer");

    // The stream without its end-of-stream marker: every batch there, the end not.
    Path cutStream = dir.resolve("cut.arrows");
    Files.write(cutStream, Arrays.copyOf(streamBytes, streamBytes.length - 8));
    assertThat(convertFails("arrow", cutStream))
        .contains(
            "incomplete Arrow IPC stream: it ends at offset "
                + (streamBytes.length - 8)
                + " without its end-of-stream marker")
        .contains("record batches (100000 rows) came before it");

    // Cut in the middle of a batch.
    int mid = (int) (blocks.get(1).getOffset() + blocks.get(2).getOffset()) / 2;
    Path midStream = dir.resolve("mid.arrows");
    Files.write(midStream, Arrays.copyOf(streamBytes, mid));
    assertThat(convertFails("arrow", midStream)).contains("incomplete Arrow IPC stream");

    // One byte of the second batch's metadata flipped: its row count.
    ArrowBlock second = blocks.get(1);
    ByteBuffer b = ByteBuffer.wrap(fileBytes).order(ByteOrder.LITTLE_ENDIAN);
    int at = (int) second.getOffset();
    while (b.getLong(at) != 32768) {
      at++;
    }
    assertThat(at).isLessThan((int) (second.getOffset() + second.getMetadataLength()));
    byte[] flipped = fileBytes.clone();
    flipped[at + 2] ^= 0x10;
    Path flip = dir.resolve("flip.arrow");
    Files.write(flip, flipped);
    assertThat(convertFails("arrow", flip))
        .contains("damaged Arrow IPC file")
        .contains("record batch 2 of " + blocks.size() + " at offset " + second.getOffset());

    // The whole inputs still convert.
    assertThat(Cli.ok("convert", "arrow", file.toString(), dir.resolve("f").toString()).out())
        .startsWith("converted 100,000 rows");
    assertThat(Cli.ok("convert", "arrow", stream.toString(), dir.resolve("s").toString()).out())
        .startsWith("converted 100,000 rows");
  }
}
