package dev.riffle.convert.h5ad;

import io.jhdf.api.Dataset;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A dense matrix aligned with the rows (obsm, varm: embeddings such as X_pca), one fixed-size list
 * of its k columns per row, in the stored element type.
 */
final class MatrixColumn extends Column {
  private final Dataset data;
  private final ArrowType type;
  private final int width;

  private MatrixColumn(String name, Dataset data, ArrowType type) {
    super(name);
    this.data = data;
    this.type = type;
    this.width = data.getDimensions()[1];
  }

  /**
   * @return the column, or null if the dataset is not a 2-D numeric array
   */
  static MatrixColumn of(String name, Dataset data) {
    ArrowType t = Values.arrowType(data.getJavaType());
    if (data.getDimensions().length != 2
        || t == null
        || t instanceof ArrowType.Utf8
        || t instanceof ArrowType.Bool
        || data.getDimensions()[1] < 1) {
      return null;
    }
    return new MatrixColumn(name, data, t);
  }

  @Override
  Field field() {
    return new Field(
        name,
        FieldType.notNullable(new ArrowType.FixedSizeList(width)),
        List.of(new Field("item", FieldType.notNullable(type), List.of())));
  }

  @Override
  int rowBytes() {
    return width * Values.width(type);
  }

  @Override
  void fill(FieldVector v, long start, int n) {
    FixedSizeListVector list = (FixedSizeListVector) v;
    FieldVector items = list.getDataVector();
    Object a = Hdf.rows(data, start, n);
    int total = n * width;
    for (int k = 0; k < total; k++) {
      Values.set(items, k, a, k);
    }
    items.setValueCount(total);
    for (int i = 0; i < n; i++) {
      list.setNotNull(i);
    }
    list.setValueCount(n);
  }
}
