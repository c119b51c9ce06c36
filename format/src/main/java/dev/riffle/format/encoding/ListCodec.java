package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.BaseRepeatedValueVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * Variable-length lists (list, large list, map): a varint item count n; if items are nullable, an
 * n-bit validity bitmap; then each valid item. Null items take no bytes beyond their bit.
 *
 * <p>A list of integer-kind items is <em>packable</em>: in a packed record it is in the packed form
 * of {@link PackedLists} instead; so is a list of float items in a 1.4 file ({@link PackedFloats}).
 * A packable list whose item field is nullable (1.4 only) starts with a byte that says whether any
 * item is null: {@link #NO_NULL_ITEMS}, then the packed form; or {@link #NULL_ITEMS}, then the
 * plain form (count, bitmap, valid items). Why: Spark arrays and Parquet lists declare their items
 * nullable and almost never hold a null item.
 */
final class ListCodec extends ValueCodec {
  private final ValueCodec items;
  private final boolean itemsNullable;

  /** Item width of a packable list (1, 2, 4 or 8), or 0. */
  private final int packWidth;

  /** Whether packable items are signed (sign-extended rather than zero-extended). */
  private final boolean packSigned;

  /** Item width of a float list packable in format 1.4 (4 or 8), or 0. */
  private final int floatWidth;

  /**
   * @param packWidth the item width if the list is a packable integer list, else 0
   * @param floatWidth the item width if the list is a packable float list (1.4), else 0
   */
  ListCodec(
      ValueCodec items, boolean itemsNullable, int packWidth, boolean packSigned, int floatWidth) {
    this.items = items;
    this.itemsNullable = itemsNullable;
    this.packWidth = packWidth;
    this.packSigned = packSigned;
    this.floatWidth = floatWidth;
  }

  /**
   * The first byte of a packable list of nullable items: no item is null, the packed form follows.
   */
  static final int NO_NULL_ITEMS = 0;

  /**
   * The first byte of a packable list of nullable items: some item is null, the plain form follows.
   */
  static final int NULL_ITEMS = 1;

  @Override
  public boolean packs(boolean floats) {
    return (packWidth > 0 && (floats || !itemsNullable))
        || (floats && floatWidth > 0)
        || items.packs(floats);
  }

  /**
   * Whether the list being read from {@code in} is an integer list in packed form (if packable).
   */
  private boolean packedInts(RecordInput in) {
    return packWidth > 0 && in.isPacked() && (!itemsNullable || in.packsFloats());
  }

  /** Whether the list being read from {@code in} is a float list in packed form (if packable). */
  private boolean packedFloats(RecordInput in) {
    return floatWidth > 0 && in.isPacked() && in.packsFloats();
  }

  /**
   * For a packable list of nullable items in a packed record: reads its first byte, true if the
   * packed form follows, false if the plain form does.
   */
  private boolean noNullItems(RecordInput in) throws CorruptFileException {
    int b = in.u8();
    if (b != NO_NULL_ITEMS && b != NULL_ITEMS) {
      throw in.corruptAt(in.fileOffset() - 1, "unknown packed list null-items byte " + b);
    }
    return b == NO_NULL_ITEMS;
  }

  @Override
  public void pack(RecordInput in, ByteSink out, boolean whole) throws CorruptFileException {
    // The writer writes 1.4 only: lists of nullable items pack too.
    int width = packWidth > 0 ? packWidth : floatWidth;
    if (width > 0) {
      int n = readCount(in);
      if (itemsNullable) {
        int bitmap = Bitmaps.read(in, n);
        int valid = Bitmaps.rank(in.buffer(), bitmap, n);
        if (valid < n) {
          out.put((byte) NULL_ITEMS);
          out.putVarint(n);
          in.take((long) valid * width);
          copy(in, bitmap, out);
          return;
        }
        out.put((byte) NO_NULL_ITEMS);
      }
      int at = in.take((long) n * width);
      if (packWidth > 0) {
        PackedLists.pack(in.buffer(), at, n, packWidth, packSigned, out);
      } else {
        PackedFloats.pack(in.buffer(), at, n, floatWidth, out);
      }
    } else if (items.packs(true)) {
      int n = readCount(in);
      out.putVarint(n);
      packItems(items, itemsNullable, in, n, out);
    } else {
      super.pack(in, out, whole);
    }
  }

  /** Shared with fixed-size lists: copies the optional bitmap, then packs each valid item. */
  static void packItems(ValueCodec items, boolean nullable, RecordInput in, int n, ByteSink out)
      throws CorruptFileException {
    int valid = n;
    if (nullable) {
      int bitmap = Bitmaps.read(in, n);
      copy(in, bitmap, out);
      valid = Bitmaps.rank(in.buffer(), bitmap, n);
    }
    for (int k = 0; k < valid; k++) {
      items.pack(in, out, false);
    }
  }

  /**
   * The count of a packed list: not bounded by the record's length (items may take no bytes), but
   * by the record's budget of restored item bytes.
   */
  private int readPackedCount(RecordInput in, int width) throws CorruptFileException {
    int n = (int) in.varint(Integer.MAX_VALUE - 8L);
    in.spendPacked((long) n * width);
    return n;
  }

  @Override
  public void encode(FieldVector vector, int index, ByteSink out, boolean whole) {
    long start;
    long end;
    FieldVector child;
    if (vector instanceof LargeListVector) {
      LargeListVector v = (LargeListVector) vector;
      start = v.getElementStartIndex(index);
      end = v.getElementEndIndex(index);
      child = v.getDataVector();
    } else {
      BaseRepeatedValueVector v = (BaseRepeatedValueVector) vector;
      start = v.getOffsetBuffer().getInt((long) index * 4);
      end = v.getOffsetBuffer().getInt((long) index * 4 + 4);
      child = v.getDataVector();
    }
    int first = Math.toIntExact(start);
    int n = Math.toIntExact(end - start);
    out.putVarint(n);
    encodeItems(items, itemsNullable, child, first, n, out);
  }

  /** Shared with fixed-size lists: optional bitmap, then valid items, in runs where possible. */
  static void encodeItems(
      ValueCodec items, boolean nullable, FieldVector child, int first, int n, ByteSink out) {
    if (!nullable) {
      items.encodeRun(child, first, n, out);
      return;
    }
    int valid = Bitmaps.write(child, first, n, out);
    if (valid == n) {
      items.encodeRun(child, first, n, out);
      return;
    }
    for (int k = 0; k < n; k++) {
      if (!child.isNull(first + k)) {
        items.encode(child, first + k, out, false);
      }
    }
  }

  /** Decodes n items into child slots [first, first + n). */
  static void decodeItems(
      ValueCodec items, boolean nullable, RecordInput in, FieldVector child, int first, int n)
      throws CorruptFileException {
    if (!nullable) {
      items.decodeRun(in, child, first, n);
      return;
    }
    int bitmap = Bitmaps.read(in, n);
    if (Bitmaps.rank(in.buffer(), bitmap, n) == n) {
      // No null item (the usual case of a nullable item type, such as Spark's arrays): one run.
      items.decodeRun(in, child, first, n);
      return;
    }
    int k = 0;
    while (k < n) {
      // Decode maximal runs of valid items in one call so fixed-width items stay a bulk copy.
      int runStart = k;
      while (k < n && Bitmaps.get(in.buffer(), bitmap, k)) {
        k++;
      }
      if (k > runStart) {
        items.decodeRun(in, child, first + runStart, k - runStart);
      }
      int nullStart = k;
      while (k < n && !Bitmaps.get(in.buffer(), bitmap, k)) {
        k++;
      }
      if (k > nullStart) {
        Buffers.setNullZeroed(child, first + nullStart, k - nullStart);
      }
    }
  }

  /** Measures n items as {@link #decodeItems} would decode them. */
  static void measureItems(ValueCodec items, boolean nullable, RecordInput in, VectorSizes s, int n)
      throws CorruptFileException {
    if (!nullable) {
      items.measureRun(in, n, s);
      return;
    }
    int bitmap = Bitmaps.read(in, n);
    int valid = Bitmaps.rank(in.buffer(), bitmap, n);
    items.measureRun(in, valid, s);
    s.values += n - valid;
  }

  static void skipItems(ValueCodec items, boolean nullable, RecordInput in, int n)
      throws CorruptFileException {
    if (!nullable) {
      items.skipRun(in, n);
      return;
    }
    int bitmap = Bitmaps.read(in, n);
    items.skipRun(in, Bitmaps.rank(in.buffer(), bitmap, n));
  }

  /**
   * Every non-null item costs at least one byte and every null item one bit, so a count above eight
   * times the remaining bytes can only come from a damaged record; refusing it early keeps a bad
   * count from allocating gigabytes.
   */
  static int readCount(RecordInput in) throws CorruptFileException {
    long max = Math.min(Integer.MAX_VALUE - 8L, 8L * in.remaining());
    return (int) in.varint(max);
  }

  @Override
  public void decode(RecordInput in, FieldVector vector, int index, boolean whole)
      throws CorruptFileException {
    boolean packed = packedInts(in);
    boolean floats = packedFloats(in);
    if ((packed || floats) && itemsNullable && !noNullItems(in)) {
      packed = false;
      floats = false;
    }
    int n =
        packed
            ? readPackedCount(in, packWidth)
            : floats ? readPackedCount(in, floatWidth) : readCount(in);
    if (vector instanceof LargeListVector) {
      LargeListVector v = (LargeListVector) vector;
      long first = v.startNewValue(index);
      if (first + n > Integer.MAX_VALUE - 8L) {
        throw in.corrupt("list items exceed what one Arrow batch can hold");
      }
      decodeItems(in, v.getDataVector(), (int) first, n, packed, floats);
      v.endValue(index, n);
    } else {
      ListVector v = (ListVector) vector;
      int first = v.startNewValue(index);
      if ((long) first + n > Integer.MAX_VALUE - 8L) {
        throw in.corrupt("list items exceed what one Arrow batch can hold");
      }
      decodeItems(in, v.getDataVector(), first, n, packed, floats);
      v.endValue(index, n);
    }
  }

  private void decodeItems(
      RecordInput in, FieldVector child, int first, int n, boolean packed, boolean floats)
      throws CorruptFileException {
    if (packed) {
      PackedLists.decode(in, n, packWidth, (BaseFixedWidthVector) child, first);
    } else if (floats) {
      PackedFloats.decode(in, n, floatWidth, (BaseFixedWidthVector) child, first);
    } else {
      decodeItems(items, itemsNullable, in, child, first, n);
    }
  }

  @Override
  public void skip(RecordInput in, boolean whole) throws CorruptFileException {
    boolean ints = packedInts(in);
    boolean floats = packedFloats(in);
    if ((ints || floats) && itemsNullable && !noNullItems(in)) {
      skipItems(items, itemsNullable, in, readCount(in));
    } else if (ints) {
      PackedLists.skip(in, readPackedCount(in, packWidth));
    } else if (floats) {
      PackedFloats.skip(in, readPackedCount(in, floatWidth), floatWidth);
    } else {
      skipItems(items, itemsNullable, in, readCount(in));
    }
  }

  @Override
  public VectorSizes newSizes() {
    return new VectorSizes(items.newSizes());
  }

  @Override
  public void measure(RecordInput in, boolean whole, VectorSizes s) throws CorruptFileException {
    s.values++;
    boolean ints = packedInts(in);
    boolean floats = packedFloats(in);
    if ((ints || floats) && itemsNullable && !noNullItems(in)) {
      measureItems(items, itemsNullable, in, s.children[0], readCount(in));
      return;
    }
    if (ints) {
      int n = readPackedCount(in, packWidth);
      PackedLists.skip(in, n);
      s.children[0].values += n;
      return;
    }
    if (floats) {
      int n = readPackedCount(in, floatWidth);
      PackedFloats.skip(in, n, floatWidth);
      s.children[0].values += n;
      return;
    }
    measureItems(items, itemsNullable, in, s.children[0], readCount(in));
  }

  @Override
  public boolean estimateRecords(long count, long bytes, VectorSizes s) {
    // Items of a fixed width: a record holds at most its bytes / width of them unless some are
    // null; the count and bitmap bytes make it a slight overestimate.
    int w = items.fixedWidth();
    if (w <= 0) {
      return false;
    }
    s.values += count;
    items.addFixed(s.children[0], bytes / w);
    return true;
  }

  @Override
  public void presize(FieldVector v, VectorSizes s) {
    // Sets the offsets and validity for the slots, and a default for the items, replaced next.
    v.setInitialCapacity(s.slots());
    FieldVector child =
        v instanceof LargeListVector
            ? ((LargeListVector) v).getDataVector()
            : ((BaseRepeatedValueVector) v).getDataVector();
    items.presize(child, s.children[0]);
  }
}
