package dev.riffle.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;

/** Prints rows of Arrow batches as JSON lines: one object per row, keys in the batch's order. */
final class JsonLines {
  private final PrintWriter out;
  private final JsonGenerator generator;

  JsonLines(PrintWriter out) throws IOException {
    this.out = out;
    this.generator = Json.lineGenerator(out);
  }

  /**
   * Prints rows {@code [from, from + count)} of {@code batch}.
   *
   * @param dictionaries the reader's dictionaries, to print dictionary-encoded fields as their
   *     values rather than their indices; may be null if the batch has no such field
   */
  void write(VectorSchemaRoot batch, DictionaryProvider dictionaries, int from, int count)
      throws IOException {
    write(batch, dictionaries, from, count, null);
  }

  /** The field that {@code --with-row-id} puts first in each object. */
  static final String ROW_ID = "_row";

  /**
   * As {@link #write(VectorSchemaRoot, DictionaryProvider, int, int)}, each object beginning with
   * {@value #ROW_ID}: {@code rowIds.applyAsLong(i)} for row i of the batch (null: no such field).
   */
  void write(
      VectorSchemaRoot batch,
      DictionaryProvider dictionaries,
      int from,
      int count,
      java.util.function.IntToLongFunction rowIds)
      throws IOException {
    List<FieldVector> vectors = batch.getFieldVectors();
    String[] names = new String[vectors.size()];
    ArrowJson.ValueWriter[] writers = new ArrowJson.ValueWriter[vectors.size()];
    // Writers are built once per batch: the type dispatch then costs nothing per value.
    for (int c = 0; c < writers.length; c++) {
      names[c] = vectors.get(c).getName();
      writers[c] = ArrowJson.writerFor(vectors.get(c), dictionaries);
    }
    for (int i = from; i < from + count; i++) {
      generator.writeStartObject();
      if (rowIds != null) {
        generator.writeFieldName(ROW_ID);
        generator.writeNumber(rowIds.applyAsLong(i));
      }
      for (int c = 0; c < writers.length; c++) {
        generator.writeFieldName(names[c]);
        writers[c].write(generator, i);
      }
      generator.writeEndObject();
      generator.writeRaw('\n');
    }
  }

  /**
   * Flushes what was written and says whether the output is gone (for example the reader of a pipe
   * exited, as with {@code | head}), so that callers can stop early instead of reading the whole
   * file for nobody.
   */
  boolean flushAndCheckClosed() throws IOException {
    generator.flush();
    return out.checkError();
  }
}
