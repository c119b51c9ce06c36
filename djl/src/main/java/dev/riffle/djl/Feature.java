package dev.riffle.djl;

import java.util.List;

/**
 * One input of a batch's data: which columns it is made of and the NDArrays it becomes. A batch's
 * data {@code NDList} holds the features' arrays in the order the features were named.
 */
public sealed interface Feature {

  /** The columns the feature reads. */
  List<String> columns();

  /**
   * Numeric scalar columns (integers or floats, no nulls) side by side: one {@code float32 [batch,
   * k]} array. A single float32 column is handed to the engine without a copy.
   */
  record Dense(List<String> columns) implements Feature {
    public Dense {
      if (columns.isEmpty()) {
        throw new IllegalArgumentException("a dense feature needs at least one column");
      }
      columns = List.copyOf(columns);
    }
  }

  /**
   * A fixed-size list column of numbers (an embedding, an image row): one {@code float32 [batch,
   * d]} array; a list of float32 is handed to the engine without a copy.
   */
  record Vector(String column) implements Feature {
    @Override
    public List<String> columns() {
      return List.of(column);
    }
  }

  /**
   * A sparse row group, an {@code indices} list&lt;int32&gt; column and a {@code values} list of
   * numbers with equal lengths per row (a counts matrix row), either densified into one {@code
   * float32 [batch, width]} array or, with {@code csr}, kept as three arrays: {@code indptr int32
   * [batch + 1]}, {@code indices int32 [nnz]} and {@code values float32 [nnz]} (the first two, and
   * the values if float32 and not normalised, without a copy). The dataset's normalisation applies
   * to these values.
   *
   * @param width the number of columns of the dense rows (genes); every index must be below it
   */
  record Sparse(String indices, String values, int width, boolean csr) implements Feature {
    public Sparse {
      if (width < 1) {
        throw new IllegalArgumentException("a sparse feature needs a width of at least 1");
      }
    }

    @Override
    public List<String> columns() {
      return List.of(indices, values);
    }
  }
}
