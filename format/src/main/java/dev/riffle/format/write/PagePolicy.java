package dev.riffle.format.write;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.encoding.PageRows;

/**
 * Chooses a page's layout from the widths of its records (FORMAT.md §5, "Choosing a layout").
 *
 * <ul>
 *   <li>Fixed-width primitives up to 64 bytes (ints, floats, dates, bools, dictionary indices):
 *       sectors with flat or frame-of-reference values — one aligned 4 KiB read per row.
 *   <li>Other records whose 99th percentile is at most {@link #SECTOR_RECORD_P99} bytes and that
 *       all fit a sector: sectors of records, again one 4 KiB read per row.
 *   <li>Larger records, all of one size: fixed slots located by arithmetic (no index in memory).
 *   <li>Otherwise: variable records with an Elias-Fano offset index kept in memory, so that a wide
 *       value is one read of exactly its bytes.
 * </ul>
 *
 * The percentile, not the maximum, decides, so one long outlier does not push a whole page of short
 * values out of sectors; a record too large for a sector does.
 */
final class PagePolicy {
  private PagePolicy() {}

  /** Records up to this size (at the 99th percentile) are packed into sectors. */
  static final int SECTOR_RECORD_P99 = 1024;

  /** Widest fixed primitive stored with the sector value codecs. */
  static final int MAX_SECTOR_VALUE_WIDTH = 64;

  static int choose(PageRows rows, boolean fixedPrimitive, int width) {
    if (fixedPrimitive && width <= MAX_SECTOR_VALUE_WIDTH) {
      return ColumnLayout.LAYOUT_SECTORS;
    }
    if (rows.validCount() == 0
        || (rows.maxRecordBytes() <= SectorLayout.MAX_RECORD_BYTES
            && rows.recordBytesQuantile(0.99) <= SECTOR_RECORD_P99)) {
      return ColumnLayout.LAYOUT_SECTORS;
    }
    if (rows.equalRecordBytes()) {
      return ColumnLayout.LAYOUT_ZIP_FIXED;
    }
    return ColumnLayout.LAYOUT_ZIP_VAR;
  }
}
