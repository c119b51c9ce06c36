package dev.riffle.format;

/**
 * ZIP_FIXED and ZIP_VAR pages (FORMAT.md §5.2–5.3): one record per row, back to back, so a row is
 * one read of exactly its bytes.
 *
 * <pre>
 * ZIP_FIXED slot (slotWidth bytes): [u8 control, if the page has nulls][record, slotWidth - 1 or
 *           slotWidth bytes; zeros for a null row]
 * ZIP_VAR record: u8 control, then the payload (absent for a null row)
 * control: bit0 CONTROL_VALID, bit1 CONTROL_ZSTD (ZIP_VAR only: the payload is one zstd frame
 *          whose declared content size is the record's length), bit2 CONTROL_SPLIT (ZIP_VAR only,
 *          format 1.2: the payload is a split record, below); other bits zero; ZSTD and SPLIT
 *          never together
 * split record payload (FORMAT.md §5.3):
 *   u8 stride (2, 4 or 8) | varint recordLength L (1..MAX_INFLATED_BYTES)
 *   varint planeFrameLength[stride] (0: the plane is stored raw)
 *   plane[stride]: plane p holds record bytes p, p + stride, p + 2·stride, … (floor(L / stride)
 *     of them), raw or as one zstd frame declaring that content size
 *   tail: the last L mod stride record bytes, raw
 * </pre>
 */
public final class ZipLayout {
  private ZipLayout() {}

  public static final int CONTROL_VALID = 1;
  public static final int CONTROL_ZSTD = 2;

  /**
   * Format 1.2: the record's bytes are regrouped into byte planes (byte-stream split), each stored
   * raw or zstd-compressed. Float rows compress this way where zstd on the interleaved bytes gains
   * little: the sign and exponent bytes of one plane share a narrow distribution.
   */
  public static final int CONTROL_SPLIT = 4;

  /** Plane strides a split record may use: the byte widths of float16, float32 and float64. */
  public static boolean validStride(int stride) {
    return stride == 2 || stride == 4 || stride == 8;
  }

  /** Largest record the reader will inflate from zstd. */
  public static final int MAX_INFLATED_BYTES = 1 << 30;
}
