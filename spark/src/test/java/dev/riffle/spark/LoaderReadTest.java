package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.plan.BlockShuffle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The training loader reads a dataset that Spark wrote: every row once per epoch, intact. */
class LoaderReadTest {
  @TempDir Path dir;

  @Test
  void loaderReadsASparkWrittenDataset() throws Exception {
    SparkSession spark = LocalSpark.session();
    int rows = 400;
    // emb[k] = id + k / 10, so a row's values say which row it is.
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .range(rows)
            .repartition(3)
            .withColumn(
                "emb",
                functions.transform(
                    functions.array_repeat(functions.lit(0f), 4),
                    (x, k) -> functions.col("id").plus(k.divide(10)).cast("float")))
            .withColumn("label", functions.col("id").mod(7).cast("int"));
    Path ds = dir.resolve("ds");
    df.write().format("riffle").option("targetFileRows", 60).save(ds.toString());

    List<Long> seen = new ArrayList<>();
    try (LocalStorage storage = new LocalStorage(ds);
        RootAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.open(storage, allocator)) {
      assertThat(dataset.fileCount()).isGreaterThan(3);
      LoaderOptions o = LoaderOptions.of(new BlockShuffle(16, 2, 0.25, false), 50, 7).withEpochs(1);
      try (Loader loader = Loader.open(dataset.all(), o, allocator)) {
        for (VectorSchemaRoot next = loader.next(); next != null; next = loader.next()) {
          try (VectorSchemaRoot b = next) {
            BigIntVector id = (BigIntVector) b.getVector("id");
            ListVector emb = (ListVector) b.getVector("emb");
            for (int i = 0; i < b.getRowCount(); i++) {
              long v = id.get(i);
              seen.add(v);
              List<Float> expected = new ArrayList<>();
              for (int k = 0; k < 4; k++) {
                expected.add((float) (v + k / 10.0));
              }
              assertThat(emb.getObject(i)).isEqualTo(expected);
              assertThat(b.getVector("label").getObject(i)).isEqualTo((int) (v % 7));
            }
          }
        }
      }
    }
    assertThat(seen).hasSize(rows);
    assertThat(new TreeSet<>(seen)).hasSize(rows).first().isEqualTo(0L);
  }
}
