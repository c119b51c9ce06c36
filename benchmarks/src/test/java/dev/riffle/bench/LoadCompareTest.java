package dev.riffle.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader benchmark runner on a tiny sparse dataset: every sampler covers the epoch once. */
class LoadCompareTest {
  @TempDir Path dir;

  static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.notNullable(ArrowType.List.INSTANCE),
        List.of(Field.notNullable("item", item)));
  }

  static void write(Path data, int rows) throws Exception {
    Schema schema =
        new Schema(
            List.of(
                list("indices", new ArrowType.Int(32, true)),
                list("values", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                Field.notNullable("plate", new ArrowType.Int(32, true))));
    try (BufferAllocator a = new RootAllocator();
        DatasetWriter w =
            DatasetWriter.create(
                new LocalStorage(data),
                schema,
                null,
                DatasetOptions.defaults().withTargetFileBytes(16 << 10));
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
      root.allocateNew();
      UnionListWriter iw = ((ListVector) root.getVector("indices")).getWriter();
      UnionListWriter vw = ((ListVector) root.getVector("values")).getWriter();
      IntVector plate = (IntVector) root.getVector("plate");
      for (int r = 0; r < rows; r++) {
        iw.setPosition(r);
        vw.setPosition(r);
        iw.startList();
        vw.startList();
        for (int k = 0; k < r % 5; k++) {
          iw.integer().writeInt(r + k);
          vw.float4().writeFloat4(k);
        }
        iw.endList();
        vw.endList();
        plate.setSafe(r, r * 7 / rows);
      }
      root.setRowCount(rows);
      w.write(root);
      w.publish();
    }
  }

  @Test
  void everySamplerAndTheBaselineCoverTheEpochExactlyOnce() throws Exception {
    Path data = dir.resolve("data");
    write(data, 3001);
    Path out = dir.resolve("out");
    LoadCompare.Options o =
        new LoadCompare.Options(
            data,
            dir.resolve("copy.parquet"),
            out,
            "tiny",
            32,
            8,
            List.of(new int[] {8, 4}, new int[] {4, 16}),
            256,
            "plate",
            1,
            1,
            false,
            true,
            2,
            64L << 20,
            0.25,
            3,
            List.of(256),
            "test");
    List<LoadCompare.Result> results = LoadCompare.run(o);
    // sequential, random, two block configurations, the Parquet baseline.
    assertThat(results).hasSize(5);
    for (LoadCompare.Result r : results) {
      assertThat(r.coverageExact()).as(r.sampler()).isTrue();
      assertThat(r.rows()).as(r.sampler()).isBetween(3001L, 3001L + 31);
      assertThat(r.meffOverM()).as(r.sampler()).isBetween(0.0, 1.0);
      // Not positive: the process's CPU time comes in 10 ms ticks (times(2) on Linux), and one
      // warm epoch of 3,001 rows can cost less than one, so it may read 0 on a fast machine.
      assertThat(r.cpuSeconds()).as(r.sampler()).isNotNegative();
    }
    LoadCompare.Result seq = results.get(0);
    LoadCompare.Result random = results.get(1);
    assertThat(seq.kind()).isEqualTo("sequential");
    // Machine-independent: a sequential batch is 4 blocks of 8, a random one nearly 32.
    assertThat(seq.distinctBlocksMean()).isBetween(4.0, 5.0);
    assertThat(random.distinctBlocksMean()).isGreaterThan(25.0);
    assertThat(Files.readString(out.resolve("tiny.md"))).contains("parquet-mr shuffle buffer");
    assertThat(Files.size(out.resolve("tiny.png"))).isPositive();
    assertThat(Files.readString(out.resolve("tiny.json"))).contains("\"samplesPerSecond\"");
  }

  @Test
  void theCommandLineRunsAndReportsWhatItWasGiven() throws Exception {
    Path data = dir.resolve("data");
    write(data, 500);
    Path out = dir.resolve("cli");
    String[] args = {
      "--data",
      data.toString(),
      "--parquet",
      dir.resolve("unused.parquet").toString(),
      "--out",
      out.toString(),
      "--name",
      "cli",
      "--batch",
      "32",
      "--block",
      "8",
      "--grid",
      "8:4",
      "--sequential",
      "256",
      "--rounds",
      "1",
      "--baseline-rounds",
      "0",
      "--direct",
      "--memory-mb",
      "64",
      "--seed",
      "3"
    };
    LoadCompare.Args a = new LoadCompare.Args();
    a.command = "LoadCompare " + String.join(" ", args);
    assertThat(new picocli.CommandLine(a).execute(args)).isZero();
    assertThat(Files.exists(dir.resolve("unused.parquet"))).as("no baseline, no copy").isFalse();
    String md = Files.readString(out.resolve("cli.md"));
    assertThat(md).contains("`" + a.command + "`").contains("block(b=8,f=4");
    assertThat(md).doesNotContain("parquet-mr shuffle buffer");
  }
}
