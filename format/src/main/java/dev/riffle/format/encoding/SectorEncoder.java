package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.CODEC_FLAT;
import static dev.riffle.format.SectorLayout.CODEC_FOR;
import static dev.riffle.format.SectorLayout.CODEC_RECORDS;
import static dev.riffle.format.SectorLayout.CRC_OFFSET;
import static dev.riffle.format.SectorLayout.FLAG_VALIDITY;
import static dev.riffle.format.SectorLayout.HEADER_BYTES;
import static dev.riffle.format.SectorLayout.MAX_ROWS;
import static dev.riffle.format.SectorLayout.PAYLOAD_BYTES;

import dev.riffle.format.FileLayout;
import dev.riffle.format.SectorLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Packs a page's rows into self-contained 4 KiB sectors ({@link SectorLayout}). Packing is greedy:
 * a sector takes rows while its encoding still fits, so no value ever straddles a sector and one
 * aligned read serves any row.
 */
public final class SectorEncoder {
  private SectorEncoder() {}

  /**
   * Encodes fixed-width values (each valid record is {@code width} little-endian bytes). Integer
   * kinds ({@code signedness} 0 or 1) use frame-of-reference bit packing per sector when it is
   * smaller than the flat form.
   *
   * @return the first row of each sector, relative to the page
   */
  public static LongList encodeFixed(PageRows rows, int width, int signedness, ByteSink out) {
    LongList firstRows = new LongList();
    byte[] data = rows.array();
    long[] packed = new long[MAX_ROWS];
    int row = 0;
    int valid = 0;
    while (row < rows.rowCount()) {
      int first = row;
      int firstValid = valid;
      int n = 0;
      int nv = 0;
      boolean nulls = false;
      long min = 0;
      long max = 0;
      int bitWidth = 0;
      boolean useFor = false;
      while (row < rows.rowCount() && n < MAX_ROWS) {
        boolean isValid = rows.isValid(row);
        boolean nulls2 = nulls || !isValid;
        int nv2 = nv + (isValid ? 1 : 0);
        long min2 = min;
        long max2 = max;
        if (isValid && signedness >= 0) {
          long v = readValue(data, rows.recordStart(valid), width, signedness == 1);
          if (nv == 0) {
            min2 = v;
            max2 = v;
          } else if (signedness == 1) {
            min2 = Math.min(min, v);
            max2 = Math.max(max, v);
          } else {
            min2 = Long.compareUnsigned(v, min) < 0 ? v : min;
            max2 = Long.compareUnsigned(v, max) > 0 ? v : max;
          }
        }
        int bitmap = nulls2 ? Bitmaps.bytes(n + 1) : 0;
        long flatBytes = (long) nv2 * width;
        int bw2 = signedness >= 0 ? BitPacking.bitWidth(max2 - min2) : 64;
        long forBytes = signedness >= 0 ? BitPacking.packedBytes(nv2, bw2) : Long.MAX_VALUE;
        boolean for2 = forBytes < flatBytes;
        if (n > 0 && bitmap + Math.min(flatBytes, forBytes) > PAYLOAD_BYTES) {
          break;
        }
        n++;
        nv = nv2;
        nulls = nulls2;
        min = min2;
        max = max2;
        bitWidth = bw2;
        useFor = for2;
        if (isValid) {
          valid++;
        }
        row++;
      }
      firstRows.add(first);
      int base = out.reserve(FileLayout.SECTOR_BYTES);
      ByteBuffer s =
          ByteBuffer.wrap(out.array(), base, FileLayout.SECTOR_BYTES)
              .slice()
              .order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < FileLayout.SECTOR_BYTES; i += 8) {
        s.putLong(i, 0L);
      }
      s.putShort(SectorLayout.ROW_COUNT_OFFSET, (short) n);
      s.put(SectorLayout.CODEC_OFFSET, (byte) (useFor ? CODEC_FOR : CODEC_FLAT));
      s.put(SectorLayout.FLAGS_OFFSET, (byte) (nulls ? FLAG_VALIDITY : 0));
      s.put(SectorLayout.BIT_WIDTH_OFFSET, (byte) (useFor ? bitWidth : 0));
      s.put(SectorLayout.VALUE_WIDTH_OFFSET, (byte) width);
      s.putLong(SectorLayout.REFERENCE_OFFSET, useFor ? min : 0L);
      int p = HEADER_BYTES;
      if (nulls) {
        for (int k = 0; k < n; k++) {
          if (rows.isValid(first + k)) {
            s.put(p + (k >>> 3), (byte) (s.get(p + (k >>> 3)) | (1 << (k & 7))));
          }
        }
        p += Bitmaps.bytes(n);
      }
      if (useFor) {
        for (int v = 0; v < nv; v++) {
          packed[v] =
              readValue(data, rows.recordStart(firstValid + v), width, signedness == 1) - min;
        }
        s.position(p);
        BitPacking.pack(packed, nv, bitWidth, s);
      } else {
        int from = rows.recordStart(firstValid);
        s.position(p);
        s.put(data, from, nv * width);
      }
      seal(s);
    }
    return firstRows;
  }

  /**
   * Encodes variable-size records; every record must be at most {@link
   * SectorLayout#MAX_RECORD_BYTES}.
   */
  public static LongList encodeRecords(PageRows rows, ByteSink out) {
    LongList firstRows = new LongList();
    byte[] data = rows.array();
    int row = 0;
    int valid = 0;
    while (row < rows.rowCount()) {
      int first = row;
      int firstValid = valid;
      int n = 0;
      int nv = 0;
      boolean nulls = false;
      int recordBytes = 0;
      while (row < rows.rowCount() && n < MAX_ROWS) {
        boolean isValid = rows.isValid(row);
        boolean nulls2 = nulls || !isValid;
        int len = isValid ? rows.recordEnd(valid) - rows.recordStart(valid) : 0;
        int nv2 = nv + (isValid ? 1 : 0);
        long size = (nulls2 ? Bitmaps.bytes(n + 1) : 0) + 2L * (nv2 + 1) + recordBytes + len;
        if (n > 0 && size > PAYLOAD_BYTES) {
          break;
        }
        if (size > PAYLOAD_BYTES) {
          throw new IllegalArgumentException("record of " + len + " bytes does not fit a sector");
        }
        n++;
        nv = nv2;
        nulls = nulls2;
        recordBytes += len;
        if (isValid) {
          valid++;
        }
        row++;
      }
      firstRows.add(first);
      int base = out.reserve(FileLayout.SECTOR_BYTES);
      ByteBuffer s =
          ByteBuffer.wrap(out.array(), base, FileLayout.SECTOR_BYTES)
              .slice()
              .order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < FileLayout.SECTOR_BYTES; i += 8) {
        s.putLong(i, 0L);
      }
      s.putShort(SectorLayout.ROW_COUNT_OFFSET, (short) n);
      s.put(SectorLayout.CODEC_OFFSET, (byte) CODEC_RECORDS);
      s.put(SectorLayout.FLAGS_OFFSET, (byte) (nulls ? FLAG_VALIDITY : 0));
      int p = HEADER_BYTES;
      if (nulls) {
        for (int k = 0; k < n; k++) {
          if (rows.isValid(first + k)) {
            s.put(p + (k >>> 3), (byte) (s.get(p + (k >>> 3)) | (1 << (k & 7))));
          }
        }
        p += Bitmaps.bytes(n);
      }
      int from = rows.recordStart(firstValid);
      for (int v = 0; v <= nv; v++) {
        int end = v == 0 ? from : rows.recordEnd(firstValid + v - 1);
        s.putShort(p + 2 * v, (short) (end - from));
      }
      p += 2 * (nv + 1);
      s.position(p);
      s.put(data, from, recordBytes);
      seal(s);
    }
    return firstRows;
  }

  private static void seal(ByteBuffer sector) {
    CRC32C crc = new CRC32C();
    crc.update(sector.array(), sector.arrayOffset(), CRC_OFFSET);
    sector.putInt(CRC_OFFSET, (int) crc.getValue());
  }

  /** Reads a little-endian value of {@code width} (1..8) bytes, sign- or zero-extended. */
  static long readValue(byte[] a, int at, int width, boolean signed) {
    long v = 0;
    for (int i = 0; i < width; i++) {
      v |= (a[at + i] & 0xFFL) << (8 * i);
    }
    if (signed && width < 8) {
      int shift = 64 - 8 * width;
      v = (v << shift) >> shift;
    }
    return v;
  }
}
