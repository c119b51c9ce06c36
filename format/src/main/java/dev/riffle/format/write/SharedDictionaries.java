package dev.riffle.format.write;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The dictionary codes one file's writer has handed out, per column (null for columns without a
 * dictionary), carried into the next file's writer so that the files of one dataset share codes.
 * Opaque on purpose: only {@link FileWriter} reads or extends it.
 */
public final class SharedDictionaries {
  final List<DictionaryRemapper> columns;

  SharedDictionaries(List<DictionaryRemapper> columns) {
    this.columns = Collections.unmodifiableList(new ArrayList<>(columns));
  }
}
