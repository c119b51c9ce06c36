package dev.riffle.format;

/**
 * A page entry of a column block (FORMAT.md §4.2): where one page is, which rows it holds, how they
 * are laid out, its CRC32C and the length of its search index. Read and written only here.
 *
 * <pre>
 *   0  u64 offset        8  u64 byteLength    16 u64 firstRow    24 u32 rowCount
 *   28 u8  layout        29 u8  flags (bit0: has nulls, bit1: record CRCs)  30 u16 reserved (0)
 *   32 u32 crc32c of the page's bytes          36 u32 slotWidth (ZIP_FIXED, else 0)
 *   40 u32 indexLength   44 u32 reserved (0)
 * </pre>
 */
public final class PageEntryLayout {
  private PageEntryLayout() {}

  public static final int ENTRY_BYTES = 48;

  /** Flag bit: some row of the page is null. */
  public static final int FLAG_HAS_NULLS = 1;

  /**
   * Flag bit (format 1.4): every ZIP_FIXED slot, and every valid ZIP_VAR record, ends with a CRC32C
   * of its other bytes ({@link ZipLayout#RECORD_CRC_BYTES}), so that a take verifies each record it
   * decodes without reading the whole page. Set on every zipped page of a 1.4 file and on no other.
   */
  public static final int FLAG_RECORD_CRC = 2;

  /**
   * One page entry as stored.
   *
   * @param layout {@link ColumnLayout#LAYOUT_SECTORS}, {@code LAYOUT_ZIP_FIXED} or {@code
   *     LAYOUT_ZIP_VAR}
   * @param indexLength bytes of the page's search index in the block's index area
   */
  public record PageEntry(
      long offset,
      long byteLength,
      long firstRow,
      int rowCount,
      int layout,
      int flags,
      int crc32c,
      int slotWidth,
      int indexLength) {

    public boolean hasNulls() {
      return (flags & FLAG_HAS_NULLS) != 0;
    }

    public boolean recordCrcs() {
      return (flags & FLAG_RECORD_CRC) != 0;
    }
  }

  /** Appends one entry. */
  public static void write(ByteSink out, PageEntry e) {
    out.putLong(e.offset());
    out.putLong(e.byteLength());
    out.putLong(e.firstRow());
    out.putInt(e.rowCount());
    out.put((byte) e.layout());
    out.put((byte) e.flags());
    out.putShort(0);
    out.putInt(e.crc32c());
    out.putInt(e.slotWidth());
    out.putInt(e.indexLength());
    out.putInt(0);
  }

  /**
   * Reads entry {@code page} of column {@code column} at the cursor and checks it: reserved bits
   * zero, the page starts on a sector boundary at or after {@code minOffset} (the end of the page
   * before it) and ends inside a file of {@code fileLength} bytes, its rows start at {@code
   * firstRow}, its layout is known, a fixed-slot page's slots fill it exactly, and {@link
   * #FLAG_RECORD_CRC} is set exactly on the zipped pages of a file whose version has record CRCs
   * ({@code recordCrcs}; in older files the bit is reserved).
   */
  public static PageEntry read(
      RecordInput in,
      int page,
      String column,
      long firstRow,
      long minOffset,
      long fileLength,
      boolean recordCrcs)
      throws CorruptFileException {
    long entryAt = in.fileOffset();
    long pageOffset = in.i64();
    long pageBytes = in.i64();
    long entryFirstRow = in.i64();
    int rows = in.i32();
    int layout = in.u8();
    int flags = in.u8();
    int reserved = in.u16();
    int crc = in.i32();
    int slot = in.i32();
    int indexLength = in.i32();
    int reserved2 = in.i32();
    int known = FLAG_HAS_NULLS | (recordCrcs ? FLAG_RECORD_CRC : 0);
    if (reserved != 0 || reserved2 != 0 || (flags & ~known) != 0) {
      throw in.corruptAt(entryAt, "non-zero reserved bits in page entry");
    }
    if (entryFirstRow != firstRow
        || rows <= 0
        || pageOffset < minOffset
        || pageOffset % FileLayout.SECTOR_BYTES != 0
        || pageBytes <= 0
        || pageBytes > fileLength - pageOffset
        || indexLength < 0) {
      throw in.corruptAt(
          entryAt,
          "page "
              + page
              + " of column '"
              + column
              + "' has an impossible position, size or row range");
    }
    if (layout < ColumnLayout.LAYOUT_SECTORS || layout > ColumnLayout.LAYOUT_ZIP_VAR) {
      throw in.corruptAt(entryAt, "unknown page layout " + layout);
    }
    boolean zipped = layout != ColumnLayout.LAYOUT_SECTORS;
    if (recordCrcs && zipped != ((flags & FLAG_RECORD_CRC) != 0)) {
      throw in.corruptAt(
          entryAt,
          "page "
              + page
              + " of column '"
              + column
              + "': the record-CRC flag must be set on zipped pages only");
    }
    int crcBytes = (flags & FLAG_RECORD_CRC) != 0 ? ZipLayout.RECORD_CRC_BYTES : 0;
    if (layout == ColumnLayout.LAYOUT_ZIP_FIXED
        && (slot <= crcBytes
            || (long) slot * rows != pageBytes
            || ((flags & FLAG_HAS_NULLS) != 0 && slot < 2 + crcBytes))) {
      throw in.corruptAt(entryAt, "bad fixed slot width " + slot);
    }
    return new PageEntry(
        pageOffset, pageBytes, entryFirstRow, rows, layout, flags, crc, slot, indexLength);
  }
}
