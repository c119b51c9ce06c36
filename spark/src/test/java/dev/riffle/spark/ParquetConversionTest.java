package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.convert.ConvertOptions;
import dev.riffle.convert.ParquetConverter;
import dev.riffle.convert.SourceFile;
import dev.riffle.convert.SourceFiles;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.LocalStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parquet → Riffle with Spark, the scale-out path for big datasets, gives what the single-machine
 * converter gives for the same files: the same columns, types and values.
 */
class ParquetConversionTest {
  @TempDir Path dir;

  @Test
  void sparkConversionMatchesTheSingleMachineConverter() throws Exception {
    SparkSession spark = LocalSpark.session();
    // Types that Parquet keeps (no intervals), nested and with nulls.
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .createDataFrame(SparkConnectorTest.rows(600, 77), SparkConnectorTest.SCHEMA)
            .drop("gap");
    Path parquet = dir.resolve("parquet");
    df.repartition(3).write().parquet(parquet.toString());

    Path bySpark = dir.resolve("by-spark");
    spark.read().parquet(parquet.toString()).write().format("riffle").save(bySpark.toString());

    Path byConverter = dir.resolve("by-converter");
    List<SourceFile> inputs = new ArrayList<>();
    try (Stream<Path> files = Files.list(parquet)) {
      for (Path p : files.filter(p -> p.toString().endsWith(".parquet")).sorted().toList()) {
        inputs.add(SourceFile.local(p));
      }
    }
    assertThat(inputs).hasSize(3);
    try (RootAllocator allocator = new RootAllocator()) {
      ParquetConverter.convert(
          inputs, new LocalStorage(byConverter), allocator, ConvertOptions.defaults());
    }

    org.apache.spark.sql.Dataset<Row> a = spark.read().format("riffle").load(bySpark.toString());
    org.apache.spark.sql.Dataset<Row> b =
        spark.read().format("riffle").load(byConverter.toString());
    assertThat(a.schema().simpleString()).isEqualTo(b.schema().simpleString());
    assertThat(a.schema().simpleString()).isEqualTo(df.schema().simpleString());
    assertThat(a.count()).isEqualTo(600);
    assertThat(SparkConnectorTest.json(a)).isEqualTo(SparkConnectorTest.json(b));
    assertThat(SparkConnectorTest.json(a)).isEqualTo(SparkConnectorTest.json(df));

    // The same Arrow types underneath, field by field (names of list items aside).
    try (RootAllocator allocator = new RootAllocator();
        Dataset x = Dataset.open(new LocalStorage(bySpark), allocator);
        Dataset y = Dataset.open(new LocalStorage(byConverter), allocator)) {
      assertThat(x.rowCount()).isEqualTo(y.rowCount());
      assertThat(types(x.arrowSchema().getFields())).isEqualTo(types(y.arrowSchema().getFields()));
    }
  }

  /**
   * Spark's partitionBy output (key=value directories, Spark's escapes, a null partition) keeps its
   * keys through the single-machine converter, with the values Spark itself reads back.
   */
  @Test
  void sparkPartitionedParquetKeepsItsKeys() throws Exception {
    SparkSession spark = LocalSpark.session();
    List<Row> rows = new ArrayList<>();
    String[] tissues = {"lung", "bone marrow", "a/b:c", "x=y%", null};
    for (int i = 0; i < 60; i++) {
      rows.add(RowFactory.create(i, i * 0.5, tissues[i % tissues.length], i % 3 + 1));
    }
    StructType schema =
        new StructType()
            .add("id", DataTypes.IntegerType, false)
            .add("x", DataTypes.DoubleType, false)
            .add("tissue", DataTypes.StringType, true)
            .add("plate", DataTypes.IntegerType, false);
    Path parquet = dir.resolve("partitioned");
    spark
        .createDataFrame(rows, schema)
        .write()
        .partitionBy("tissue", "plate")
        .parquet(parquet.toString());

    Path out = dir.resolve("converted");
    try (RootAllocator allocator = new RootAllocator()) {
      ParquetConverter.convert(
          SourceFiles.expand(List.of(parquet.toString()), java.util.Map.of()),
          new LocalStorage(out),
          allocator,
          ConvertOptions.defaults());
    }
    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(out.toString());
    assertThat(back.schema().simpleString())
        .isEqualTo("struct<id:int,x:double,tissue:string,plate:bigint>");
    org.apache.spark.sql.Dataset<Row> bySpark =
        spark
            .read()
            .parquet(parquet.toString())
            .selectExpr("id", "x", "tissue", "CAST(plate AS BIGINT) AS plate");
    assertThat(SparkConnectorTest.json(back.orderBy("id")))
        .isEqualTo(SparkConnectorTest.json(bySpark.orderBy("id")))
        .contains("{\"id\":2,\"x\":1.0,\"tissue\":\"a/b:c\",\"plate\":3}")
        .contains("{\"id\":4,\"x\":2.0,\"plate\":2}");
  }

  static List<String> types(List<org.apache.arrow.vector.types.pojo.Field> fields) {
    List<String> out = new ArrayList<>();
    for (var f : fields) {
      out.add(f.getName() + ":" + f.getType() + types(f.getChildren()));
    }
    return out;
  }
}
