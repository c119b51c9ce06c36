package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.Metadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark column metadata (what {@code StringIndexer} leaves for {@code IndexToString}) is kept in
 * the dataset's schema and returned on read; an append keeps the dataset's.
 */
class ColumnMetadataTest {
  @TempDir Path dir;

  @Test
  void columnMetadataRoundTrips() {
    SparkSession spark = LocalSpark.session();
    Metadata attr =
        Metadata.fromJson(
            "{\"ml_attr\":{\"vals\":[\"b cell\",\"t cell\",\"nk\"],\"type\":\"nominal\","
                + "\"name\":\"label\"},\"comment\":\"cell type index\"}");
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .range(6)
            .select(
                functions.col("id"), functions.col("id").mod(3).cast("double").as("label", attr));
    Path ds = dir.resolve("ds");
    df.write().format("riffle").save(ds.toString());
    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(ds.toString());
    assertThat(back.schema().apply("label").metadata()).isEqualTo(attr);
    assertThat(back.schema().apply("id").metadata()).isEqualTo(Metadata.empty());
    assertThat(
            back.schema().apply("label").metadata().getMetadata("ml_attr").getStringArray("vals"))
        .containsExactly("b cell", "t cell", "nk");

    spark
        .range(6, 8)
        .select(functions.col("id"), functions.col("id").mod(3).cast("double").as("label"))
        .write()
        .format("riffle")
        .mode("append")
        .save(ds.toString());
    org.apache.spark.sql.Dataset<Row> appended = spark.read().format("riffle").load(ds.toString());
    assertThat(appended.count()).isEqualTo(8);
    assertThat(appended.schema().apply("label").metadata()).isEqualTo(attr);
  }
}
