package dev.riffle.convert.h5ad;

import io.jhdf.api.Dataset;
import io.jhdf.object.datatype.EnumDataType;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A plain 1-D column: numbers, booleans (HDF5 enums, as numpy writes bool) or strings. AnnData has
 * no missing values here (floats use NaN), so the field is not nullable.
 */
final class ArrayColumn extends Column {
  private final Dataset data;
  private final ArrowType type;

  private ArrayColumn(String name, Dataset data, ArrowType type) {
    super(name);
    this.data = data;
    this.type = type;
  }

  /**
   * @return the column, or null if the dataset's type has no Arrow counterpart
   */
  static ArrayColumn of(String name, Dataset data) {
    // The stored dtype exactly, so that unsigned integers stay unsigned (uint64 has no Java type).
    ArrowType t =
        data.getDataType() instanceof EnumDataType
            ? ArrowType.Bool.INSTANCE
            : Values.arrowType(data);
    return t == null || data.getDimensions().length != 1 ? null : new ArrayColumn(name, data, t);
  }

  @Override
  Field field() {
    return new Field(name, FieldType.notNullable(type), List.of());
  }

  @Override
  int rowBytes() {
    return type instanceof ArrowType.Utf8 ? 24 : Values.width(type);
  }

  @Override
  void fill(FieldVector v, long start, int n) {
    Object a = Hdf.slice(data, start, n);
    for (int i = 0; i < n; i++) {
      Values.set(v, i, a, i);
    }
    v.setValueCount(n);
  }
}
