package dev.riffle.convert;

import dev.riffle.dataset.storage.LocalStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversion throughput on a generated file; run with {@code -Driffle.bench.rows=N} (skipped in
 * normal builds).
 */
class ThroughputBench {
  @TempDir Path dir;

  @Test
  @EnabledIfSystemProperty(named = "riffle.bench.rows", matches = "\\d+")
  void convert() throws Exception {
    int rows = Integer.parseInt(System.getProperty("riffle.bench.rows"));
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message m { required int64 id; optional double x; optional binary name (STRING);"
                + " optional int32 cat; optional group v (LIST) { repeated group list {"
                + " required float element; } } }");
    Path file = dir.resolve("bench.parquet");
    Random r = new Random(1);
    long t0 = System.nanoTime();
    try (ParquetWriter<Group> w =
        ParquetFixtures.writer(file, schema, CompressionCodecName.SNAPPY, 128 << 20)) {
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
    long size = Files.size(file);
    System.out.printf(
        "generated %d rows, %.1f MB in %.1f s%n", rows, size / 1e6, (System.nanoTime() - t0) / 1e9);
    try (RootAllocator a = new RootAllocator();
        ParquetBatchReader reader =
            ParquetBatchReader.open(SourceFile.local(file).inputFile(), "f")) {
      long t1 = System.nanoTime();
      long n = reader.read(a, 1 << 16, 64L << 20, b -> b.close(), x -> {});
      System.out.printf(
          "BENCH decode only: %d rows in %.2f s%n", n, (System.nanoTime() - t1) / 1e9);
    }
    try (RootAllocator a = new RootAllocator();
        LocalStorage s = new LocalStorage(dir.resolve("out"))) {
      ConvertResult res =
          ParquetConverter.convert(
              List.of(SourceFile.local(file)), s, a, ConvertOptions.defaults());
      System.out.printf(
          "BENCH rows=%d in=%.1f MB out=%.1f MB time=%.2f s -> %.0f rows/s, %.1f MB/s%n",
          res.rows(),
          res.bytesIn() / 1e6,
          res.bytesOut() / 1e6,
          res.seconds(),
          res.rowsPerSecond(),
          res.bytesPerSecond() / 1e6);
    }
  }
}
