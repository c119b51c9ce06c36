package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.CODEC_LISTS;
import static dev.riffle.format.SectorLayout.MAX_ROWS;
import static dev.riffle.format.SectorLayout.MAX_ZSTD_PAYLOAD_BYTES;
import static dev.riffle.format.SectorLayout.PAYLOAD_BYTES;

import java.nio.ByteBuffer;

/**
 * The LISTS sector codec, for list records ({@code varint count}, then {@code count} items of
 * {@code itemWidth} bytes): the counts bit-packed as their excess over the sector's smallest, then
 * every list's items back to back, so a row costs a few bits of structure where a record costs a
 * u16 offset and a varint. Only plain sectors use it: compressed sectors hold such rows as RECORDS.
 *
 * <p>Lists of nullable items (1.4) have an item bitmap after the count; a LISTS sector holds only
 * lists whose bitmap has every item valid, and drops the bitmap. A row with a null item ends the
 * sector, and a sector that would start with one is left to RECORDS ({@link #plainRows} is 0).
 *
 * <p>Float items (1.4) are packed as decimals ({@link DecimalFloats}) when every item of the page
 * is one at a common scale and that puts a quarter more rows in the sector than plain items: a
 * decode per row must buy as much as an inflate must (FORMAT.md §5.5).
 */
final class ListSectorEncoder implements PayloadEncoder {
  private final PageRows rows;
  private final byte[] data;
  private final int itemWidth;
  private final boolean itemsNullable;

  /** 4 or 8 if the items are float32 or float64 (which may pack as decimals), else 0. */
  private final int floatWidth;

  /** The item counts of a sector, reused across sectors. */
  private long[] packed;

  /**
   * The page's decimal items, computed on first use: {@link #scale} is -1 if they are not all
   * decimals at one scale; else item {@code t} of valid record {@code v} (if it has no null item)
   * is {@code decimals[firstItem[v] + t]}.
   */
  private int scale = -2;

  private long[] decimals;
  private int[] firstItem;

  /** The sector {@link #plainRows} chose last: its first row and whether its items are packed. */
  private int chosenRow = -1;

  private boolean chosePacked;

  ListSectorEncoder(PageRows rows, int itemWidth, boolean itemsNullable, int floatWidth) {
    this.rows = rows;
    this.data = rows.array();
    this.itemWidth = itemWidth;
    this.itemsNullable = itemsNullable;
    this.floatWidth = floatWidth;
  }

  /** The item count of list record {@code v} (its leading varint). */
  private long count(int v) {
    int at = rows.recordStart(v);
    long c = 0;
    for (int shift = 0; ; shift += 7) {
      int b = data[at++];
      c |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return c;
      }
    }
  }

  private static int varintBytes(long c) {
    int n = 1;
    while (c >= 0x80) {
      c >>>= 7;
      n++;
    }
    return n;
  }

  /**
   * Whether list record {@code v} of {@code c} items has a null item: its item bitmap (right after
   * the count) has a clear bit among its first {@code c}.
   */
  private boolean hasNullItem(int v, long c) {
    if (!itemsNullable || c == 0) {
      return false;
    }
    int at = rows.recordStart(v) + varintBytes(c);
    int full = (int) (c >>> 3);
    for (int i = 0; i < full; i++) {
      if (data[at + i] != (byte) 0xFF) {
        return true;
      }
    }
    int rest = (int) (c & 7);
    int mask = (1 << rest) - 1;
    return rest != 0 && (data[at + full] & mask) != mask;
  }

  /**
   * The smallest scale at which every item of the page's lists without a null item is a decimal
   * (FORMAT.md §5.5), -1 if there is none; fills {@link #decimals} and {@link #firstItem}.
   */
  private int scale() {
    if (scale != -2) {
      return scale;
    }
    scale = -1;
    int nv = rows.validCount();
    firstItem = new int[nv + 1];
    long total = 0;
    for (int v = 0; v < nv; v++) {
      long c = count(v);
      total += hasNullItem(v, c) ? 0 : c;
      if (total > Integer.MAX_VALUE - 8) {
        return scale;
      }
      firstItem[v + 1] = (int) total;
    }
    decimals = new long[(int) total];
    for (int e = 0; e <= DecimalFloats.WRITER_MAX_SCALE; e++) {
      if (allDecimal(e)) {
        scale = e;
        return scale;
      }
    }
    decimals = null;
    return scale;
  }

  private boolean allDecimal(int e) {
    for (int v = 0; v < rows.validCount(); v++) {
      int c = firstItem[v + 1] - firstItem[v];
      int at = rows.recordEnd(v) - c * itemWidth;
      for (int t = 0; t < c; t++, at += itemWidth) {
        long n = DecimalFloats.toDecimal(DecimalFloats.itemBits(data, at, itemWidth), itemWidth, e);
        if (n == DecimalFloats.NONE) {
          return false;
        }
        decimals[firstItem[v] + t] = n;
      }
    }
    return true;
  }

  @Override
  public int plainRows(int row, int valid) {
    int plain = rows(row, valid, false);
    chosenRow = row;
    chosePacked = false;
    if (floatWidth > 0 && plain > 0 && scale() >= 0) {
      int p = rows(row, valid, true);
      if (p >= plain + (plain + 3) / 4) {
        chosePacked = true;
        return p;
      }
    }
    return plain;
  }

  /** Whether the sector {@link #plainRows} chose last has its items packed as decimals. */
  boolean packsItems() {
    return chosePacked;
  }

  /** The rows of the greedy LISTS sector at {@code row}, with items plain or packed. */
  private int rows(int row, int valid, boolean packItems) {
    int n = 0;
    int nv = 0;
    boolean nulls = false;
    long min = 0;
    long max = 0;
    long items = 0;
    long itemMin = Long.MAX_VALUE;
    long itemMax = Long.MIN_VALUE;
    while (row < rows.rowCount() && n < MAX_ROWS) {
      boolean isValid = rows.isValid(row);
      boolean nulls2 = nulls || !isValid;
      long c = isValid ? count(valid) : 0;
      if (isValid && hasNullItem(valid, c)) {
        break;
      }
      int nv2 = nv + (isValid ? 1 : 0);
      long min2 = !isValid ? min : nv == 0 ? c : Math.min(min, c);
      long max2 = !isValid ? max : nv == 0 ? c : Math.max(max, c);
      long items2 = items + c;
      long itemMin2 = itemMin;
      long itemMax2 = itemMax;
      long itemBytes;
      if (packItems) {
        if (items2 > DecimalFloats.MAX_ITEMS) {
          break;
        }
        for (int t = isValid ? firstItem[valid] : 0;
            t < (isValid ? firstItem[valid + 1] : 0);
            t++) {
          itemMin2 = Math.min(itemMin2, decimals[t]);
          itemMax2 = Math.max(itemMax2, decimals[t]);
        }
        int bits = items2 == 0 ? 0 : BitPacking.bitWidth(itemMax2 - itemMin2);
        itemBytes = DecimalFloats.HEADER_BYTES + BitPacking.packedBytes((int) items2, bits);
      } else {
        itemBytes = items2 * itemWidth;
      }
      long size =
          (nulls2 ? Bitmaps.bytes(n + 1) : 0)
              + BitPacking.packedBytes(nv2, BitPacking.bitWidth(max2 - min2))
              + itemBytes;
      if (n > 0 && size > PAYLOAD_BYTES) {
        break;
      }
      if (size > PAYLOAD_BYTES) {
        if (packItems) {
          break;
        }
        throw new IllegalArgumentException("list of " + c + " items does not fit a sector");
      }
      n++;
      nv = nv2;
      nulls = nulls2;
      min = min2;
      max = max2;
      items = items2;
      itemMin = itemMin2;
      itemMax = itemMax2;
      if (isValid) {
        valid++;
      }
      row++;
    }
    return n;
  }

  @Override
  public boolean build(int row, int valid, int n, SectorPayload p) {
    boolean packItems = chosePacked && chosenRow == row;
    int nv = 0;
    boolean nulls = false;
    long min = 0;
    long max = 0;
    long items = 0;
    if (packed == null || packed.length < n) {
      packed = new long[Math.max(n, 1024)];
    }
    for (int k = 0; k < n; k++) {
      if (!rows.isValid(row + k)) {
        nulls = true;
        continue;
      }
      long c = count(valid + nv);
      packed[nv] = c;
      min = nv == 0 ? c : Math.min(min, c);
      max = nv == 0 ? c : Math.max(max, c);
      items += c;
      nv++;
    }
    int bitWidth = BitPacking.bitWidth(max - min);
    int bitmap = nulls ? Bitmaps.bytes(n) : 0;
    int countBytes = BitPacking.packedBytes(nv, bitWidth);
    int firstDecimal = packItems ? firstItem[valid] : 0;
    long itemMin = 0;
    int itemBits = 0;
    if (packItems) {
      long itemMax = Long.MIN_VALUE;
      itemMin = Long.MAX_VALUE;
      for (int t = firstDecimal; t < firstDecimal + items; t++) {
        itemMin = Math.min(itemMin, decimals[t]);
        itemMax = Math.max(itemMax, decimals[t]);
      }
      itemBits = items == 0 ? 0 : BitPacking.bitWidth(itemMax - itemMin);
      itemMin = items == 0 ? 0 : itemMin;
    }
    long itemBytes =
        packItems
            ? DecimalFloats.HEADER_BYTES + BitPacking.packedBytes((int) items, itemBits)
            : items * itemWidth;
    long size = bitmap + countBytes + itemBytes;
    if (size > MAX_ZSTD_PAYLOAD_BYTES) {
      return false;
    }
    byte[] a = p.reset((int) size, nv, nulls, CODEC_LISTS, bitWidth, itemWidth, min);
    p.putValidity(rows, row, n);
    p.packedItems = packItems;
    for (int v = 0; v < nv; v++) {
      packed[v] -= min;
    }
    ByteBuffer s = p.buf;
    s.clear().position(bitmap);
    BitPacking.pack(packed, nv, bitWidth, s);
    int at = bitmap + countBytes;
    if (packItems) {
      s.put(at, (byte) scale);
      s.put(at + 1, (byte) itemBits);
      s.putLong(at + 2, itemMin);
      long[] excess = new long[(int) items];
      for (int t = 0; t < excess.length; t++) {
        excess[t] = decimals[firstDecimal + t] - itemMin;
      }
      s.position(at + DecimalFloats.HEADER_BYTES);
      BitPacking.pack(excess, excess.length, itemBits, s);
      return true;
    }
    for (int v = 0; v < nv; v++) {
      int end = rows.recordEnd(valid + v);
      int len = (int) ((packed[v] + min) * itemWidth);
      System.arraycopy(data, end - len, a, at, len);
      at += len;
    }
    return true;
  }
}
