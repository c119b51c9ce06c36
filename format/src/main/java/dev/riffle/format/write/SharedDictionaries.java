package dev.riffle.format.write;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The dictionary codes one file's writer has handed out, per column (null for columns without a
 * dictionary), carried into the next file's writer so that the files of one dataset share codes.
 * Opaque on purpose: only {@link FileWriter} reads or extends it, and {@link #declare} seeds it.
 */
public final class SharedDictionaries {
  final List<DictionaryRemapper> columns;

  SharedDictionaries(List<DictionaryRemapper> columns) {
    this.columns = Collections.unmodifiableList(new ArrayList<>(columns));
  }

  /**
   * The state of a fresh writer for {@code schema} with {@code dictionaries} {@link #declare
   * declared}: pass it to {@link FileWriter#create(java.io.OutputStream, Schema,
   * DictionaryProvider, WriterOptions, SharedDictionaries)} so that the file keeps them as given.
   */
  public static SharedDictionaries declared(
      Schema schema, DictionaryProvider dictionaries, WriterOptions options) throws IOException {
    try (FileWriter probe =
        FileWriter.create(OutputStream.nullOutputStream(), schema, dictionaries, options)) {
      SharedDictionaries state = probe.dictionaryState();
      state.declare(schema, dictionaries);
      return state;
    }
  }

  /**
   * Hands out codes to the values of {@code dictionaries} first, each in its own order, before any
   * row: a writer that continues this state writes a file dictionary that starts with the declared
   * one, unused values included (pandas categories keep their list and order), where a writer on
   * its own gives codes in first-seen order.
   *
   * @param schema the Arrow schema the state's writer was created with
   */
  public void declare(Schema schema, DictionaryProvider dictionaries) {
    for (DictionaryRemapper r : columns) {
      Field f = r == null ? null : schema.findField(r.field());
      Dictionary d =
          f == null || f.getDictionary() == null
              ? null
              : dictionaries.lookup(f.getDictionary().getId());
      if (d != null) {
        r.declare(d.getVector());
      }
    }
  }
}
