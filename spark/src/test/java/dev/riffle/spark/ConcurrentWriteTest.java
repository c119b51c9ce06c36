package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.dataset.write.DatasetOptions;
import dev.riffle.dataset.write.DatasetWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another writer publishes while a Spark job writes (here from inside one of its tasks, so that the
 * timing is certain): the job's commit is the one atomic step, so a create that lost the race fails
 * and leaves no file of its own, and an append goes on top of the other writer's version, losing
 * neither.
 */
class ConcurrentWriteTest {
  static SparkSession spark;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    spark = LocalSpark.session();
  }

  /**
   * A DataFrame of ids 0..n-1 whose row 0, when computed, makes {@code rival} publish a version.
   */
  static org.apache.spark.sql.Dataset<Row> racing(int n, String name) {
    return spark
        .range(n)
        .repartition(2)
        .withColumn("id", functions.callUDF(name, functions.col("id")));
  }

  /** Registers a UDF that, at id 0, publishes {@code rows} ids from 1000 at {@code location}. */
  static void rival(String name, Path location, Schema schema, boolean append, int rows) {
    String json = schema.toJson();
    String where = location.toString();
    spark
        .udf()
        .register(
            name,
            (org.apache.spark.sql.api.java.UDF1<Long, Long>)
                id -> {
                  if (id == 0) {
                    publish(Path.of(where), Schema.fromJSON(json), append, rows);
                  }
                  return id;
                },
            DataTypes.LongType);
  }

  static void publish(Path location, Schema schema, boolean append, int rows) {
    try (Storage storage = new LocalStorage(location);
        RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        DatasetWriter w =
            append
                ? DatasetWriter.append(storage, schema, null, DatasetOptions.defaults())
                : DatasetWriter.create(storage, schema, null, DatasetOptions.defaults())) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      id.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, 1000 + i);
      }
      root.setRowCount(rows);
      w.write(root);
      w.publish();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> dataFiles(Path ds) throws IOException {
    try (Stream<Path> s = Files.list(ds.resolve(DatasetLayout.DATA_DIR))) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  static Manifest manifest(Path ds, long version) throws IOException {
    try (Storage storage = new LocalStorage(ds)) {
      return Dataset.readManifest(storage, version);
    }
  }

  @Test
  void aCreateThatLosesTheRaceFailsAndLeavesNoFiles() throws Exception {
    Path ds = dir.resolve("ds");
    Schema schema = SparkTypes.toArrow(racing(1, "identity0").schema());
    rival("rivalCreate", ds, schema, false, 5);
    assertThatThrownBy(
            () -> racing(300, "rivalCreate").write().format("riffle").save(ds.toString()))
        .hasStackTraceContaining("a dataset already exists there");
    try (Storage storage = new LocalStorage(ds)) {
      assertThat(Dataset.versions(storage)).containsExactly(1L);
    }
    Manifest m = manifest(ds, 1);
    assertThat(m.totalRows()).isEqualTo(5);
    // Only the rival's file: the job's were deleted when the driver's commit failed.
    assertThat(dataFiles(ds))
        .containsExactlyElementsOf(
            m.files().stream().map(f -> f.path().substring(f.path().indexOf('/') + 1)).toList());
  }

  @Test
  void anAppendGoesOnTopOfAVersionPublishedMeanwhile() throws Exception {
    Path ds = dir.resolve("ds");
    racing(10, "identity0").write().format("riffle").save(ds.toString());
    Schema schema = SparkTypes.toArrow(racing(1, "identity0").schema());
    rival("rivalAppend", ds, schema, true, 5);
    racing(300, "rivalAppend").write().format("riffle").mode("append").save(ds.toString());
    try (Storage storage = new LocalStorage(ds)) {
      assertThat(Dataset.versions(storage)).containsExactly(1L, 2L, 3L);
    }
    assertThat(manifest(ds, 2).totalRows()).isEqualTo(15);
    assertThat(manifest(ds, 3).totalRows()).isEqualTo(315);
    List<Long> ids =
        spark.read().format("riffle").load(ds.toString()).select("id").collectAsList().stream()
            .map(r -> r.getLong(0))
            .sorted()
            .toList();
    assertThat(ids).hasSize(315);
    assertThat(ids.stream().filter(i -> i >= 1000).count()).isEqualTo(5);
    assertThat(ids.stream().filter(i -> i == 0).count()).isEqualTo(2);
  }

  static {
    // The plain identity, to make the frames' schema without a rival.
    LocalSpark.session()
        .udf()
        .register(
            "identity0",
            (org.apache.spark.sql.api.java.UDF1<Long, Long>) id -> id,
            DataTypes.LongType);
  }
}
