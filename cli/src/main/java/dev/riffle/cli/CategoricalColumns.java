package dev.riffle.cli;

import dev.riffle.convert.ConvertOptions;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --categorical COLUMN[,COLUMN...]} of {@code convert parquet} and {@code convert arrow}:
 * string columns written as categoricals, so that one can be a label (the loader's and DJL's labels
 * are codes).
 */
final class CategoricalColumns {
  @Option(
      names = "--categorical",
      paramLabel = "COLUMN",
      split = ",",
      description =
          "Write these utf8 columns as categoricals (dictionary-encoded), e.g. to use one as a"
              + " label: comma-separated or repeated. The dictionary is the column's distinct values"
              + " over all inputs, sorted by code point (UTF-8 bytes), so codes do not depend on the"
              + " inputs' order or the threads; nulls stay null; at most 16,777,216 values. Costs a"
              + " first pass over these columns (for arrow, over the file).")
  List<String> columns = new ArrayList<>();

  boolean isEmpty() {
    return columns.isEmpty();
  }

  ConvertOptions applyTo(ConvertOptions options) {
    return options.withCategorical(columns);
  }
}
