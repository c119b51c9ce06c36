package dev.riffle.spark.vector;

import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.UserDefinedType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * Spark columns over the Arrow vectors of a Riffle batch, without copying. Numbers, dates,
 * timestamps and strings whose values Spark reads as they are go to {@link RawColumn} (their
 * buffers' addresses); other leaves Spark reads natively (booleans, binary, decimals) to Spark's
 * {@link ArrowColumnVector}; the rest (categoricals, lists, structs, maps, unsigned ints, other
 * time units, ...) to this package's columns, which present them as the Spark types {@code
 * dev.riffle.spark.SparkTypes} maps them to.
 */
public final class ColumnVectors {
  private ColumnVectors() {}

  /**
   * A column over {@code vector}.
   *
   * @param dictionary the values of a dictionary-encoded vector, or null if it is not one
   * @param type the Spark type the column is read as
   */
  public static ColumnVector of(ValueVector vector, ValueVector dictionary, DataType type) {
    if (dictionary != null) {
      return new DictionaryColumn(type, (BaseIntVector) vector, of(dictionary, null, type));
    }
    if (type instanceof UserDefinedType<?> u && vector instanceof StructVector s) {
      // An ML vector: Spark reads the type's SQL struct; its values may be float32 (written with
      // vectorFloat32), which the leaf column widens to the struct's doubles.
      StructType st = (StructType) u.sqlType();
      ColumnVector[] children = new ColumnVector[st.fields().length];
      for (int i = 0; i < children.length; i++) {
        ValueVector c = s.getChildByOrdinal(i);
        DataType ct = st.fields()[i].dataType();
        children[i] =
            c instanceof ListVector l && l.getDataVector() instanceof Float4Vector f
                ? new ListColumn(ct, c, new LeafColumn(((ArrayType) ct).elementType(), f))
                : of(c, null, ct);
      }
      return new StructColumn(type, vector, children);
    }
    if (vector instanceof FieldVector f) {
      RawColumn raw = RawColumn.of(f, type);
      if (raw != null) {
        return raw;
      }
    }
    if (native_(vector.getField())
        && !hasVector(type)
        && !(vector instanceof ListVector
            || vector instanceof StructVector
            || vector instanceof MapVector)) {
      // Nested vectors get this package's columns, so that their leaves are raw columns.
      return new ArrowColumnVector(vector);
    }
    if (vector instanceof MapVector) {
      MapType m = (MapType) type;
      StructVector entries = (StructVector) ((MapVector) vector).getDataVector();
      return new MapColumn(
          type,
          (MapVector) vector,
          of(entries.getChildByOrdinal(0), null, m.keyType()),
          of(entries.getChildByOrdinal(1), null, m.valueType()));
    }
    if (vector instanceof ListVector
        || vector instanceof LargeListVector
        || vector instanceof FixedSizeListVector) {
      FieldVector items =
          vector instanceof ListVector
              ? ((ListVector) vector).getDataVector()
              : vector instanceof LargeListVector
                  ? ((LargeListVector) vector).getDataVector()
                  : ((FixedSizeListVector) vector).getDataVector();
      return new ListColumn(type, vector, of(items, null, ((ArrayType) type).elementType()));
    }
    if (vector instanceof StructVector) {
      StructVector s = (StructVector) vector;
      StructType st = (StructType) type;
      ColumnVector[] children = new ColumnVector[st.fields().length];
      for (int i = 0; i < children.length; i++) {
        children[i] = of(s.getChildByOrdinal(i), null, st.fields()[i].dataType());
      }
      return new StructColumn(type, vector, children);
    }
    return new LeafColumn(type, vector);
  }

  /** Whether an ML vector is in the type, which its struct may hold as float32 values. */
  private static boolean hasVector(DataType type) {
    if (type instanceof UserDefinedType) {
      return true;
    } else if (type instanceof ArrayType a) {
      return hasVector(a.elementType());
    } else if (type instanceof MapType m) {
      return hasVector(m.keyType()) || hasVector(m.valueType());
    } else if (type instanceof StructType st) {
      for (org.apache.spark.sql.types.StructField f : st.fields()) {
        if (hasVector(f.dataType())) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether Spark's ArrowColumnVector reads this field (and all below it) as is. */
  static boolean native_(Field field) {
    ArrowType t = field.getType();
    List<Field> children = field.getChildren();
    switch (t.getTypeID()) {
      case Bool:
      case Utf8:
      case LargeUtf8:
      case Binary:
      case LargeBinary:
        return true;
      case Int:
        return ((ArrowType.Int) t).getIsSigned();
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) t).getPrecision() != FloatingPointPrecision.HALF;
      case Decimal:
        return ((ArrowType.Decimal) t).getBitWidth() == 128;
      case Date:
        return ((ArrowType.Date) t).getUnit() == DateUnit.DAY;
      case Timestamp:
        return ((ArrowType.Timestamp) t).getUnit() == TimeUnit.MICROSECOND;
      case Duration:
        return ((ArrowType.Duration) t).getUnit() == TimeUnit.MICROSECOND;
      case List:
        return native_(children.get(0));
      case Struct:
        return children.stream().allMatch(ColumnVectors::native_);
      case Map:
        return children.get(0).getChildren().stream().allMatch(ColumnVectors::native_);
      default:
        return false;
    }
  }
}
