package dev.riffle.format.read;

import dev.riffle.format.CorruptFileException;
import dev.riffle.format.DirectoryLayout;
import dev.riffle.format.FileLayout;
import dev.riffle.format.FooterLayout;
import dev.riffle.format.FooterLayout.Footer;
import dev.riffle.format.RecordInput;
import dev.riffle.format.UnsupportedVersionException;
import dev.riffle.format.io.RandomAccessSource;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.SchemaLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * What opening a file reads (FORMAT.md §7.1): the head's magic and version, then the tail in one
 * read (footer, column directory and schema, plus one more read only when they are larger than
 * {@link FileLayout#TAIL_READ_BYTES}), each checked against its checksum and against the others.
 *
 * @param length the file's length in bytes
 * @param footerCrc32c the footer's own CRC32C (footer bytes 52–55)
 */
record FileMetadata(
    long length,
    long rowCount,
    FileLayout.Version version,
    RiffleSchema schema,
    DirectoryLayout.Entry[] directory,
    int footerCrc32c) {

  /** Reads and checks the metadata of the file behind {@code source}; its reads are not counted. */
  static FileMetadata read(RandomAccessSource source) throws IOException {
    String name = source.name();
    ReadStats openStats = new ReadStats();
    long len = source.length();
    if (len < FileLayout.MIN_FILE_BYTES) {
      throw new CorruptFileException(
          name, 0, "a file of " + len + " bytes is too short to be a Riffle file");
    }
    FileLayout.Version headVersion =
        FileLayout.readHeadVersion(
            FileReader.read(source, openStats, 0, FileLayout.HEAD_READ_BYTES), name);
    int tailLength = (int) Math.min(len, FileLayout.TAIL_READ_BYTES);
    long tailOffset = len - tailLength;
    ByteBuffer tail = FileReader.read(source, openStats, tailOffset, tailLength);
    long footerAt = len - FooterLayout.FOOTER_BYTES;
    Footer footer = FooterLayout.read(tail, tailLength - FooterLayout.FOOTER_BYTES, name, footerAt);
    FileLayout.Version version =
        new FileLayout.Version(footer.versionMajor(), footer.versionMinor());
    if (!version.equals(headVersion)) {
      throw new CorruptFileException(
          name,
          FileLayout.HEAD_VERSION_MAJOR,
          "head says version " + headVersion + " but footer says " + version);
    }
    if (!FileLayout.readable(version)) {
      throw new UnsupportedVersionException(
          name, footerAt + FooterLayout.FOOTER_VERSION_MAJOR, version.major(), version.minor());
    }
    footer.checkPlacement(name, footerAt);
    long schemaOffset = footer.schemaOffset();
    long schemaLength = footer.schemaLength();
    long directoryOffset = footer.directoryOffset();
    int columnCount = footer.columnCount();
    long rowCount = footer.rowCount();
    ByteBuffer meta;
    int metaBase;
    if (schemaOffset >= tailOffset) {
      meta = tail;
      metaBase = (int) (schemaOffset - tailOffset);
    } else {
      meta = FileReader.read(source, openStats, schemaOffset, footerAt - schemaOffset);
      metaBase = 0;
    }
    int dirBase = metaBase + (int) schemaLength;
    CRC32C crc = new CRC32C();
    crc.update(meta.duplicate().position(metaBase).limit(dirBase));
    if ((int) crc.getValue() != footer.schemaCrc()) {
      throw new CorruptFileException(name, schemaOffset, "schema checksum mismatch");
    }
    int dirBytes = columnCount * DirectoryLayout.ENTRY_BYTES;
    crc.reset();
    crc.update(meta.duplicate().position(dirBase).limit(dirBase + dirBytes));
    if ((int) crc.getValue() != footer.directoryCrc()) {
      throw new CorruptFileException(name, directoryOffset, "column directory checksum mismatch");
    }
    RiffleSchema schema =
        SchemaLayout.read(
            new RecordInput(name).reset(meta, metaBase, (int) schemaLength, schemaOffset));
    if (schema.columns().size() != columnCount) {
      throw new CorruptFileException(
          name,
          directoryOffset,
          "directory has " + columnCount + " columns, schema " + schema.columns().size());
    }
    DirectoryLayout.Entry[] directory = new DirectoryLayout.Entry[columnCount];
    for (int c = 0; c < columnCount; c++) {
      directory[c] =
          DirectoryLayout.read(meta, dirBase, c, name, directoryOffset, schemaOffset, rowCount);
    }
    int footerCrc = tail.getInt(tailLength - FooterLayout.FOOTER_BYTES + FooterLayout.FOOTER_CRC);
    return new FileMetadata(len, rowCount, version, schema, directory, footerCrc);
  }
}
