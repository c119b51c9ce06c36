package dev.riffle.format;

import java.nio.charset.StandardCharsets;

/**
 * The framing of a Riffle file (FORMAT.md §2–§3). All integers little-endian.
 *
 * <pre>
 * offset 0      head (HEAD_BYTES): MAGIC, u16 VERSION_MAJOR, u16 VERSION_MINOR, zeros to 4096
 * offset 4096   pages, each starting on a 4096-byte boundary, zero padding between them
 *               column blocks (one per stored column, 8-byte aligned; see ColumnLayout)
 *               schema block (see SchemaLayout)
 *               column directory: DIRECTORY_ENTRY_BYTES per column
 * EOF - 64      footer (FOOTER_BYTES):
 *   0  u64 schemaOffset      8  u64 schemaLength     16 u64 directoryOffset
 *   24 u32 columnCount       28 u32 reserved (0)     32 u64 rowCount
 *   40 u16 versionMajor      42 u16 versionMinor     44 u32 schemaCrc32c
 *   48 u32 directoryCrc32c   52 u32 footerCrc32c (of bytes 0..52)   56 u8[8] MAGIC
 * directory entry: u64 blockOffset, u64 blockLength, u64 dataBytes, u32 pageCount, u32 reserved
 * </pre>
 */
public final class FileLayout {
  private FileLayout() {}

  /** "RIFFLE", then 0x00 and 0x1A so that text tools and truncation show up as a bad magic. */
  public static final byte[] MAGIC = "RIFFLE\0\u001a".getBytes(StandardCharsets.ISO_8859_1);

  /** The version every file is written with, and the only one readers read (spec/CHANGES.md). */
  public static final int VERSION_MAJOR = 1;

  public static final int VERSION_MINOR = 0;

  /**
   * Minor versions 1 to this one were drafts of 1.0 written by builds of this repository before
   * they were folded into it; readers name them as such when they refuse them.
   */
  public static final int LAST_DRAFT_MINOR = 3;

  /** The sector: the unit every random read is aligned to and sized in. */
  public static final int SECTOR_BYTES = 4096;

  public static final int HEAD_BYTES = SECTOR_BYTES;
  public static final int DATA_OFFSET = HEAD_BYTES;

  public static final int FOOTER_BYTES = 64;
  public static final int FOOTER_SCHEMA_OFFSET = 0;
  public static final int FOOTER_SCHEMA_LENGTH = 8;
  public static final int FOOTER_DIRECTORY_OFFSET = 16;
  public static final int FOOTER_COLUMN_COUNT = 24;
  public static final int FOOTER_ROW_COUNT = 32;
  public static final int FOOTER_VERSION_MAJOR = 40;
  public static final int FOOTER_VERSION_MINOR = 42;
  public static final int FOOTER_SCHEMA_CRC = 44;
  public static final int FOOTER_DIRECTORY_CRC = 48;
  public static final int FOOTER_CRC = 52;
  public static final int FOOTER_MAGIC = 56;

  public static final int DIRECTORY_ENTRY_BYTES = 32;

  /** Smallest possible file: head, footer, an empty schema and directory. */
  public static final int MIN_FILE_BYTES = HEAD_BYTES + FOOTER_BYTES;

  /**
   * How much of the tail the reader fetches on open: usually footer, directory and schema at once,
   * so that opening costs one read.
   */
  public static final int TAIL_READ_BYTES = 64 * 1024;

  /** Rounds up to the next multiple of the sector size. */
  public static long alignToSector(long offset) {
    return (offset + SECTOR_BYTES - 1) & -(long) SECTOR_BYTES;
  }
}
