package dev.riffle.format.read;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import dev.riffle.format.encoding.Codecs;
import dev.riffle.format.encoding.StructCodec;
import dev.riffle.format.encoding.ValueCodec;
import dev.riffle.format.encoding.VectorSizes;
import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import org.apache.arrow.vector.FieldVector;

/**
 * The record codec of one stored column: a field's value codec, or a group's struct codec. Every
 * record a column stores, in whatever page layout, is decoded and measured through it.
 */
final class RowCodec {
  private final ValueCodec codec;
  private final StructCodec group;
  private final ColumnSpec spec;

  RowCodec(RiffleSchema schema, ColumnSpec spec) {
    this.spec = spec;
    if (spec.group()) {
      group = Codecs.forGroup(schema, spec);
      codec = null;
    } else {
      codec = Codecs.forField(schema.fields().get(spec.fields().get(0)));
      group = null;
    }
  }

  /** Whether the column's records may hold a packable list (and so be packed records). */
  boolean packs(boolean floats) {
    return group != null ? group.packs(floats) : codec.packs(floats);
  }

  /** Decodes the whole record at the cursor into row {@code j} of {@code t}. */
  void decode(RecordInput in, Target t, int j) throws CorruptFileException {
    try {
      if (t.single != null) {
        codec.decode(in, t.single, j, true);
      } else {
        group.decode(in, t.group, j);
      }
    } catch (ClassCastException | IllegalArgumentException | IndexOutOfBoundsException e) {
      // A record that parses but cannot be applied to Arrow (e.g. an offset overflow) is corrupt.
      throw in.corrupt("record does not decode: " + e);
    }
    if (in.remaining() != 0) {
      throw in.corrupt("record has " + in.remaining() + " trailing bytes");
    }
  }

  /** Adds what decoding the record at the cursor will allocate to {@code s}. */
  boolean measure(RecordInput in, VectorSizes s) throws CorruptFileException {
    if (codec != null) {
      codec.measure(in, true, s);
    } else {
      group.measure(in, s);
    }
    return in.remaining() == 0;
  }

  /**
   * Adds to {@code s} what decoding a record that inflates to {@code size} bytes will allocate, if
   * a single field's codec can tell from the size alone; false for groups.
   */
  boolean measureInflated(long size, VectorSizes s) {
    return codec != null && codec.measureInflated(size, s);
  }

  /**
   * Adds to {@code s} an estimate of what {@code count} records of {@code bytes} bytes in all will
   * allocate, if a single field's codec can tell from the bytes alone ({@link
   * ValueCodec#estimateRecords}); false for groups.
   */
  boolean estimateRecords(long count, long bytes, VectorSizes s) {
    return codec != null && codec.estimateRecords(count, bytes, s);
  }

  /**
   * Whether measuring the rows before decoding sizes the result better than the defaults do: for
   * variable-size values only (fixed-width vectors are sized exactly from the row count anyway).
   */
  boolean sizedByData() {
    return group != null ? group.fixedWidth() < 0 : codec.fixedWidth() < 0;
  }

  /** An empty sizes tree for this column: the codec's, or for a group one child per field. */
  VectorSizes newSizes() {
    return group != null ? group.newSizes() : codec.newSizes();
  }

  /**
   * Sets the initial capacities of the result vector of top-level field {@code fieldIndex} (one of
   * this column's) for {@code rows} rows from measured sizes; the caller allocates it.
   *
   * @return the sizes of that field's vector tree
   */
  VectorSizes presize(FieldVector v, int fieldIndex, VectorSizes s, int rows) {
    if (codec != null) {
      s.setValues(rows);
      codec.presize(v, s);
      return s;
    }
    int i = spec.fields().indexOf(fieldIndex);
    VectorSizes c = s.child(i);
    c.setValues(rows);
    group.child(i).presize(v, c);
    return c;
  }
}
