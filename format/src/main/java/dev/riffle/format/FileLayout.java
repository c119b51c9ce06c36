package dev.riffle.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The framing of a Riffle file (FORMAT.md §2–§3). All integers little-endian.
 *
 * <pre>
 * offset 0      head (HEAD_BYTES): MAGIC, u16 VERSION_MAJOR, u16 VERSION_MINOR, zeros to 4096
 * offset 4096   pages, each starting on a 4096-byte boundary, zero padding between them
 *               column blocks (one per stored column, 8-byte aligned; see ColumnLayout)
 *               schema block (see SchemaLayout)
 *               column directory (see DirectoryLayout)
 * EOF - 64      footer (see FooterLayout)
 * </pre>
 *
 * This class reads and writes the head; the other structures have a layout class each.
 */
public final class FileLayout {
  private FileLayout() {}

  /** "RIFFLE", then 0x00 and 0x1A so that text tools and truncation show up as a bad magic. */
  public static final byte[] MAGIC = "RIFFLE\0\u001a".getBytes(StandardCharsets.ISO_8859_1);

  /** The version every file is written with (spec/CHANGES.md); readers also read 1.0. */
  public static final int VERSION_MAJOR = 1;

  public static final int VERSION_MINOR = 4;

  /** The minor versions of {@link #VERSION_MAJOR} this reader reads (spec/CHANGES.md). */
  public static boolean readable(Version v) {
    return v.major() == VERSION_MAJOR && (v.minor() == 0 || v.minor() == VERSION_MINOR);
  }

  /** Whether zipped pages of a file of version {@code v} carry record CRCs (1.4 on). */
  public static boolean hasRecordCrcs(Version v) {
    return v.minor() >= 4;
  }

  /**
   * Minor versions 1 to this one were drafts of 1.0 written by builds of this repository before
   * they were folded into it; readers name them as such when they refuse them.
   */
  public static final int LAST_DRAFT_MINOR = 3;

  /** The sector: the unit every random read is aligned to and sized in. */
  public static final int SECTOR_BYTES = 4096;

  public static final int HEAD_BYTES = SECTOR_BYTES;
  public static final int DATA_OFFSET = HEAD_BYTES;

  /** Smallest possible file: head, footer, an empty schema and directory. */
  public static final int MIN_FILE_BYTES = HEAD_BYTES + FooterLayout.FOOTER_BYTES;

  /**
   * How much of the tail the reader fetches on open: usually footer, directory and schema at once,
   * so that opening costs one read.
   */
  public static final int TAIL_READ_BYTES = 64 * 1024;

  /** Head bytes the reader reads: the magic and the version. */
  public static final int HEAD_READ_BYTES = 12;

  public static final int HEAD_VERSION_MAJOR = 8;
  public static final int HEAD_VERSION_MINOR = 10;

  /** A version as a file states it. */
  public record Version(int major, int minor) {
    @Override
    public String toString() {
      return major + "." + minor;
    }
  }

  /**
   * The head's first {@link #HEAD_READ_BYTES} bytes for a file of the current version; the rest of
   * the head, to {@link #HEAD_BYTES}, is zeros.
   */
  public static byte[] writeHead() {
    ByteSink head = new ByteSink(HEAD_BYTES);
    head.put(MAGIC, 0, MAGIC.length);
    head.putShort(VERSION_MAJOR);
    head.putShort(VERSION_MINOR);
    return head.toByteArray();
  }

  /**
   * Checks the magic at the start of {@code head} (the file's first {@link #HEAD_READ_BYTES}) and
   * returns the version it states.
   */
  public static Version readHeadVersion(ByteBuffer head, String resource)
      throws CorruptFileException {
    ByteBuffer b = head.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (!magicAt(b, 0)) {
      throw new CorruptFileException(resource, 0, "not a Riffle file (bad magic at the start)");
    }
    return new Version(
        b.getShort(HEAD_VERSION_MAJOR) & 0xFFFF, b.getShort(HEAD_VERSION_MINOR) & 0xFFFF);
  }

  /** Whether {@link #MAGIC} is at {@code b[at]}. */
  public static boolean magicAt(ByteBuffer b, int at) {
    for (int i = 0; i < MAGIC.length; i++) {
      if (b.get(at + i) != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  /** Rounds up to the next multiple of the sector size. */
  public static long alignToSector(long offset) {
    return (offset + SECTOR_BYTES - 1) & -(long) SECTOR_BYTES;
  }
}
