package dev.riffle.format.read;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.RecordInput;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.encoding.BitPacking;
import dev.riffle.format.encoding.Bitmaps;
import dev.riffle.format.encoding.Buffers;
import dev.riffle.format.encoding.DecimalFloats;
import dev.riffle.format.schema.ColumnSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * The LISTS codec of {@link SectorDecoder} (FORMAT.md §5.1): a sector's bit-packed item counts,
 * then its items, plain or as packed decimals (1.4), decoded into a list vector; and the exact item
 * bytes of a sector's rows, which size a scan's vectors.
 */
final class ListSectorDecoder {
  private final String resource;
  private final ColumnSpec spec;
  private final RowCodec rows;

  /** Item width of this column's LISTS sectors. */
  private final int listItemWidth;

  /** Whether the items of this column's lists are declared nullable (LISTS sectors: 1.4). */
  private final boolean listItemsNullable;

  ListSectorDecoder(
      String resource,
      ColumnSpec spec,
      RowCodec rows,
      int listItemWidth,
      boolean listItemsNullable) {
    this.resource = resource;
    this.spec = spec;
    this.rows = rows;
    this.listItemWidth = listItemWidth;
    this.listItemsNullable = listItemsNullable;
  }

  /** This thread's scratch array of at least {@code n} values (FOR sectors unpack into it too). */
  static long[] scratch(int n) {
    return LIST_SCRATCH.get().counts(n);
  }

  /**
   * The item bytes of rows [kFrom, kTo) of the n-row LISTS sector at {@code pos} (exact: their
   * counts are read), which size a list's items as records of those bytes would; -1 if its header
   * makes no sense.
   */
  long itemBytes(ByteBuffer buf, int pos, int n, int kFrom, int kTo) {
    int flags = buf.get(pos + SectorLayout.FLAGS_OFFSET) & 0xFF;
    int bitWidth = buf.get(pos + SectorLayout.BIT_WIDTH_OFFSET) & 0xFF;
    long reference = buf.getLong(pos + SectorLayout.REFERENCE_OFFSET);
    if ((flags & SectorLayout.FLAG_ZSTD) != 0 || bitWidth > 32) {
      return -1;
    }
    int p = pos + SectorLayout.HEADER_BYTES;
    int from = kFrom;
    int to = kTo;
    int valid = n;
    if ((flags & SectorLayout.FLAG_VALIDITY) != 0) {
      from = Bitmaps.rank(buf, p, kFrom);
      to = Bitmaps.rank(buf, p, kTo);
      valid = Bitmaps.rank(buf, p, n);
      p += Bitmaps.bytes(n);
    }
    if (p + BitPacking.packedBytes(valid, bitWidth) > pos + SectorLayout.CRC_OFFSET) {
      return -1;
    }
    long items = 0;
    for (int i = from; i < to; i++) {
      long c = reference + BitPacking.get(buf, p, i, bitWidth);
      if (c < 0 || c > FileLayout.SECTOR_BYTES) {
        return -1;
      }
      items += c;
    }
    return items * listItemWidth;
  }

  /**
   * Decodes rows [kFrom, kTo) of a LISTS sector (FORMAT.md §5.1) whose packed counts start at
   * {@code p}: a row's items are copied straight into the list's item vector where that is a plain
   * fixed-width vector of the item width; otherwise (booleans) its record ({@code varint count}, an
   * all-valid item bitmap if items are nullable, then its items) is rebuilt in a per-thread buffer
   * and decoded like a RECORDS row. The first row's items start after the items of all valid rows
   * before it, so a take sums those counts (at most a sector's worth).
   */
  void decode(
      SectorDecoder.SectorMemo memo,
      ByteBuffer d,
      int base,
      int p,
      int end,
      int bitmap,
      int valid,
      int idx,
      int kFrom,
      int kTo,
      long fileOffset,
      Target t,
      int outStart)
      throws CorruptFileException {
    int bitWidth = memo.bitWidth;
    long reference = memo.reference;
    int w = listItemWidth;
    if (t.single == null || memo.valueWidth != w || bitWidth > 32 || memo.inflated) {
      throw new CorruptFileException(
          resource,
          fileOffset,
          "LISTS sector (item width "
              + memo.valueWidth
              + ", count width "
              + bitWidth
              + (memo.inflated ? ", compressed" : "")
              + ") does not fit column '"
              + spec.name()
              + "'");
    }
    long items = p + (long) BitPacking.packedBytes(valid, bitWidth);
    if (items > end) {
      throw new CorruptFileException(resource, fileOffset, "list counts overrun the sector");
    }
    boolean packed = memo.packedItems;
    ListScratch scratch = LIST_SCRATCH.get();
    // Packed items: the header (scale, item bits, base), then the sector's N items bit-packed.
    int scale = 0;
    int itemBits = 0;
    long itemBase = 0;
    long packedAt = items + DecimalFloats.HEADER_BYTES;
    long maxCount = (end - items) / w;
    if (packed) {
      if (packedAt > end) {
        throw new CorruptFileException(
            resource, fileOffset + (items - base), "packed item header overruns the sector");
      }
      scale = d.get((int) items) & 0xFF;
      itemBits = d.get((int) items + 1) & 0xFF;
      itemBase = d.getLong((int) items + 2);
      if (scale > DecimalFloats.MAX_SCALE || itemBits > 64) {
        throw new CorruptFileException(
            resource,
            fileOffset + (items - base),
            "packed items of scale " + scale + " and " + itemBits + " bits");
      }
      // Items may take no bits: their total is capped, and every count checked against it.
      long[] all = scratch.counts(valid);
      BitPacking.unpack(d, p, 0, valid, bitWidth, all);
      long total = 0;
      for (int v = 0; v < valid; v++) {
        total += checkedCount(all[v], reference, DecimalFloats.MAX_ITEMS, fileOffset);
      }
      if (total > DecimalFloats.MAX_ITEMS
          || packedAt + BitPacking.packedBytes((int) total, itemBits) > end) {
        throw new CorruptFileException(
            resource, fileOffset + (items - base), "packed items overrun the sector");
      }
      maxCount = total;
    }
    // The counts of the valid rows before the first one decoded and of those decoded, at once.
    int last = idx;
    for (int k = kFrom; k < kTo; k++) {
      last += bitmap >= 0 && !Bitmaps.get(d, bitmap, k) ? 0 : 1;
    }
    if (last > valid) {
      throw new CorruptFileException(resource, fileOffset, "more list rows than valid rows");
    }
    long[] counts = scratch.counts(last);
    BitPacking.unpack(d, p, 0, last, bitWidth, counts);
    long start = 0;
    for (int v = 0; v < idx; v++) {
      start += checkedCount(counts[v], reference, maxCount, fileOffset);
    }
    BaseFixedWidthVector direct = directItems(t.single, w);
    if (packed && direct == null) {
      throw new IllegalStateException("packed float items need a float item vector");
    }
    RecordInput in = direct == null ? new RecordInput(resource) : null;
    for (int k = kFrom; k < kTo; k++) {
      int j = outStart + (k - kFrom);
      if (bitmap >= 0 && !Bitmaps.get(d, bitmap, k)) {
        t.setNull(j);
        continue;
      }
      long c = checkedCount(counts[idx], reference, maxCount, fileOffset);
      if (packed) {
        if (start + c > maxCount) {
          throw new CorruptFileException(
              resource, fileOffset + (items - base), "list items overrun the sector");
        }
        copyPackedItems(
            t.single, j, direct, d, (int) packedAt, start, (int) c, itemBits, itemBase, scale);
        start += c;
        idx++;
        continue;
      }
      long at = items + start * w;
      if (start > maxCount || at + c * w > end) {
        // Named at where the items would start, or at the sector's end if that is beyond it (a
        // damaged count can put it anywhere).
        throw new CorruptFileException(
            resource, fileOffset + (Math.min(at, end) - base), "list items overrun the sector");
      }
      if (direct != null) {
        copyItems(t.single, j, direct, d, (int) at, (int) c, w);
      } else {
        int len = scratch.record(d, (int) at, (int) c, w, listItemsNullable);
        in.reset(scratch.view, 0, len, fileOffset + (at - base));
        rows.decode(in, t, j);
      }
      start += c;
      idx++;
    }
  }

  /**
   * The item vector of {@code list} if a LISTS row's items can be copied into it as they are: a
   * fixed-width vector (not booleans, stored one byte each) of width {@code w}; else null.
   */
  private static BaseFixedWidthVector directItems(FieldVector list, int w) {
    FieldVector child =
        list instanceof ListVector l
            ? l.getDataVector()
            : list instanceof LargeListVector l ? l.getDataVector() : null;
    return child instanceof BaseFixedWidthVector f
            && !(f instanceof BitVector)
            && f.getTypeWidth() == w
        ? f
        : null;
  }

  /**
   * Row {@code j} of {@code list}: items {@code [first, first + c)} of the packed decimals at
   * {@code d[at]} ({@link DecimalFloats}), restored into the float item vector.
   */
  private static void copyPackedItems(
      FieldVector list,
      int j,
      BaseFixedWidthVector items,
      ByteBuffer d,
      int at,
      long first,
      int c,
      int bits,
      long base,
      int scale) {
    long slot =
        list instanceof ListVector l
            ? l.startNewValue(j)
            : ((LargeListVector) list).startNewValue(j);
    if (slot + c > Integer.MAX_VALUE - 8L) {
      throw new IllegalStateException("list items exceed what one Arrow batch can hold");
    }
    while (items.getValueCapacity() < slot + c) {
      items.reAlloc();
    }
    long[] p = LIST_SCRATCH.get().items(c);
    BitPacking.unpack(d, at, (int) first, c, bits, p);
    int w = items.getTypeWidth();
    DecimalFloats.restore(p, c, base, scale, w, items.getDataBuffer().memoryAddress() + slot * w);
    Buffers.setValid(items.getValidityBuffer(), (int) slot, c);
    if (list instanceof ListVector l) {
      l.endValue(j, c);
    } else {
      ((LargeListVector) list).endValue(j, c);
    }
  }

  /** Row {@code j} of {@code list}: the {@code c} items of {@code w} bytes at {@code d[at]}. */
  private static void copyItems(
      FieldVector list, int j, BaseFixedWidthVector items, ByteBuffer d, int at, int c, int w) {
    long first =
        list instanceof ListVector l
            ? l.startNewValue(j)
            : ((LargeListVector) list).startNewValue(j);
    // Items past what one Arrow batch holds: the bound a record decode enforces too.
    if (first + c > Integer.MAX_VALUE - 8L) {
      throw new IllegalStateException("list items exceed what one Arrow batch can hold");
    }
    while (items.getValueCapacity() < first + c) {
      items.reAlloc();
    }
    Buffers.copy(items.getDataBuffer(), first * w, d, at, c * w);
    Buffers.setValid(items.getValidityBuffer(), (int) first, c);
    if (list instanceof ListVector l) {
      l.endValue(j, c);
    } else {
      ((LargeListVector) list).endValue(j, c);
    }
  }

  private long checkedCount(long packed, long reference, long maxCount, long fileOffset)
      throws CorruptFileException {
    long c = reference + packed;
    if (c < 0 || c > maxCount) {
      throw new CorruptFileException(
          resource,
          fileOffset,
          "list item count " + Long.toUnsignedString(c) + " overruns the sector");
    }
    return c;
  }

  /**
   * Per-thread scratch: the record of one LISTS row (varint count, then its items), and the counts
   * of a LISTS sector or the values of a FOR sector, unpacked.
   */
  private static final class ListScratch {
    private byte[] bytes = new byte[FileLayout.SECTOR_BYTES + 16];
    ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    private long[] counts = new long[1024];
    private long[] items = new long[1024];

    long[] counts(int n) {
      if (counts.length < n) {
        counts = new long[Math.max(n, 2 * counts.length)];
      }
      return counts;
    }

    /** Scratch for the packed items of one row (never the same array as {@link #counts}). */
    long[] items(int n) {
      if (items.length < n) {
        items = new long[Math.max(n, 2 * items.length)];
      }
      return items;
    }

    /**
     * Builds the record of {@code count} items of {@code w} bytes at {@code d[at]}, with an item
     * bitmap of {@code count} set bits if {@code nullableItems}.
     */
    int record(ByteBuffer d, int at, int count, int w, boolean nullableItems) {
      int bitmap = nullableItems ? Bitmaps.bytes(count) : 0;
      int need = 5 + bitmap + count * w;
      if (bytes.length < need) {
        bytes = new byte[need];
        view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
      }
      int len = 0;
      long c = count;
      while (c >= 0x80) {
        bytes[len++] = (byte) (c | 0x80);
        c >>>= 7;
      }
      bytes[len++] = (byte) c;
      if (nullableItems) {
        java.util.Arrays.fill(bytes, len, len + count / 8, (byte) 0xFF);
        if (count % 8 != 0) {
          bytes[len + count / 8] = (byte) ((1 << (count % 8)) - 1);
        }
        len += bitmap;
      }
      d.get(at, bytes, len, count * w);
      return len + count * w;
    }
  }

  private static final ThreadLocal<ListScratch> LIST_SCRATCH =
      ThreadLocal.withInitial(ListScratch::new);
}
