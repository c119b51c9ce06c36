package dev.riffle.bench;

import dev.riffle.convert.ConvertOptions;
import dev.riffle.convert.ConvertResult;
import dev.riffle.convert.ParquetConverter;
import dev.riffle.convert.SourceFile;
import dev.riffle.dataset.storage.LocalStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Conversion throughput of {@code riffle convert parquet}'s code path: writes a Parquet file of
 * {@code --rows} generated rows (an id, a double, a short string, a small int and a list of four
 * floats; snappy, dictionary on) with parquet-mr, then converts it to a dataset and prints rows/s
 * and MB/s in and out. The input is generated, not a real file: compare runs of this runner with
 * each other, not with real conversions.
 */
@Command(
    name = "ConvertThroughput",
    mixinStandardHelpOptions = true,
    description = "Parquet to Riffle conversion throughput on a generated file.")
public final class ConvertThroughput implements Callable<Integer> {
  @Option(names = "--rows", defaultValue = "1000000", description = "Rows to generate.")
  int rows;

  @Option(
      names = "--dir",
      defaultValue = "/tmp/riffle-convert-bench",
      description = "Scratch folder (emptied first).")
  Path dir;

  public static void main(String[] args) {
    System.exit(new CommandLine(new ConvertThroughput()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (Files.exists(dir)) {
      try (var walk = Files.walk(dir)) {
        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Files.createDirectories(dir);
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message m { required int64 id; optional double x; optional binary name (STRING);"
                + " optional int32 cat; optional group v (LIST) { repeated group list {"
                + " required float element; } } }");
    Path file = dir.resolve("bench.parquet");
    Random r = new Random(1);
    long t0 = System.nanoTime();
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(schema)
            .withConf(new PlainParquetConfiguration())
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withRowGroupSize(128L << 20)
            .withDictionaryEncoding(true)
            .build()) {
      for (int i = 0; i < rows; i++) {
        SimpleGroup g = new SimpleGroup(schema);
        g.add("id", (long) i);
        g.add("x", r.nextGaussian());
        g.add("name", "name-" + r.nextInt(100_000));
        g.add("cat", r.nextInt(50));
        Group v = g.addGroup("v");
        for (int k = 0; k < 4; k++) {
          v.addGroup("list").add("element", r.nextFloat());
        }
        w.write(g);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "generated %d rows, %.1f MB in %.1f s%n",
        rows,
        Files.size(file) / 1e6,
        (System.nanoTime() - t0) / 1e9);
    try (RootAllocator a = new RootAllocator();
        LocalStorage out = new LocalStorage(dir.resolve("out"))) {
      ConvertResult res =
          ParquetConverter.convert(
              List.of(SourceFile.local(file)), out, a, ConvertOptions.defaults());
      System.out.printf(
          Locale.ROOT,
          "rows=%d in=%.1f MB out=%.1f MB time=%.2f s -> %.0f rows/s, %.1f MB/s%n",
          res.rows(),
          res.bytesIn() / 1e6,
          res.bytesOut() / 1e6,
          res.seconds(),
          res.rowsPerSecond(),
          res.bytesPerSecond() / 1e6);
    }
    return 0;
  }
}
