package dev.riffle.convert.h5ad;

import io.jhdf.api.Dataset;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * pandas' nullable integers and booleans (AnnData's nullable-integer and nullable-boolean): values
 * plus a mask that is true where the value is missing. Integers become nullable int64 whatever
 * their stored width, as pandas' Int64 is the common case and widening loses nothing.
 */
final class MaskedColumn extends Column {
  private final Dataset values;
  private final Dataset mask;
  private final ArrowType type;

  MaskedColumn(String name, Dataset values, Dataset mask, boolean bool) {
    super(name);
    this.values = values;
    this.mask = mask;
    this.type = bool ? ArrowType.Bool.INSTANCE : new ArrowType.Int(64, true);
  }

  @Override
  Field field() {
    return new Field(name, FieldType.nullable(type), List.of());
  }

  @Override
  void fill(FieldVector v, long start, int n) {
    Object a = Hdf.slice(values, start, n);
    Object m = Hdf.slice(mask, start, n);
    for (int i = 0; i < n; i++) {
      if (Values.isTrue(m, i)) {
        v.setNull(i);
      } else {
        Values.set(v, i, a, i);
      }
    }
    v.setValueCount(n);
  }
}
