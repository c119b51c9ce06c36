package dev.riffle.format;

/**
 * ZIP_FIXED and ZIP_VAR pages (FORMAT.md §5.2–5.3): one record per row, back to back, so a row is
 * one read of exactly its bytes.
 *
 * <pre>
 * ZIP_FIXED slot (slotWidth bytes): [u8 control, if the page has nulls][record, slotWidth - 1 or
 *           slotWidth bytes; zeros for a null row]
 * ZIP_VAR record: u8 control, then the payload (absent for a null row)
 * record CRC (pages flagged PageEntryLayout.FLAG_RECORD_CRC, every zipped page of a 1.4 file): a
 *          slot's last 4 bytes are the CRC32C of its other bytes (control byte and zeros of a null
 *          row included); a valid ZIP_VAR record's last 4 bytes are the CRC32C of its control byte
 *          and payload; a null ZIP_VAR record stays the single byte 0
 * control: bit0 CONTROL_VALID, bit1 CONTROL_ZSTD (ZIP_VAR only: the payload is one zstd frame
 *          whose declared content size is the record's length), bit2 CONTROL_SPLIT (ZIP_VAR only,
 *          the payload is a split record, below), bit3 CONTROL_PACKED (ZIP_VAR only,
 *          the payload is a packed record, below); other bits zero; at most one of
 *          ZSTD, SPLIT and PACKED
 * split record payload (FORMAT.md §5.3):
 *   u8 stride (2, 4 or 8) | varint recordLength L (1..MAX_INFLATED_BYTES)
 *   varint planeFrameLength[stride] (0: the plane is stored raw)
 *   plane[stride]: plane p holds record bytes p, p + stride, p + 2·stride, … (floor(L / stride)
 *     of them), raw or as one zstd frame declaring that content size
 *   tail: the last L mod stride record bytes, raw
 * packed record payload (FORMAT.md §5.3): the whole-form record, except that every packable list
 *   (list or large list of non-null integer-kind items) is in packed form:
 *   varint n | if n >= 1: varint zigzag(x_0) | if n >= 2: varint zigzag(base), u8 bitWidth
 *   (0..MAX_PACKED_BIT_WIDTH), ceil((n - 1) * bitWidth / 8) bytes of bit-packed p_1 .. p_(n-1)
 *   x_i = x_(i-1) + base + p_i (mod 2^64); an item is the low bytes of x_i
 * </pre>
 */
public final class ZipLayout {
  private ZipLayout() {}

  public static final int CONTROL_VALID = 1;

  /**
   * Bytes of the CRC32C that ends every slot and every valid record of a page with record CRCs: a
   * take reads only a row's record, so the page CRC cannot cover it.
   */
  public static final int RECORD_CRC_BYTES = 4;

  public static final int CONTROL_ZSTD = 2;

  /**
   * the record's bytes are regrouped into byte planes (byte-stream split), each stored raw or
   * zstd-compressed. Float rows compress this way where zstd on the interleaved bytes gains little:
   * the sign and exponent bytes of one plane share a narrow distribution.
   */
  public static final int CONTROL_SPLIT = 4;

  /** Plane strides a split record may use: the byte widths of float16, float32 and float64. */
  public static boolean validStride(int stride) {
    return stride == 2 || stride == 4 || stride == 8;
  }

  /**
   * every packable list of the record (non-null integer-kind items) is stored as its first item, a
   * base delta and bit-packed excess deltas. Sorted ids (CSR column indices, token ids) take 4–6
   * bits an item instead of 32, and unpack faster than zstd inflates.
   */
  public static final int CONTROL_PACKED = 8;

  /** Largest bit width of packed deltas. */
  public static final int MAX_PACKED_BIT_WIDTH = 64;

  /**
   * Largest total, over the packed lists of one record, of their items' nested-form bytes (count
   * times item width): packed items can take no bytes at all (bit width 0), so the restored size is
   * capped like an inflated record's.
   */
  public static final long MAX_PACKED_ITEM_BYTES = 1L << 30;

  /** Largest record the reader will inflate from zstd. */
  public static final int MAX_INFLATED_BYTES = 1 << 30;
}
