package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.format.schema.UnsupportedTypeException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mapping's edges: types with no Riffle equivalent (ML vectors: MlVectorTest). */
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

  /** Where a vector's type class is missing (no spark-mllib on the reader), the struct reads. */
  @Test
  void aVectorWhoseClassIsMissingReadsAsItsStruct() {
    StructType t = new StructType().add("v", new org.apache.spark.ml.linalg.VectorUDT(), true);
    Schema arrow = SparkTypes.toArrow(t);
    org.apache.arrow.vector.types.pojo.Field v = arrow.getFields().get(0);
    String json = v.getMetadata().get(SparkTypes.UDT);
    assertThat(json).contains("org.apache.spark.ml.linalg.VectorUDT");
    org.apache.arrow.vector.types.pojo.Field missing =
        new org.apache.arrow.vector.types.pojo.Field(
            "v",
            new org.apache.arrow.vector.types.pojo.FieldType(
                true,
                v.getType(),
                null,
                java.util.Map.of(
                    SparkTypes.UDT, json.replace("linalg.VectorUDT", "linalg.NoSuchUDT"))),
            v.getChildren());
    Schema gone = new Schema(List.of(missing));
    assertThat(
            SparkTypes.toSpark(
                    dev.riffle.format.schema.RiffleSchema.forWriting(
                        gone, java.util.Map.of(), List.of()))
                .simpleString())
        .isEqualTo(
            "struct<v:struct<type:tinyint,size:int,indices:array<int>,values:array<double>>>");
    assertThat(
            SparkTypes.toSpark(
                    dev.riffle.format.schema.RiffleSchema.forWriting(
                        arrow, java.util.Map.of(), List.of()))
                .apply("v")
                .dataType())
        .isEqualTo(new org.apache.spark.ml.linalg.VectorUDT());
  }
}
