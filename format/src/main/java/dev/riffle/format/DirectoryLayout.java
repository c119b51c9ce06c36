package dev.riffle.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The column directory (FORMAT.md §3.2): one fixed-width entry per stored column, in column order,
 * between the schema block and the footer. Read and written only here.
 *
 * <pre>
 *   0 u64 blockOffset   8 u64 blockLength   16 u64 dataBytes   24 u32 pageCount   28 u32 reserved (0)
 * </pre>
 */
public final class DirectoryLayout {
  private DirectoryLayout() {}

  public static final int ENTRY_BYTES = 32;
  public static final int BLOCK_OFFSET = 0;
  public static final int BLOCK_LENGTH = 8;
  public static final int DATA_BYTES = 16;
  public static final int PAGE_COUNT = 24;
  public static final int RESERVED = 28;

  /**
   * Where a column's block is, and what its pages hold: {@code dataBytes} counts the bytes of its
   * pages, {@code pageCount} the entries in its block.
   */
  public record Entry(long blockOffset, long blockLength, long dataBytes, int pageCount) {}

  /** Appends one entry. */
  public static void write(ByteSink out, Entry e) {
    out.putLong(e.blockOffset());
    out.putLong(e.blockLength());
    out.putLong(e.dataBytes());
    out.putInt(e.pageCount());
    out.putInt(0);
  }

  /**
   * Reads entry {@code column} of the directory that starts at {@code buf[at]} and at {@code
   * directoryOffset} in the file, checking it against what the footer says: the block lies between
   * the data start and the schema, the reserved field is zero, and a column has pages exactly when
   * the file has rows.
   */
  public static Entry read(
      ByteBuffer buf,
      int at,
      int column,
      String resource,
      long directoryOffset,
      long schemaOffset,
      long rowCount)
      throws CorruptFileException {
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int e = at + column * ENTRY_BYTES;
    long entryAt = directoryOffset + (long) column * ENTRY_BYTES;
    Entry entry =
        new Entry(
            b.getLong(e + BLOCK_OFFSET),
            b.getLong(e + BLOCK_LENGTH),
            b.getLong(e + DATA_BYTES),
            b.getInt(e + PAGE_COUNT));
    if (b.getInt(e + RESERVED) != 0
        || entry.blockOffset() < FileLayout.DATA_OFFSET
        || entry.blockLength() < ColumnLayout.HEADER_BYTES + 4
        || entry.blockLength() > Integer.MAX_VALUE - 64
        || entry.blockOffset() > schemaOffset
        || entry.blockLength() > schemaOffset - entry.blockOffset()
        || entry.pageCount() < 0
        || entry.dataBytes() < 0
        || entry.dataBytes() > entry.blockOffset()) {
      throw new CorruptFileException(
          resource, entryAt, "directory entry " + column + " is out of bounds");
    }
    if ((entry.pageCount() == 0) != (rowCount == 0)) {
      throw new CorruptFileException(
          resource,
          directoryOffset,
          "column " + column + " has " + entry.pageCount() + " pages for " + rowCount + " rows");
    }
    return entry;
  }
}
