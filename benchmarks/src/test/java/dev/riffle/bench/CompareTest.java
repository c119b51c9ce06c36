package dev.riffle.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.write.WriterOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The comparison runner on tiny files of every type: every format returns the same rows for the
 * same indices.
 */
class CompareTest {
  @TempDir Path dir;

  @Test
  void everyFormatReturnsTheSameRows() throws Exception {
    Compare c = new Compare();
    c.dir = dir;
    try (BufferAllocator allocator = new RootAllocator()) {
      for (String type : Types.ALL) {
        // The ML shapes get a few pages per column in default Parquet, so that takes cross the
        // page boundaries of columns whose pages do not line up.
        long rows = Types.narrow(type) ? 5000 : Types.lance8(type) ? 40 : 300;
        c.rowCounts.put(type, rows);
        // Split float records and LISTS sectors on, so that vec768, list_vec and list_u64 read
        // back from format 1.2 files.
        PeerFiles.write(
            dir,
            type,
            rows,
            1,
            Compare.WRITE_FORMATS,
            WriterOptions.defaults().withSplitFloats(true).withListSectors(true),
            allocator);
        long[] idx = new SplittableRandom(type.hashCode()).longs(64, 0, rows).toArray();
        idx[0] = 0;
        idx[1] = rows - 1;
        idx[2] = idx[3];
        long[] expected = null;
        for (String format :
            List.of(
                "riffle",
                "riffle-direct",
                "riffle-engine",
                "parquet",
                "parquet-tuned",
                "arrow-ipc")) {
          try (Peer p = c.open(format, type, 8, allocator);
              Peer.Taker t = p.taker()) {
            long[] got = t.take(idx, true);
            if (expected == null) {
              expected = got;
            } else {
              assertThat(got).as(type + " " + format).containsExactly(expected);
            }
            assertThat(t.take(idx, false)).isNull();
            assertThat(p.scan(null)).as(type + " " + format + " scan").isEqualTo(rows);
            String label = Types.labelColumn(type);
            if (label != null) {
              assertThat(p.scan(label)).as(type + " " + format + " scan " + label).isEqualTo(rows);
            }
          }
        }
        for (String f : List.of("parquet-zstd")) {
          try (Peer p = new ParquetPeer(type, PeerFiles.file(dir, type, rows, f), f);
              Peer.Taker t = p.taker()) {
            assertThat(t.take(idx, true)).as(type + " " + f).containsExactly(expected);
          }
        }
      }
      // The report renders from a (fake) result set.
      c.results.add(
          new java.util.LinkedHashMap<>(
              Map.of(
                  "op",
                  "take",
                  "type",
                  "u64",
                  "format",
                  "riffle",
                  "cache",
                  "warm",
                  "concurrency",
                  1,
                  "rows_per_s",
                  1000.0,
                  "syscr_per_row",
                  1.0,
                  "disk_bytes_per_row",
                  0.0)));
      c.types = List.of("u64");
      c.caches = List.of("warm");
      c.concurrency = new int[] {1};
      c.out = dir.resolve("out");
      c.name = "t";
      c.command = "Compare --test";
      c.writeReport(java.time.ZonedDateTime.now());
      assertThat(Files.readString(dir.resolve("out/t.md"))).contains("| u64 |");
      assertThat(Files.size(dir.resolve("out/t.png"))).isPositive();
    }
  }
}
