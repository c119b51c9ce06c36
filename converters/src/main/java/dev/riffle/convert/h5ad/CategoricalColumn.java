package dev.riffle.convert.h5ad;

import dev.riffle.convert.Categoricals;
import io.jhdf.api.Dataset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A pandas categorical: integer codes (-1 where missing) into a list of categories, stored as
 * dictionary-encoded utf8. Both AnnData encodings read the same way once found: the current one (a
 * group with codes and categories) and the legacy one of anndata 0.7 (the codes dataset, with a
 * "categories" reference to a dataset in the frame's __categories group). Non-string categories
 * (numbers) become their decimal strings.
 */
final class CategoricalColumn extends Column {
  private final Dataset codes;
  private final Dictionary dictionary;
  private final ArrowType.Int indexType;

  CategoricalColumn(
      String name,
      Dataset codes,
      Object categories,
      boolean ordered,
      long id,
      BufferAllocator allocator) {
    super(name);
    this.codes = codes;
    int n = Values.length(categories);
    this.indexType = Categoricals.indexType(n);
    VarCharVector values = new VarCharVector(name, allocator);
    try {
      values.allocateNew(n);
      for (int i = 0; i < n; i++) {
        String s =
            categories instanceof String[]
                ? ((String[]) categories)[i]
                : String.valueOf(java.lang.reflect.Array.get(categories, i));
        values.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
      }
      values.setValueCount(n);
    } catch (RuntimeException e) {
      values.close();
      throw e;
    }
    this.dictionary = new Dictionary(values, new DictionaryEncoding(id, ordered, indexType));
  }

  @Override
  Field field() {
    // In a batch the field has the index type; the encoding names the dictionary.
    return new Field(
        name, new FieldType(true, indexType, dictionary.getEncoding(), null), List.of());
  }

  @Override
  int rowBytes() {
    return indexType.getBitWidth() / 8;
  }

  @Override
  Dictionary dictionary() {
    return dictionary;
  }

  @Override
  void fill(FieldVector v, long start, int n) {
    Object a = Hdf.slice(codes, start, n);
    for (int i = 0; i < n; i++) {
      long c = Values.toLong(a, i);
      if (c < 0) {
        v.setNull(i);
      } else {
        Values.setLong(v, i, c);
      }
    }
    v.setValueCount(n);
  }

  @Override
  public void close() {
    dictionary.getVector().close();
  }
}
