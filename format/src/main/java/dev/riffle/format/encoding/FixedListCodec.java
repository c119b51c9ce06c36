package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Fixed-size lists (vectors, tensors): no count; if items are nullable, a bitmap of listSize bits;
 * then each valid item. A non-nullable fixed-width item type makes the whole value fixed-width.
 */
final class FixedListCodec extends ValueCodec {
  private final ValueCodec items;
  private final boolean itemsNullable;
  private final int listSize;

  FixedListCodec(ValueCodec items, boolean itemsNullable, int listSize) {
    this.items = items;
    this.itemsNullable = itemsNullable;
    this.listSize = listSize;
  }

  @Override
  public int fixedWidth() {
    int w = items.fixedWidth();
    return itemsNullable || w < 0 ? -1 : Math.multiplyExact(w, listSize);
  }

  @Override
  public void encode(FieldVector vector, int index, ByteSink out, boolean whole) {
    FixedSizeListVector v = (FixedSizeListVector) vector;
    ListCodec.encodeItems(items, itemsNullable, v.getDataVector(), index * listSize, listSize, out);
  }

  @Override
  public void encodeRun(FieldVector vector, int start, int count, ByteSink out) {
    if (fixedWidth() > 0) {
      // Non-null, fixed-width items of consecutive lists are contiguous in the child vector.
      FixedSizeListVector v = (FixedSizeListVector) vector;
      items.encodeRun(v.getDataVector(), start * listSize, count * listSize, out);
    } else {
      super.encodeRun(vector, start, count, out);
    }
  }

  @Override
  public void decode(RecordInput in, FieldVector vector, int index, boolean whole)
      throws CorruptFileException {
    FixedSizeListVector v = (FixedSizeListVector) vector;
    int first = v.startNewValue(index);
    ListCodec.decodeItems(items, itemsNullable, in, v.getDataVector(), first, listSize);
  }

  @Override
  public void decodeRun(RecordInput in, FieldVector vector, int start, int count)
      throws CorruptFileException {
    if (fixedWidth() > 0) {
      FixedSizeListVector v = (FixedSizeListVector) vector;
      for (int i = 0; i < count; i++) {
        v.setNotNull(start + i);
      }
      items.decodeRun(in, v.getDataVector(), start * listSize, count * listSize);
    } else {
      super.decodeRun(in, vector, start, count);
    }
  }

  @Override
  public boolean packs(boolean floats) {
    return items.packs(floats);
  }

  @Override
  public void pack(RecordInput in, ByteSink out, boolean whole) throws CorruptFileException {
    if (items.packs(true)) {
      ListCodec.packItems(items, itemsNullable, in, listSize, out);
    } else {
      super.pack(in, out, whole);
    }
  }

  @Override
  public void skip(RecordInput in, boolean whole) throws CorruptFileException {
    ListCodec.skipItems(items, itemsNullable, in, listSize);
  }

  @Override
  public VectorSizes newSizes() {
    return new VectorSizes(items.newSizes());
  }

  @Override
  public void measure(RecordInput in, boolean whole, VectorSizes s) throws CorruptFileException {
    s.values++;
    ListCodec.measureItems(items, itemsNullable, in, s.children[0], listSize);
  }

  @Override
  public void measureRun(RecordInput in, int count, VectorSizes s) throws CorruptFileException {
    if (fixedWidth() > 0) {
      in.take((long) fixedWidth() * count);
      addFixed(s, count);
    } else {
      super.measureRun(in, count, s);
    }
  }

  @Override
  public void addFixed(VectorSizes s, long count) {
    s.values += count;
    items.addFixed(s.children[0], count * listSize);
  }

  @Override
  public void presize(FieldVector v, VectorSizes s) {
    v.setInitialCapacity(s.slots());
    // Every list slot, null or not, has listSize item slots.
    s.children[0].values = s.values * listSize;
    items.presize(((FixedSizeListVector) v).getDataVector(), s.children[0]);
  }

  @Override
  public void skipRun(RecordInput in, int count) throws CorruptFileException {
    if (fixedWidth() > 0) {
      in.take((long) fixedWidth() * count);
    } else {
      super.skipRun(in, count);
    }
  }
}
