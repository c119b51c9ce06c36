package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.ml.feature.HashingTF;
import org.apache.spark.ml.feature.Tokenizer;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SparseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark ML vectors are stored as Spark stores them (sparse ones as their entries, dense ones as
 * their float64 values) and read back as the same vectors, bit for bit.
 */
class MlVectorTest {
  @TempDir Path dir;

  private static final StructType SCHEMA =
      new StructType().add("id", DataTypes.IntegerType).add("v", new VectorUDT(), true);

  @Test
  void hashingTfVectorsStaySparse() {
    SparkSession spark = LocalSpark.session();
    long seed = 20L;
    System.out.println("MlVectorTest.hashingTfVectorsStaySparse: seed " + seed);
    Random random = new Random(seed);
    List<Row> docs = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      StringBuilder text = new StringBuilder();
      int words = 20 + random.nextInt(40);
      for (int w = 0; w < words; w++) {
        text.append(" w").append(random.nextInt(5000));
      }
      docs.add(RowFactory.create(i, text.toString().trim()));
    }
    StructType textSchema =
        new StructType().add("id", DataTypes.IntegerType).add("text", DataTypes.StringType);
    org.apache.spark.sql.Dataset<Row> words =
        new Tokenizer()
            .setInputCol("text")
            .setOutputCol("words")
            .transform(spark.createDataFrame(docs, textSchema));
    org.apache.spark.sql.Dataset<Row> tf =
        new HashingTF()
            .setInputCol("words")
            .setOutputCol("features")
            .setNumFeatures(262_144)
            .transform(words)
            .select("id", "features");
    Path ds = dir.resolve("tf");
    tf.write().format("riffle").save(ds.toString());

    // Dense, 200 rows would be 200 MB; Parquet holds them in about 30 KB.
    assertThat(bytesUnder(ds.resolve("data"))).isLessThan(100_000);
    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(ds.toString());
    assertThat(back.schema().apply("features").dataType()).isInstanceOf(VectorUDT.class);
    Map<Integer, Vector> expected = byId(tf, "features");
    Map<Integer, Vector> actual = byId(back, "features");
    assertThat(actual).hasSize(200);
    for (Map.Entry<Integer, Vector> e : expected.entrySet()) {
      Vector a = actual.get(e.getKey());
      assertThat(a)
          .as("row %d", e.getKey())
          .isInstanceOf(SparseVector.class)
          .isEqualTo(e.getValue());
      assertThat(((SparseVector) a).indices()).isEqualTo(((SparseVector) e.getValue()).indices());
    }
  }

  @Test
  void denseAndSparseVectorsInOneColumnRoundTripBitExactly() {
    SparkSession spark = LocalSpark.session();
    double[] dense = {
      1.0 / 3, -0.0, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN, -1e-310, 0.1 + 0.2, 1.9e-6
    };
    List<Row> rows =
        List.of(
            RowFactory.create(0, Vectors.dense(dense)),
            RowFactory.create(1, Vectors.sparse(1_000_000, new int[] {3, 999_999}, TWO)),
            RowFactory.create(2, null),
            RowFactory.create(3, Vectors.sparse(5, new int[0], new double[0])),
            RowFactory.create(4, Vectors.dense(new double[0])));
    Path ds = dir.resolve("mixed");
    spark.createDataFrame(rows, SCHEMA).write().format("riffle").save(ds.toString());
    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(ds.toString());
    assertThat(back.schema().apply("v").dataType()).isInstanceOf(VectorUDT.class);
    Map<Integer, Vector> got = byId(back, "v");
    assertThat(got.get(0)).isInstanceOf(DenseVector.class);
    assertThat(bits(got.get(0).toArray())).isEqualTo(bits(dense));
    assertThat(got.get(1)).isInstanceOf(SparseVector.class);
    SparseVector s = (SparseVector) got.get(1);
    assertThat(s.size()).isEqualTo(1_000_000);
    assertThat(s.indices()).containsExactly(3, 999_999);
    assertThat(bits(s.values())).isEqualTo(bits(TWO));
    assertThat(got.get(2)).isNull();
    assertThat(got.get(3)).isEqualTo(Vectors.sparse(5, new int[0], new double[0]));
    assertThat(got.get(4)).isInstanceOf(DenseVector.class);
    assertThat(got.get(4).size()).isZero();
    // The same through a take (a _row_id lookup) as through a scan.
    assertThat(
            back.where("_row_id IN (0, 1)").select("v").collectAsList().stream()
                .map(r -> (Vector) r.get(0))
                .toList())
        .containsExactlyInAnyOrder(got.get(0), got.get(1));
  }

  /** Vectors inside arrays and structs, float64 and float32. */
  @Test
  void nestedVectorsRoundTrip() {
    SparkSession spark = LocalSpark.session();
    StructType schema =
        new StructType()
            .add("id", DataTypes.IntegerType)
            .add("vs", DataTypes.createArrayType(new VectorUDT(), true))
            .add("st", new StructType().add("v", new VectorUDT(), true));
    Vector sparse = Vectors.sparse(100, new int[] {0, 99}, new double[] {0.1, -1e300});
    Vector dense = Vectors.dense(1.0 / 3, 2);
    List<Row> rows =
        List.of(
            RowFactory.create(0, List.of(sparse, dense), RowFactory.create(sparse)),
            RowFactory.create(1, null, RowFactory.create((Object) null)));
    for (boolean f32 : new boolean[] {false, true}) {
      Path ds = dir.resolve("nested-" + f32);
      spark
          .createDataFrame(rows, schema)
          .write()
          .format("riffle")
          .option("vectorFloat32", f32)
          .save(ds.toString());
      org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(ds.toString());
      assertThat(back.schema().simpleString()).isEqualTo(schema.simpleString());
      Row r0 = back.where("id = 0").first();
      List<Object> vs = r0.getList(1);
      Vector s =
          f32
              ? Vectors.sparse(100, new int[] {0, 99}, new double[] {0.1f, (float) -1e300})
              : sparse;
      Vector d = f32 ? Vectors.dense((float) (1.0 / 3), 2) : dense;
      assertThat(vs).containsExactly(s, d);
      assertThat(r0.getStruct(2).get(0)).isEqualTo(s);
      Row r1 = back.where("id = 1").first();
      assertThat(r1.isNullAt(1)).isTrue();
      assertThat(r1.getStruct(2).isNullAt(0)).isTrue();
    }
  }

  @Test
  void float32WhenAskedAndOldDenseDatasetsStillAppend() {
    SparkSession spark = LocalSpark.session();
    List<Row> rows =
        List.of(
            RowFactory.create(0, Vectors.dense(1.0 / 3, 1.5, -2)),
            RowFactory.create(1, Vectors.sparse(4, new int[] {1, 3}, new double[] {7, 0.1})));
    Path f32 = dir.resolve("f32");
    spark
        .createDataFrame(rows, SCHEMA)
        .write()
        .format("riffle")
        .option("vectorFloat32", true)
        .save(f32.toString());
    // Appends keep the dataset's float32.
    spark
        .createDataFrame(rows, SCHEMA)
        .write()
        .format("riffle")
        .mode("append")
        .save(f32.toString());
    org.apache.spark.sql.Dataset<Row> narrow = spark.read().format("riffle").load(f32.toString());
    assertThat(narrow.schema().apply("v").dataType()).isInstanceOf(VectorUDT.class);
    for (Row r : narrow.collectAsList()) {
      Vector v = (Vector) r.get(1);
      if (r.getInt(0) == 0) {
        assertThat(v).isEqualTo(Vectors.dense((float) (1.0 / 3), 1.5, -2));
      } else {
        assertThat(v).isEqualTo(Vectors.sparse(4, new int[] {1, 3}, new double[] {7, (float) 0.1}));
      }
    }

    // A dataset whose column is a plain array<double> (as vectors were stored before) takes
    // vectors densified.
    Path old = dir.resolve("old");
    spark.sql("SELECT 9 AS id, array(0.5D, 0D) AS v").write().format("riffle").save(old.toString());
    spark
        .createDataFrame(
            List.of(RowFactory.create(1, Vectors.sparse(2, new int[] {1}, new double[] {4}))),
            SCHEMA)
        .write()
        .format("riffle")
        .mode("append")
        .save(old.toString());
    assertThat(
            spark
                .read()
                .format("riffle")
                .load(old.toString())
                .orderBy("id")
                .toJSON()
                .collectAsList())
        .containsExactly("{\"id\":1,\"v\":[0.0,4.0]}", "{\"id\":9,\"v\":[0.5,0.0]}");
  }

  private static final double[] TWO = {Math.PI, -Math.E};

  private static long[] bits(double[] d) {
    long[] out = new long[d.length];
    for (int i = 0; i < d.length; i++) {
      out[i] = Double.doubleToRawLongBits(d[i]);
    }
    return out;
  }

  private static Map<Integer, Vector> byId(org.apache.spark.sql.Dataset<Row> df, String col) {
    Map<Integer, Vector> out = new TreeMap<>();
    for (Row r : df.select("id", col).collectAsList()) {
      out.put(r.getInt(0), (Vector) r.get(1));
    }
    return out;
  }

  static long bytesUnder(Path d) {
    try (Stream<Path> files = Files.walk(d)) {
      return files.filter(Files::isRegularFile).mapToLong(MlVectorTest::size).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
