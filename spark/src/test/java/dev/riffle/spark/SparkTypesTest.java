package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.schema.UnsupportedTypeException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mapping's edges: types with no Riffle equivalent, ML vectors. */
class SparkTypesTest {
  @TempDir Path dir;

  static StructType one(String name, DataType t) {
    return new StructType().add(name, t, true);
  }

  @Test
  void typesWithoutARiffleEquivalentNameTheirColumn() {
    StructType deep =
        one(
            "x",
            new StructType()
                .add(
                    "a",
                    DataTypes.createArrayType(
                        DataTypes.createMapType(
                            DataTypes.StringType, DataTypes.CalendarIntervalType))));
    assertThatThrownBy(() -> SparkTypes.toArrow(deep))
        .isInstanceOf(UnsupportedTypeException.class)
        .hasMessageStartingWith("field 'x.a[].value' has type interval")
        .hasMessageContaining("no Riffle equivalent");
    for (DataType t :
        List.of(
            DataTypes.NullType,
            DataTypes.VariantType,
            DataTypes.createYearMonthIntervalType(),
            DataTypes.CalendarIntervalType)) {
      assertThatThrownBy(() -> SparkTypes.toArrow(one("c", t)))
          .as(t.simpleString())
          .hasMessageStartingWith("field 'c' has type " + t.simpleString());
    }
    assertThatThrownBy(() -> SparkTypes.toArrow(one("s", new StructType())))
        .hasMessageContaining("field 's'");
  }

  @Test
  void mappedTypesReadBackAsThemselves() {
    StructType t =
        new StructType()
            .add("a", DataTypes.createArrayType(DataTypes.createDecimalType(38, 10), true))
            .add(
                "m", DataTypes.createMapType(DataTypes.DateType, DataTypes.TimestampNTZType, false))
            .add("s", new StructType().add("b", DataTypes.BinaryType, false), false)
            .add("i", DataTypes.createDayTimeIntervalType());
    Schema arrow = SparkTypes.toArrow(t);
    dev.riffle.format.schema.RiffleSchema rs =
        dev.riffle.format.schema.RiffleSchema.forWriting(arrow, java.util.Map.of(), List.of());
    assertThat(SparkTypes.toSpark(rs)).isEqualTo(t);
  }

  @Test
  void mlVectorsAreWrittenAsDenseDoubleArraysOrFloatIfAsked() {
    SparkSession spark = LocalSpark.session();
    StructType schema =
        new StructType().add("id", DataTypes.IntegerType).add("v", new VectorUDT(), true);
    List<Row> rows =
        List.of(
            RowFactory.create(0, new double[] {1.0 / 3, 1.5, -2}),
            RowFactory.create(1, new VectorUDT.Sparse(4, new int[] {1, 3}, new double[] {7, 9})),
            RowFactory.create(2, null));
    String uri = dir.resolve("ds").toString();
    spark.createDataFrame(rows, schema).write().format("riffle").save(uri);
    org.apache.spark.sql.Dataset<Row> back = spark.read().format("riffle").load(uri);
    // Spark's own doubles, not narrowed.
    assertThat(back.schema().simpleString()).isEqualTo("struct<id:int,v:array<double>>");
    assertThat(back.orderBy("id").toJSON().collectAsList())
        .containsExactly(
            "{\"id\":0,\"v\":[0.3333333333333333,1.5,-2.0]}",
            "{\"id\":1,\"v\":[0.0,7.0,0.0,9.0]}",
            "{\"id\":2}");
    // Half the bytes when asked; appends keep the dataset's float32.
    String f32 = dir.resolve("f32").toString();
    spark
        .createDataFrame(rows, schema)
        .write()
        .format("riffle")
        .option("vectorFloat32", true)
        .save(f32);
    spark.createDataFrame(rows, schema).write().format("riffle").mode("append").save(f32);
    org.apache.spark.sql.Dataset<Row> narrow = spark.read().format("riffle").load(f32);
    assertThat(narrow.schema().simpleString()).isEqualTo("struct<id:int,v:array<float>>");
    assertThat(narrow.where("id = 0").toJSON().collectAsList())
        .containsExactly(
            "{\"id\":0,\"v\":[0.33333334,1.5,-2.0]}", "{\"id\":0,\"v\":[0.33333334,1.5,-2.0]}");
  }
}
