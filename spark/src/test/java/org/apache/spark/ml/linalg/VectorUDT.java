package org.apache.spark.ml.linalg;

import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.UserDefinedType;

/**
 * A stand-in for Spark ML's vector type (spark-mllib is not a dependency of the module): the same
 * class name and the same stored struct (type 0 sparse / 1 dense, size, indices, values), which is
 * all the connector looks at. A vector is a double[] (dense) or a {@link Sparse}.
 */
public class VectorUDT extends UserDefinedType<Object> {
  private static final long serialVersionUID = 1L;

  /** A sparse vector. */
  public record Sparse(int size, int[] indices, double[] values) implements java.io.Serializable {}

  @Override
  public DataType sqlType() {
    return new StructType()
        .add("type", DataTypes.ByteType, false)
        .add("size", DataTypes.IntegerType, true)
        .add("indices", DataTypes.createArrayType(DataTypes.IntegerType, false), true)
        .add("values", DataTypes.createArrayType(DataTypes.DoubleType, false), true);
  }

  @Override
  public Object serialize(Object obj) {
    if (obj instanceof double[]) {
      double[] d = (double[]) obj;
      Object[] values = Arrays.stream(d).boxed().toArray();
      return new GenericInternalRow(
          new Object[] {(byte) 1, null, null, new GenericArrayData(values)});
    }
    Sparse s = (Sparse) obj;
    return new GenericInternalRow(
        new Object[] {
          (byte) 0,
          s.size(),
          new GenericArrayData(Arrays.stream(s.indices()).boxed().toArray()),
          new GenericArrayData(Arrays.stream(s.values()).boxed().toArray())
        });
  }

  @Override
  public Object deserialize(Object datum) {
    InternalRow r = (InternalRow) datum;
    double[] values = r.getArray(3).toDoubleArray();
    if (r.getByte(0) == 1) {
      return values;
    }
    return new Sparse(r.getInt(1), r.getArray(2).toIntArray(), values);
  }

  @Override
  public Class<Object> userClass() {
    return Object.class;
  }
}
