package dev.riffle.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The footer, the last {@value #FOOTER_BYTES} bytes of every file (FORMAT.md §3.1): where the
 * schema and the column directory are, how many rows and columns the file has, its version, and the
 * CRC32C of the schema, the directory and the footer itself. Read and written only here.
 *
 * <pre>
 *   0  u64 schemaOffset      8  u64 schemaLength     16 u64 directoryOffset
 *   24 u32 columnCount       28 u32 reserved (0)     32 u64 rowCount
 *   40 u16 versionMajor      42 u16 versionMinor     44 u32 schemaCrc32c
 *   48 u32 directoryCrc32c   52 u32 footerCrc32c (of bytes 0..52)   56 u8[8] MAGIC
 * </pre>
 *
 * <p>The magic, the version's position and the footer CRC's position never change (§8), so that a
 * reader can tell a newer file from a damaged one.
 */
public final class FooterLayout {
  private FooterLayout() {}

  public static final int FOOTER_BYTES = 64;
  public static final int FOOTER_SCHEMA_OFFSET = 0;
  public static final int FOOTER_SCHEMA_LENGTH = 8;
  public static final int FOOTER_DIRECTORY_OFFSET = 16;
  public static final int FOOTER_COLUMN_COUNT = 24;
  public static final int FOOTER_RESERVED = 28;
  public static final int FOOTER_ROW_COUNT = 32;
  public static final int FOOTER_VERSION_MAJOR = 40;
  public static final int FOOTER_VERSION_MINOR = 42;
  public static final int FOOTER_SCHEMA_CRC = 44;
  public static final int FOOTER_DIRECTORY_CRC = 48;
  public static final int FOOTER_CRC = 52;
  public static final int FOOTER_MAGIC = 56;

  /**
   * A footer's fields; the CRCs are of the schema and directory bytes as stored, {@code reserved}
   * is zero in every valid file.
   */
  public record Footer(
      long schemaOffset,
      long schemaLength,
      long directoryOffset,
      int columnCount,
      int reserved,
      long rowCount,
      int versionMajor,
      int versionMinor,
      int schemaCrc,
      int directoryCrc) {

    /** A footer of the current version, as the writer writes it. */
    public static Footer current(
        long schemaOffset,
        long schemaLength,
        long directoryOffset,
        int columnCount,
        long rowCount,
        int schemaCrc,
        int directoryCrc) {
      return new Footer(
          schemaOffset,
          schemaLength,
          directoryOffset,
          columnCount,
          0,
          rowCount,
          FileLayout.VERSION_MAJOR,
          FileLayout.VERSION_MINOR,
          schemaCrc,
          directoryCrc);
    }

    /**
     * Checks the reserved field and that schema and directory lie back to back between the data and
     * this footer, at {@code footerAt}; separate from {@link #read} so that a reader can refuse a
     * newer version by its number before it judges fields that version may have changed.
     */
    public void checkPlacement(String resource, long footerAt) throws CorruptFileException {
      if (reserved != 0
          || columnCount < 0
          || rowCount < 0
          || schemaLength < 0
          || schemaOffset < FileLayout.DATA_OFFSET
          || schemaOffset > footerAt
          || schemaLength > footerAt - schemaOffset
          || schemaOffset + schemaLength != directoryOffset
          || (long) columnCount * DirectoryLayout.ENTRY_BYTES != footerAt - directoryOffset) {
        throw new CorruptFileException(resource, footerAt, "footer offsets are inconsistent");
      }
    }
  }

  /** The footer's bytes, its own CRC and the magic included. */
  public static byte[] write(Footer f) {
    ByteSink b = new ByteSink(FOOTER_BYTES);
    b.putLong(f.schemaOffset());
    b.putLong(f.schemaLength());
    b.putLong(f.directoryOffset());
    b.putInt(f.columnCount());
    b.putInt(f.reserved());
    b.putLong(f.rowCount());
    b.putShort(f.versionMajor());
    b.putShort(f.versionMinor());
    b.putInt(f.schemaCrc());
    b.putInt(f.directoryCrc());
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.length());
    b.putInt((int) crc.getValue());
    b.put(FileLayout.MAGIC, 0, FileLayout.MAGIC.length);
    return b.toByteArray();
  }

  /**
   * Reads the footer at {@code buf[at, at + FOOTER_BYTES)}, which lies at {@code footerAt} in the
   * file, checking its magic and its CRC. The fields are returned as stored: the caller checks the
   * version, then {@link Footer#checkPlacement}.
   */
  public static Footer read(ByteBuffer buf, int at, String resource, long footerAt)
      throws CorruptFileException {
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (!FileLayout.magicAt(b, at + FOOTER_MAGIC)) {
      throw new CorruptFileException(
          resource,
          footerAt + FOOTER_MAGIC,
          "bad magic at the end (truncated or not a Riffle file)");
    }
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().position(at).limit(at + FOOTER_CRC));
    if ((int) crc.getValue() != b.getInt(at + FOOTER_CRC)) {
      throw new CorruptFileException(resource, footerAt, "footer checksum mismatch");
    }
    return new Footer(
        b.getLong(at + FOOTER_SCHEMA_OFFSET),
        b.getLong(at + FOOTER_SCHEMA_LENGTH),
        b.getLong(at + FOOTER_DIRECTORY_OFFSET),
        b.getInt(at + FOOTER_COLUMN_COUNT),
        b.getInt(at + FOOTER_RESERVED),
        b.getLong(at + FOOTER_ROW_COUNT),
        b.getShort(at + FOOTER_VERSION_MAJOR) & 0xFFFF,
        b.getShort(at + FOOTER_VERSION_MINOR) & 0xFFFF,
        b.getInt(at + FOOTER_SCHEMA_CRC),
        b.getInt(at + FOOTER_DIRECTORY_CRC));
  }
}
