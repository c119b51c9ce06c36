package dev.riffle.convert.h5ad;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.pojo.Field;

/** One column of a dataframe (obs, var) or of an aligned matrix (obsm, varm), read by rows. */
abstract class Column implements AutoCloseable {
  final String name;

  Column(String name) {
    this.name = name;
  }

  abstract Field field();

  /** Writes rows [start, start + n) into {@code v}, freshly allocated, and sets its count. */
  abstract void fill(FieldVector v, long start, int n);

  /** About how many bytes a row takes in a batch, to size batches. */
  int rowBytes() {
    return 8;
  }

  /** The dictionary of a categorical column, or null. */
  Dictionary dictionary() {
    return null;
  }

  /** Frees the dictionary, if any. */
  @Override
  public void close() {}
}
