package dev.riffle.datagen;

import dev.riffle.format.write.WriterOptions;
import java.util.SplittableRandom;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One kind of synthetic dataset. Values come only from the generator passed to {@link #fill},
 * consumed row after row, so the same seed and row count give the same rows however they are split
 * into batches, and therefore the same file bytes. {@link Batches} drives it.
 */
public interface SyntheticData extends AutoCloseable {
  /** The schema of the batches {@link #fill} produces. */
  Schema schema();

  /** The dictionaries of dictionary-encoded fields, or null if there are none. */
  default DictionaryProvider dictionaries() {
    return null;
  }

  /**
   * How a Riffle file of this data is laid out, on top of {@code base}: e.g. which fields are
   * stored as one column group. Callers pass their own base (page size, codecs) so that the layout
   * the data asks for is kept whatever else they change.
   */
  default WriterOptions options(WriterOptions base) {
    return base;
  }

  /** Rows per batch, chosen so that one batch holds a few MiB whatever the row size. */
  int batchRows();

  /**
   * Sets rows {@code [0, count)} of {@code batch}, a freshly allocated batch of {@link #schema()},
   * to rows {@code [first, first + count)} of a dataset of {@code totalRows} rows. The caller sets
   * the row count afterwards.
   */
  void fill(VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng);

  /** Releases the dictionaries' memory. */
  @Override
  default void close() {}
}
