package dev.riffle.spark;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's MLlib example, run as written: a model trained on a split of embeddings, and its
 * predictions (vectors among them) written back as the dataset's next version, read back exactly.
 * The README quotes the region between the README markers; the test fails when the two drift.
 */
class MlPipelineTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path dir;

  @Test
  void logisticRegressionOnASplitWritesPredictionsBack() {
    SparkSession spark = LocalSpark.session();
    spark.conf().set("spark.sql.catalog.riffle", RiffleCatalog.class.getName());
    String atlas = dir.resolve("atlas.riffle").toString();
    // Version 1: 2,000 cells with an 8-float embedding and a label it determines linearly.
    spark
        .range(0, 2000, 1, 2)
        .selectExpr(
            "id",
            "transform(sequence(0, 7), k -> cast(pmod(hash(id, k), 1000) / 1e3 as float)) emb")
        .selectExpr("*", "cast(emb[0] + emb[1] > 1 as double) as label")
        .write()
        .format("riffle")
        .save(atlas);
    // Version 2: the train and test splits.
    spark.sql(
        "CALL riffle.system.random_split(location => '"
            + atlas
            + "', name => 'train', fraction => 0.8, seed => 7, rest => 'test')");

    // README:begin
    Dataset<Row> train =
        spark
            .read()
            .format("riffle")
            .option("split", "train")
            .load(atlas)
            .withColumn("features", array_to_vector(col("emb")));
    LogisticRegressionModel model = new LogisticRegression().fit(train); // "label", "features"
    Dataset<Row> cells =
        spark
            .read()
            .format("riffle")
            .load(atlas)
            .withColumn("features", array_to_vector(col("emb")));
    model.transform(cells).write().format("riffle").mode("overwrite").save(atlas); // version 3
    spark.read().format("riffle").load(atlas).select("id", "prediction", "probability").show(3);
    // README:end

    Dataset<Row> back = spark.read().format("riffle").load(atlas);
    assertThat(back.schema().apply("probability").dataType()).isInstanceOf(VectorUDT.class);
    assertThat(back.schema().apply("rawPrediction").dataType()).isInstanceOf(VectorUDT.class);
    assertThat(back.schema().apply("features").dataType()).isInstanceOf(VectorUDT.class);
    // The same model on version 2 again: every prediction and vector, bit for bit.
    Dataset<Row> v2 =
        spark
            .read()
            .format("riffle")
            .option("version", 2)
            .load(atlas)
            .withColumn("features", array_to_vector(col("emb")));
    Map<Long, Row> expected = byId(model.transform(v2));
    Map<Long, Row> actual = byId(back);
    assertThat(actual).hasSize(2000).containsOnlyKeys(expected.keySet());
    for (Map.Entry<Long, Row> e : expected.entrySet()) {
      Row a = actual.get(e.getKey());
      Row x = e.getValue();
      assertThat(a.getDouble(1)).as("prediction %d", e.getKey()).isEqualTo(x.getDouble(1));
      for (int c = 2; c <= 4; c++) {
        assertThat(a.get(c)).isInstanceOf(DenseVector.class);
        assertThat(bits((Vector) a.get(c)))
            .as("column %d of %d", c, e.getKey())
            .isEqualTo(bits((Vector) x.get(c)));
      }
    }
    // The model learned the rule (the split was read, not noise), and version 2 is still there.
    long right = back.where("prediction = label").count();
    assertThat(right).isGreaterThan(1900);
    assertThat(spark.read().format("riffle").option("version", 2).load(atlas).columns())
        .containsExactly("id", "emb", "label");
  }

  @Test
  void readmeQuotesTheTestedExample() throws Exception {
    List<String> region = new ArrayList<>();
    boolean in = false;
    for (String line :
        Files.readAllLines(
            ROOT.resolve("spark/src/test/java/dev/riffle/spark/MlPipelineTest.java"))) {
      if (line.trim().equals("// README:end")) {
        in = false;
      }
      if (in) {
        region.add(line.length() >= 4 ? line.substring(4) : line.trim());
      }
      if (line.trim().equals("// README:begin")) {
        in = true;
      }
    }
    String expected = String.join("\n", region) + "\n";
    List<String> blocks = new ArrayList<>();
    StringBuilder cur = null;
    for (String line : Files.readAllLines(ROOT.resolve("README.md"))) {
      if (cur == null && line.equals("```java")) {
        cur = new StringBuilder();
      } else if (cur != null && line.equals("```")) {
        blocks.add(cur.toString());
        cur = null;
      } else if (cur != null) {
        cur.append(line).append('\n');
      }
    }
    assertThat(blocks)
        .as("README.md's MLlib block against MlPipelineTest's README region (copy it over)")
        .filteredOn(b -> b.contains("array_to_vector("))
        .containsExactly(expected);
  }

  private static Map<Long, Row> byId(Dataset<Row> df) {
    Map<Long, Row> out = new TreeMap<>();
    for (Row r :
        df.select("id", "prediction", "probability", "rawPrediction", "features").collectAsList()) {
      out.put(r.getLong(0), r);
    }
    return out;
  }

  private static long[] bits(Vector v) {
    double[] d = v.toArray();
    long[] out = new long[d.length];
    for (int i = 0; i < d.length; i++) {
      out[i] = Double.doubleToRawLongBits(d[i]);
    }
    return out;
  }
}
