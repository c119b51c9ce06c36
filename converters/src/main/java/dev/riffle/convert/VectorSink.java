package dev.riffle.convert;

import org.apache.parquet.io.api.Converter;

/**
 * Appends the values parquet-mr's record assembly hands a converter to one Arrow vector. Each sink
 * counts the slots it filled; a parent that sees a child's count unchanged at the end of a record
 * (the value was absent at some level) appends a null, so that all vectors stay aligned.
 */
interface VectorSink {
  /** The parquet-mr converter that receives this vector's values. */
  Converter converter();

  /** Slots filled so far in the current batch. */
  int count();

  /** Appends a null (an empty list for a list that cannot be null). */
  void appendNull();

  /** The enclosing record or group starts slot {@code position}. */
  default void openSlot(int position) {}

  /** The enclosing record or group ends slot {@code position}: fill it if it was absent. */
  default void closeSlot(int position) {
    if (count() == position) {
      appendNull();
    }
  }

  /** Starts a new batch: the vectors were emptied and reallocated. */
  void reset();
}
