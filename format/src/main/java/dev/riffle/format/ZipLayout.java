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
 *          whose declared content size is the record's length); other bits zero
 * </pre>
 */
public final class ZipLayout {
  private ZipLayout() {}

  public static final int CONTROL_VALID = 1;
  public static final int CONTROL_ZSTD = 2;

  /** Largest record the reader will inflate from zstd. */
  public static final int MAX_INFLATED_BYTES = 1 << 30;
}
