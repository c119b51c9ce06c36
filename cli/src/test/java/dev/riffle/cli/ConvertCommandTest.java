package dev.riffle.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    assertThat(r.out()).startsWith("converted 150 rows from 2 files").contains("version 1");
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
}
