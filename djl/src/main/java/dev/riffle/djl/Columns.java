package dev.riffle.djl;

import java.util.List;

/**
 * The column setters both dataset builders share ({@link RiffleDataset.Builder}, {@link
 * RiffleRandomAccessDataset.Builder}), over one {@link ColumnSpec}: which columns are the features
 * (a batch's data, in the order named), which is the label, and the normalisation of sparse values.
 *
 * @param <B> the builder, returned by each setter for chaining
 */
public interface Columns<B extends Columns<B>> {
  /** The columns named so far. */
  ColumnSpec columns();

  /** This builder. */
  B self();

  /** Numeric scalar columns as one {@code float32 [batch, k]} array ({@link Feature.Dense}). */
  default B dense(String... columns) {
    columns().add(new Feature.Dense(List.of(columns)));
    return self();
  }

  /**
   * A fixed-size list column, or a list column whose lists all have one length (Spark arrays,
   * Parquet lists), as one {@code float32 [batch, d]} array.
   */
  default B vector(String column) {
    columns().add(new Feature.Vector(column));
    return self();
  }

  /** A sparse row group densified into one {@code float32 [batch, width]} array. */
  default B sparse(String indices, String values, int width) {
    columns().add(new Feature.Sparse(indices, values, width, false));
    return self();
  }

  /**
   * A sparse row group as CSR arrays: indptr, indices, values ({@link Feature.Sparse}); batches
   * only (a {@code RandomAccessDataset} record has no CSR form).
   */
  default B csr(String indices, String values, int width) {
    columns().add(new Feature.Sparse(indices, values, width, true));
    return self();
  }

  /**
   * The label, handed out as {@code int64 [batch]}: a categorical column (its codes, checked
   * against its dictionary). An integer column needs its number of classes: {@link #label(String,
   * long)}.
   */
  default B label(String column) {
    columns().label(column, 0);
    return self();
  }

  /**
   * The label, a categorical or integer column whose every value must lie in [0, {@code classes}):
   * a value outside fails its batch with the column, row and value, rather than reach the loss as a
   * wrong class.
   */
  default B label(String column, long classes) {
    if (classes < 1) {
      throw new IllegalArgumentException(
          "label column '" + column + "': the number of classes must be positive, not " + classes);
    }
    columns().label(column, classes);
    return self();
  }

  /** What is done to sparse values on the way (default none). */
  default B normalization(Normalization n) {
    columns().normalization(n);
    return self();
  }
}
