package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.CODEC_FLAT;
import static dev.riffle.format.SectorLayout.CODEC_FOR;
import static dev.riffle.format.SectorLayout.MAX_ROWS;
import static dev.riffle.format.SectorLayout.MAX_ZSTD_PAYLOAD_BYTES;
import static dev.riffle.format.SectorLayout.PAYLOAD_BYTES;

import java.nio.ByteBuffer;

/**
 * The FLAT and FOR sector codecs: fixed-width little-endian values, either back to back (FLAT) or,
 * for integer kinds, bit-packed as their excess over the sector's smallest value (FOR) when that is
 * smaller. The choice is made per sector, so one outlier costs only its own sector.
 */
final class FixedSectorEncoder implements PayloadEncoder {
  private final PageRows rows;
  private final byte[] data;
  private final int width;

  /** -1: not an integer (FLAT only); 0: unsigned; 1: signed. */
  private final int signedness;

  /** The excesses of a FOR sector, reused across sectors. */
  private long[] packed;

  FixedSectorEncoder(PageRows rows, int width, int signedness) {
    this.rows = rows;
    this.data = rows.array();
    this.width = width;
    this.signedness = signedness;
  }

  @Override
  public int plainRows(int row, int valid) {
    int n = 0;
    int nv = 0;
    boolean nulls = false;
    long min = 0;
    long max = 0;
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
      long forBytes =
          signedness >= 0
              ? BitPacking.packedBytes(nv2, BitPacking.bitWidth(max2 - min2))
              : Long.MAX_VALUE;
      if (n > 0 && bitmap + Math.min(flatBytes, forBytes) > PAYLOAD_BYTES) {
        break;
      }
      n++;
      nv = nv2;
      nulls = nulls2;
      min = min2;
      max = max2;
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
    for (int k = 0; k < n; k++) {
      if (!rows.isValid(row + k)) {
        nulls = true;
        continue;
      }
      if (signedness >= 0) {
        long x = readValue(data, rows.recordStart(valid + nv), width, signedness == 1);
        if (nv == 0) {
          min = x;
          max = x;
        } else if (signedness == 1) {
          min = Math.min(min, x);
          max = Math.max(max, x);
        } else {
          min = Long.compareUnsigned(x, min) < 0 ? x : min;
          max = Long.compareUnsigned(x, max) > 0 ? x : max;
        }
      }
      nv++;
    }
    int bitmap = nulls ? Bitmaps.bytes(n) : 0;
    long flat = (long) nv * width;
    boolean useFor = false;
    int bitWidth = 0;
    if (signedness >= 0) {
      bitWidth = BitPacking.bitWidth(max - min);
      useFor = BitPacking.packedBytes(nv, bitWidth) < flat;
    }
    long size = bitmap + (useFor ? BitPacking.packedBytes(nv, bitWidth) : flat);
    if (size > MAX_ZSTD_PAYLOAD_BYTES) {
      return false;
    }
    byte[] a =
        p.reset(
            (int) size,
            nv,
            nulls,
            useFor ? CODEC_FOR : CODEC_FLAT,
            useFor ? bitWidth : 0,
            width,
            useFor ? min : 0L);
    int at = p.putValidity(rows, row, n);
    if (useFor) {
      if (packed == null || packed.length < nv) {
        packed = new long[Math.max(nv, 1024)];
      }
      for (int v = 0; v < nv; v++) {
        packed[v] = readValue(data, rows.recordStart(valid + v), width, signedness == 1) - min;
      }
      ByteBuffer s = p.buf;
      s.clear().position(at);
      BitPacking.pack(packed, nv, bitWidth, s);
    } else {
      int from = nv == 0 ? 0 : rows.recordStart(valid);
      System.arraycopy(data, from, a, at, nv * width);
    }
    return true;
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
