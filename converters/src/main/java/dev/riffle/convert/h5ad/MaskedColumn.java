package dev.riffle.convert.h5ad;

import io.jhdf.api.Dataset;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * pandas' nullable integers, booleans and strings (AnnData's nullable-integer, nullable-boolean and
 * nullable-string-array): values plus a mask that is true where the value is missing. Integers
 * become nullable int64 whatever their stored width, as pandas' Int64 is the common case and
 * widening loses nothing; only uint64 (pandas' UInt64), which int64 cannot hold, stays uint64.
 */
final class MaskedColumn extends Column {
  private final Dataset values;
  private final Dataset mask;
  private final ArrowType type;

  private MaskedColumn(String name, Dataset values, Dataset mask, ArrowType type) {
    super(name);
    this.values = values;
    this.mask = mask;
    this.type = type;
  }

  static MaskedColumn of(
      String file, String where, String name, Dataset values, Dataset mask, String encoding)
      throws dev.riffle.convert.InputException {
    ArrowType stored = Values.arrowType(values);
    ArrowType type;
    if (encoding.equals("nullable-boolean")) {
      type = ArrowType.Bool.INSTANCE;
    } else if (encoding.equals("nullable-string-array")) {
      type = ArrowType.Utf8.INSTANCE;
    } else if (stored instanceof ArrowType.Int
        && ((ArrowType.Int) stored).getBitWidth() == 64
        && !((ArrowType.Int) stored).getIsSigned()) {
      type = stored;
    } else {
      type = new ArrowType.Int(64, true);
    }
    if (stored == null
        || (type instanceof ArrowType.Utf8) != (stored instanceof ArrowType.Utf8)
        || values.getDimensions().length != 1) {
      throw new dev.riffle.convert.InputException(
          file,
          where
              + " ("
              + encoding
              + ") has values of the unsupported type "
              + values.getDataType().getClass().getSimpleName()
              + " with shape "
              + java.util.Arrays.toString(values.getDimensions()));
    }
    return new MaskedColumn(name, values, mask, type);
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
