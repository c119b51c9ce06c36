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
 */
final class ListSectorEncoder implements PayloadEncoder {
  private final PageRows rows;
  private final byte[] data;
  private final int itemWidth;
  private final boolean itemsNullable;

  /** The item counts of a sector, reused across sectors. */
  private long[] packed;

  ListSectorEncoder(PageRows rows, int itemWidth, boolean itemsNullable) {
    this.rows = rows;
    this.data = rows.array();
    this.itemWidth = itemWidth;
    this.itemsNullable = itemsNullable;
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

  @Override
  public int plainRows(int row, int valid) {
    int n = 0;
    int nv = 0;
    boolean nulls = false;
    long min = 0;
    long max = 0;
    long items = 0;
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
      long size =
          (nulls2 ? Bitmaps.bytes(n + 1) : 0)
              + BitPacking.packedBytes(nv2, BitPacking.bitWidth(max2 - min2))
              + items2 * itemWidth;
      if (n > 0 && size > PAYLOAD_BYTES) {
        break;
      }
      if (size > PAYLOAD_BYTES) {
        throw new IllegalArgumentException("list of " + c + " items does not fit a sector");
      }
      n++;
      nv = nv2;
      nulls = nulls2;
      min = min2;
      max = max2;
      items = items2;
      if (isValid) {
        valid++;
      }
      row++;
    }
    return n;
  }

  @Override
  public boolean build(int row, int valid, int n, SectorPayload p) {
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
    long size = bitmap + countBytes + items * itemWidth;
    if (size > MAX_ZSTD_PAYLOAD_BYTES) {
      return false;
    }
    byte[] a = p.reset((int) size, nv, nulls, CODEC_LISTS, bitWidth, itemWidth, min);
    p.putValidity(rows, row, n);
    for (int v = 0; v < nv; v++) {
      packed[v] -= min;
    }
    ByteBuffer s = p.buf;
    s.clear().position(bitmap);
    BitPacking.pack(packed, nv, bitWidth, s);
    int at = bitmap + countBytes;
    for (int v = 0; v < nv; v++) {
      int end = rows.recordEnd(valid + v);
      int len = (int) ((packed[v] + min) * itemWidth);
      System.arraycopy(data, end - len, a, at, len);
      at += len;
    }
    return true;
  }
}
