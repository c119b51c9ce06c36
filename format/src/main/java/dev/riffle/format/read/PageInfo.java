package dev.riffle.format.read;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.PageEntryLayout;
import dev.riffle.format.encoding.EliasFano;
import java.util.List;

/**
 * One page of a column as described in its column block, with its in-memory search index and its
 * statistics.
 *
 * @param index SECTORS: first row of each sector (page-relative); ZIP_VAR: record offsets; else
 *     null
 * @param stats the page's statistics, one per field of the column in column order (FORMAT.md §4.5);
 *     empty in a file without statistics (format 1.0)
 */
public record PageInfo(
    long offset,
    long byteLength,
    long firstRow,
    int rowCount,
    int layout,
    int flags,
    int crc32c,
    int slotWidth,
    EliasFano index,
    List<PageStats> stats) {

  public boolean hasNulls() {
    return (flags & PageEntryLayout.FLAG_HAS_NULLS) != 0;
  }

  /** Whether each slot or valid record ends with its own CRC32C (format 1.4). */
  public boolean recordCrcs() {
    return (flags & PageEntryLayout.FLAG_RECORD_CRC) != 0;
  }

  /** Number of sectors of a SECTORS page. */
  public int sectorCount() {
    return layout == ColumnLayout.LAYOUT_SECTORS ? index.size() : 0;
  }
}
