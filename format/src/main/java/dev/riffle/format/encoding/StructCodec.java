package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Structs, and column groups (a group is a struct of top-level fields): a bitmap with one bit per
 * nullable child, in child order (absent when no child is nullable); then each valid child.
 */
public final class StructCodec {
  private final ValueCodec[] children;
  private final boolean[] nullable;
  private final int nullableCount;

  StructCodec(List<ValueCodec> children, boolean[] nullable) {
    this.children = children.toArray(new ValueCodec[0]);
    this.nullable = nullable.clone();
    int c = 0;
    for (boolean b : nullable) {
      c += b ? 1 : 0;
    }
    this.nullableCount = c;
  }

  /** The encoded size if every child is non-nullable and fixed-width, else -1. */
  public int fixedWidth() {
    int sum = 0;
    for (int i = 0; i < children.length; i++) {
      int w = children[i].fixedWidth();
      if (nullable[i] || w < 0) {
        return -1;
      }
      sum += w;
    }
    return sum;
  }

  /** Encodes child values at {@code index} of each vector in {@code vectors}. */
  public void encode(List<FieldVector> vectors, int index, ByteSink out) {
    if (nullableCount > 0) {
      int at = out.reserve(Bitmaps.bytes(nullableCount));
      byte[] a = out.array();
      for (int b = 0; b < Bitmaps.bytes(nullableCount); b++) {
        a[at + b] = 0;
      }
      int bit = 0;
      for (int i = 0; i < children.length; i++) {
        if (nullable[i]) {
          if (!vectors.get(i).isNull(index)) {
            a[at + (bit >>> 3)] |= (byte) (1 << (bit & 7));
          }
          bit++;
        }
      }
    }
    for (int i = 0; i < children.length; i++) {
      if (!nullable[i] || !vectors.get(i).isNull(index)) {
        children[i].encode(vectors.get(i), index, out, false);
      }
    }
  }

  /**
   * Decodes into slot {@code index} of each vector; a null entry in {@code vectors} means the child
   * is not wanted and is skipped.
   */
  public void decode(RecordInput in, List<FieldVector> vectors, int index)
      throws CorruptFileException {
    int bitmap = nullableCount > 0 ? Bitmaps.read(in, nullableCount) : -1;
    int bit = 0;
    for (int i = 0; i < children.length; i++) {
      FieldVector v = vectors.get(i);
      boolean valid = true;
      if (nullable[i]) {
        valid = Bitmaps.get(in.buffer(), bitmap, bit++);
      }
      if (!valid) {
        if (v != null) {
          v.setNull(index);
        }
      } else if (v == null) {
        children[i].skip(in, false);
      } else {
        children[i].decode(in, v, index, false);
      }
    }
  }

  /** Sizes for the child vectors, in child order. */
  public VectorSizes newSizes() {
    VectorSizes[] c = new VectorSizes[children.length];
    for (int i = 0; i < c.length; i++) {
      c[i] = children[i].newSizes();
    }
    return new VectorSizes(c);
  }

  /** Measures one encoded struct into the children of {@code s} (see {@link #newSizes()}). */
  public void measure(RecordInput in, VectorSizes s) throws CorruptFileException {
    int bitmap = nullableCount > 0 ? Bitmaps.read(in, nullableCount) : -1;
    int bit = 0;
    for (int i = 0; i < children.length; i++) {
      if (!nullable[i] || Bitmaps.get(in.buffer(), bitmap, bit++)) {
        children[i].measure(in, false, s.children[i]);
      } else {
        s.children[i].values++;
      }
    }
  }

  /** Sets initial capacities of the wanted (non-null) vectors from the children of {@code s}. */
  public void presize(List<FieldVector> vectors, VectorSizes s) {
    for (int i = 0; i < children.length; i++) {
      if (vectors.get(i) != null) {
        children[i].presize(vectors.get(i), s.children[i]);
      }
    }
  }

  /** The codec of child {@code i}. */
  public ValueCodec child(int i) {
    return children[i];
  }

  /** Whether some child's tree holds a packable list (see {@link ValueCodec#packs}). */
  public boolean packs(boolean floats) {
    for (ValueCodec c : children) {
      if (c.packs(floats)) {
        return true;
      }
    }
    return false;
  }

  /** Reads one plain struct and appends its packed-record form (see {@link ValueCodec#pack}). */
  public void pack(RecordInput in, ByteSink out) throws CorruptFileException {
    int bitmap = nullableCount > 0 ? Bitmaps.read(in, nullableCount) : -1;
    if (bitmap >= 0) {
      ValueCodec.copy(in, bitmap, out);
    }
    int bit = 0;
    for (int i = 0; i < children.length; i++) {
      if (!nullable[i] || Bitmaps.get(in.buffer(), bitmap, bit++)) {
        children[i].pack(in, out, false);
      }
    }
  }

  /** Skips one encoded struct. */
  public void skip(RecordInput in) throws CorruptFileException {
    int bitmap = nullableCount > 0 ? Bitmaps.read(in, nullableCount) : -1;
    int bit = 0;
    for (int i = 0; i < children.length; i++) {
      if (!nullable[i] || Bitmaps.get(in.buffer(), bitmap, bit++)) {
        children[i].skip(in, false);
      }
    }
  }

  /** Adapts a struct codec to a nested struct value. */
  static final class Nested extends ValueCodec {
    private final StructCodec struct;

    Nested(StructCodec struct) {
      this.struct = struct;
    }

    @Override
    public int fixedWidth() {
      return struct.fixedWidth();
    }

    @Override
    public void encode(FieldVector vector, int index, ByteSink out, boolean whole) {
      struct.encode(((StructVector) vector).getChildrenFromFields(), index, out);
    }

    @Override
    public void decode(RecordInput in, FieldVector vector, int index, boolean whole)
        throws CorruptFileException {
      StructVector v = (StructVector) vector;
      struct.decode(in, v.getChildrenFromFields(), index);
      v.setIndexDefined(index);
    }

    @Override
    public void skip(RecordInput in, boolean whole) throws CorruptFileException {
      struct.skip(in);
    }

    @Override
    public boolean packs(boolean floats) {
      return struct.packs(floats);
    }

    @Override
    public void pack(RecordInput in, ByteSink out, boolean whole) throws CorruptFileException {
      if (struct.packs(true)) {
        struct.pack(in, out);
      } else {
        super.pack(in, out, whole);
      }
    }

    @Override
    public VectorSizes newSizes() {
      return struct.newSizes();
    }

    @Override
    public void measure(RecordInput in, boolean whole, VectorSizes s) throws CorruptFileException {
      s.values++;
      struct.measure(in, s);
    }

    @Override
    public void addFixed(VectorSizes s, long count) {
      s.values += count;
      for (int i = 0; i < struct.children.length; i++) {
        struct.children[i].addFixed(s.children[i], count);
      }
    }

    @Override
    public void presize(FieldVector v, VectorSizes s) {
      v.setInitialCapacity(s.slots());
      // Every struct slot, null or not, has one slot in each child (setValueCount sets them all).
      for (VectorSizes c : s.children) {
        c.values = s.values;
      }
      struct.presize(((StructVector) v).getChildrenFromFields(), s);
    }
  }
}
