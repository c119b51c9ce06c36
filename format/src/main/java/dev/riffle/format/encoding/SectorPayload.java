package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.CRC_OFFSET;
import static dev.riffle.format.SectorLayout.FLAG_VALIDITY;
import static dev.riffle.format.SectorLayout.MAX_ZSTD_PAYLOAD_BYTES;

import dev.riffle.format.ByteSink;
import dev.riffle.format.FileLayout;
import dev.riffle.format.SectorLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The payload (validity bitmap and values) of a run of rows as it follows a sector's header, with
 * the header fields that describe it. One codec encoder builds it; then it is written either as it
 * is ({@link SectorEncoder}) or as a zstd frame ({@link ZstdSectorEncoder}). One per page being
 * packed: it is rebuilt for every sector tried.
 */
final class SectorPayload {
  /** Room for the largest payload a compressed sector may hold; 8 spare bytes for bit packing. */
  final ByteBuffer buf =
      ByteBuffer.allocate(MAX_ZSTD_PAYLOAD_BYTES + 8).order(ByteOrder.LITTLE_ENDIAN);

  int length;
  int valid;
  boolean nulls;
  int codec;
  int bitWidth;
  int valueWidth;
  long reference;

  /** RECORDS: where the u16 offsets start in {@link #buf}. */
  int offsetsAt;

  /** LISTS: whether the items are packed decimals ({@link SectorLayout#FLAG_PACKED_ITEMS}). */
  boolean packedItems;

  /**
   * Starts a payload of {@code size} bytes: zeroes them (bitmap bits and packed values are or-ed
   * in) and sets the header fields.
   *
   * @return the payload's bytes
   */
  byte[] reset(
      int size, int valid, boolean nulls, int codec, int bitWidth, int valueWidth, long reference) {
    byte[] a = buf.array();
    Arrays.fill(a, 0, size, (byte) 0);
    this.length = size;
    this.valid = valid;
    this.nulls = nulls;
    this.codec = codec;
    this.bitWidth = bitWidth;
    this.valueWidth = valueWidth;
    this.reference = reference;
    this.packedItems = false;
    return a;
  }

  /**
   * Writes the validity bitmap of rows [row, row + n) at the start of the payload if it has nulls.
   *
   * @return its size in bytes: where the values start
   */
  int putValidity(PageRows rows, int row, int n) {
    if (!nulls) {
      return 0;
    }
    byte[] a = buf.array();
    for (int k = 0; k < n; k++) {
      if (rows.isValid(row + k)) {
        a[k >>> 3] |= (byte) (1 << (k & 7));
      }
    }
    return Bitmaps.bytes(n);
  }

  /**
   * Appends a zeroed sector to {@code out} and writes this payload's header for {@code n} rows.
   *
   * @param flags flags besides {@link SectorLayout#FLAG_VALIDITY} and {@link
   *     SectorLayout#FLAG_PACKED_ITEMS}, which the payload sets itself
   * @return the sector, little-endian, position 0
   */
  ByteBuffer header(ByteSink out, int n, int flags) {
    int base = out.reserve(FileLayout.SECTOR_BYTES);
    byte[] a = out.array();
    Arrays.fill(a, base, base + FileLayout.SECTOR_BYTES, (byte) 0);
    ByteBuffer s =
        ByteBuffer.wrap(a, base, FileLayout.SECTOR_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN);
    s.putShort(SectorLayout.ROW_COUNT_OFFSET, (short) n);
    s.put(SectorLayout.CODEC_OFFSET, (byte) codec);
    s.put(
        SectorLayout.FLAGS_OFFSET,
        (byte)
            ((nulls ? FLAG_VALIDITY : 0)
                | (packedItems ? SectorLayout.FLAG_PACKED_ITEMS : 0)
                | flags));
    s.put(SectorLayout.BIT_WIDTH_OFFSET, (byte) bitWidth);
    s.put(SectorLayout.VALUE_WIDTH_OFFSET, (byte) valueWidth);
    s.putLong(SectorLayout.REFERENCE_OFFSET, reference);
    return s;
  }

  /** Writes the CRC of a sector that {@link #header} started and its payload filled. */
  static void seal(ByteBuffer sector) {
    CRC32C crc = new CRC32C();
    crc.update(sector.array(), sector.arrayOffset(), CRC_OFFSET);
    sector.putInt(CRC_OFFSET, (int) crc.getValue());
  }
}
