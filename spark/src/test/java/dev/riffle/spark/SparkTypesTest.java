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
}
