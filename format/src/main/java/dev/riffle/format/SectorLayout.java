package dev.riffle.format;

/**
 * A sector of a SECTORS page (FORMAT.md §5.1): 4096 bytes at a 4096-aligned file offset, decodable
 * on its own, so that a random row costs exactly one aligned read.
 *
 * <pre>
 * 0    u16 rowCount n (1..MAX_ROWS)
 * 2    u8  codec: CODEC_FLAT | CODEC_FOR | CODEC_RECORDS | CODEC_LISTS
 * 3    u8  flags: bit0 FLAG_VALIDITY (a validity bitmap follows the header),
 *          bit1 FLAG_ZSTD (the payload below is one zstd frame),
 *          bit2 FLAG_PACKED_ITEMS (LISTS of floats, 1.4: the items are packed decimals)
 * 4    u8  bitWidth (CODEC_FOR, 0..64; CODEC_LISTS: bits per packed count, 0..32; else 0)
 * 5    u8  valueWidth (CODEC_FLAT / CODEC_FOR: bytes per value, 1..64; CODEC_LISTS: bytes per
 *          item; else 0)
 * 6    u16 frameLength (FLAG_ZSTD: bytes of the frame at 16, 1..4076; else 0)
 * 8    u64 reference (CODEC_FOR: value = reference + packed, modulo 2^64; CODEC_LISTS: the
 *          smallest item count; else 0)
 * 16   validity bitmap, ceil(n / 8) bytes, if FLAG_VALIDITY; only valid rows have values
 *      values: FLAT  — valid × valueWidth bytes
 *              FOR   — valid × bitWidth bits, LSB-first
 *              RECORDS — u16 offsets[valid + 1] relative to the end of the offsets, then records
 *              LISTS — valid × bitWidth bits of (count - reference), LSB-first, to a whole byte;
 *                      then the items of every valid row in row order, valueWidth bytes each
 *                      (never with FLAG_ZSTD)
 *      zero padding
 * 4092 u32 crc32c of bytes [0, 4092)
 * </pre>
 *
 * With FLAG_ZSTD the bytes from 16 are a zstd frame that inflates to the payload (bitmap and values
 * as above, at most MAX_ZSTD_PAYLOAD_BYTES), read as if it stood at offset 16 of a sector that ends
 * where the payload ends; RECORDS payloads hold record lengths where plain sectors hold offsets
 * (offsets[i] - offsets[i-1] for i >= 1), restored by prefix sums on read.
 */
public final class SectorLayout {
  private SectorLayout() {}

  public static final int ROW_COUNT_OFFSET = 0;
  public static final int CODEC_OFFSET = 2;
  public static final int FLAGS_OFFSET = 3;
  public static final int BIT_WIDTH_OFFSET = 4;
  public static final int VALUE_WIDTH_OFFSET = 5;
  public static final int FRAME_LENGTH_OFFSET = 6;
  public static final int REFERENCE_OFFSET = 8;
  public static final int HEADER_BYTES = 16;
  public static final int CRC_OFFSET = FileLayout.SECTOR_BYTES - 4;

  /** Bytes available for bitmap and values. */
  public static final int PAYLOAD_BYTES = CRC_OFFSET - HEADER_BYTES;

  public static final int CODEC_FLAT = 0;
  public static final int CODEC_FOR = 1;
  public static final int CODEC_RECORDS = 2;

  /**
   * lists of fixed-width items, none of them null (the item field may be nullable in 1.4) — the
   * item counts bit-packed (frame of reference), then all items back to back, so a row costs
   * bitWidth bits of structure where a record costs a u16 offset, a varint count and for nullable
   * items a bitmap.
   */
  public static final int CODEC_LISTS = 3;

  public static final int FLAG_VALIDITY = 1;

  /** the payload is a zstd frame. */
  public static final int FLAG_ZSTD = 2;

  /**
   * LISTS sectors of float items (1.4): the items are decimals, bit-packed ({@code DecimalFloats});
   * the item area starts with u8 scale, u8 item bits, i64 base.
   */
  public static final int FLAG_PACKED_ITEMS = 4;

  /**
   * Largest payload a compressed sector may inflate to: header and payload then span at most 64
   * KiB, the reach of the u16 record offsets, and one reused buffer per thread holds any sector.
   */
  public static final int MAX_ZSTD_PAYLOAD_BYTES = 65536 - HEADER_BYTES;

  /** Cap on rows per sector (all-null or constant values would otherwise pack without limit). */
  public static final int MAX_ROWS = 32768;

  /** Largest record that fits a sector with one row: payload less one bitmap byte, two offsets. */
  public static final int MAX_RECORD_BYTES = PAYLOAD_BYTES - 1 - 4;
}
