package dev.riffle.djl;

import dev.riffle.dataset.Dataset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which columns a batch is made of and how they become arrays: the features (the batch's data, in
 * the order named), the label and the normalisation of sparse values. Filled through the setters of
 * {@link Columns}, which both dataset builders share; checked against the dataset's schema when the
 * dataset is built.
 */
public final class ColumnSpec {
  private final List<Feature> features = new ArrayList<>();
  private String label;
  private long classes;
  private Normalization normalization = Normalization.none();

  ColumnSpec() {}

  void add(Feature f) {
    features.add(Objects.requireNonNull(f));
  }

  /** The label column, with its number of classes or 0 (not given). */
  void label(String column, long classes) {
    this.label = Objects.requireNonNull(column);
    this.classes = classes;
  }

  void normalization(Normalization n) {
    this.normalization = Objects.requireNonNull(n);
  }

  /** The features named so far, in order. */
  public List<Feature> features() {
    return List.copyOf(features);
  }

  /** The label column, or null if none. */
  public String label() {
    return label;
  }

  /** The number of classes given with the label, or 0 if not given (categorical: its codes). */
  public long classes() {
    return classes;
  }

  /** What is done to sparse values on the way. */
  public Normalization normalization() {
    return normalization;
  }

  /**
   * The converter of these columns for {@code dataset}.
   *
   * @throws IllegalArgumentException naming the column that is missing or of an unsupported type,
   *     or an integer label without its number of classes
   */
  BatchConverter converter(Dataset dataset) {
    return new BatchConverter(dataset, features, label, classes, normalization);
  }
}
