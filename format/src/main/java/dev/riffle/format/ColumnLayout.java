package dev.riffle.format;

/**
 * A column block (FORMAT.md §4): everything a reader keeps in memory to locate any row of one
 * stored column, read in one piece when the column is first used.
 *
 * <pre>
 * u32 pageCount | u32 flags (bit0: dictionary section present, bit1: statistics section present)
 * page entry[pageCount], PageEntryLayout.ENTRY_BYTES each (see PageEntryLayout)
 * index[pageCount]: indexLength bytes each, in page order (an Elias-Fano sequence, see below)
 * dictionary section (if flagged): u32 count, then count × (varint length, value record)
 * statistics section (if flagged; every block of a 1.4 file): see PageStatsLayout
 * u32 crc32c of all bytes of the block before it
 * </pre>
 *
 * Index per layout: SECTORS — the first row of each sector, relative to the page's first row;
 * ZIP_VAR — rowCount + 1 record offsets relative to the page offset; ZIP_FIXED — none.
 */
public final class ColumnLayout {
  private ColumnLayout() {}

  public static final int HEADER_BYTES = 8;
  public static final int FLAG_DICTIONARY = 1;

  /**
   * Flag bit (format 1.4): the block ends with a statistics section ({@link PageStatsLayout}). Set
   * on every column block of a 1.4 file; reserved in 1.0.
   */
  public static final int FLAG_STATS = 2;

  /** Narrow values and small records packed into self-contained 4 KiB sectors. */
  public static final int LAYOUT_SECTORS = 1;

  /** Equal-sized records at {@code offset + row * slotWidth}. */
  public static final int LAYOUT_ZIP_FIXED = 2;

  /** Records of any size, located through the in-memory offset index. */
  public static final int LAYOUT_ZIP_VAR = 3;

  /** Largest dictionary the reader accepts (entries); beyond this it is no categorical. */
  public static final int MAX_DICTIONARY_ENTRIES = 1 << 24;

  public static String layoutName(int layout) {
    switch (layout) {
      case LAYOUT_SECTORS:
        return "sectors";
      case LAYOUT_ZIP_FIXED:
        return "zip-fixed";
      case LAYOUT_ZIP_VAR:
        return "zip-var";
      default:
        return "unknown(" + layout + ")";
    }
  }
}
