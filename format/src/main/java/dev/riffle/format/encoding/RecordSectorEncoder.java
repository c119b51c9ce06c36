package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.CODEC_RECORDS;
import static dev.riffle.format.SectorLayout.MAX_ROWS;
import static dev.riffle.format.SectorLayout.MAX_ZSTD_PAYLOAD_BYTES;
import static dev.riffle.format.SectorLayout.PAYLOAD_BYTES;

import java.nio.ByteBuffer;

/**
 * The RECORDS sector codec: variable-size records back to back behind u16 offsets (relative to the
 * end of the offsets), so any record of the sector is found without reading the others.
 */
final class RecordSectorEncoder implements PayloadEncoder {
  private final PageRows rows;
  private final byte[] data;

  RecordSectorEncoder(PageRows rows) {
    this.rows = rows;
    this.data = rows.array();
  }

  @Override
  public int plainRows(int row, int valid) {
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
    return n;
  }

  @Override
  public boolean build(int row, int valid, int n, SectorPayload p) {
    int nv = 0;
    boolean nulls = false;
    int recordBytes = 0;
    for (int k = 0; k < n; k++) {
      if (!rows.isValid(row + k)) {
        nulls = true;
        continue;
      }
      int v = valid + nv;
      recordBytes += rows.recordEnd(v) - rows.recordStart(v);
      nv++;
    }
    int bitmap = nulls ? Bitmaps.bytes(n) : 0;
    long size = bitmap + 2L * (nv + 1) + recordBytes;
    if (size > MAX_ZSTD_PAYLOAD_BYTES) {
      return false;
    }
    byte[] a = p.reset((int) size, nv, nulls, CODEC_RECORDS, 0, 0, 0L);
    int at = p.putValidity(rows, row, n);
    int from = nv == 0 ? 0 : rows.recordStart(valid);
    ByteBuffer s = p.buf;
    p.offsetsAt = at;
    for (int v = 0; v <= nv; v++) {
      int end = v == 0 ? from : rows.recordEnd(valid + v - 1);
      s.putShort(at + 2 * v, (short) (end - from));
    }
    System.arraycopy(data, from, a, at + 2 * (nv + 1), recordBytes);
    return true;
  }
}
