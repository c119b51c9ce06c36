package dev.riffle.format.read;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.PageEntryLayout;
import dev.riffle.format.PageEntryLayout.PageEntry;
import dev.riffle.format.RecordInput;
import dev.riffle.format.encoding.Codecs;
import dev.riffle.format.encoding.EliasFano;
import dev.riffle.format.encoding.ValueCodec;
import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Parses a column block (FORMAT.md §4, {@link dev.riffle.format.ColumnLayout}): its page entries,
 * the search index of each page, and the dictionary section, checking each against the others and
 * against the file, into a {@link ColumnReader}.
 */
final class ColumnBlockReader {
  private ColumnBlockReader() {}

  /** Parses a column block; {@code block} holds exactly its bytes, read from {@code offset}. */
  static ColumnReader load(
      int index,
      ColumnSpec spec,
      RiffleSchema schema,
      ByteBuffer block,
      long offset,
      long rowCount,
      long fileLength,
      long dataBytes,
      int expectPages,
      boolean recordCrcs,
      BufferAllocator allocator,
      String resource)
      throws CorruptFileException {
    block = block.order(ByteOrder.LITTLE_ENDIAN);
    int length = block.remaining();
    if (length < ColumnLayout.HEADER_BYTES + 4) {
      throw new CorruptFileException(
          resource, offset, "column block of " + length + " bytes is too short");
    }
    CRC32C crc = new CRC32C();
    crc.update(block.duplicate().limit(block.position() + length - 4));
    int stored = block.getInt(block.position() + length - 4);
    if ((int) crc.getValue() != stored) {
      throw new CorruptFileException(
          resource,
          offset + length - 4,
          "column block checksum mismatch for column '" + spec.name() + "'");
    }
    RecordInput in = new RecordInput(resource).reset(block, block.position(), length - 4, offset);
    int pageCount = in.i32();
    int flags = in.i32();
    if (pageCount != expectPages
        || pageCount < 0
        || (long) pageCount * PageEntryLayout.ENTRY_BYTES > in.remaining()) {
      throw in.corrupt("bad page count " + pageCount);
    }
    if ((flags & ~ColumnLayout.FLAG_DICTIONARY) != 0) {
      throw in.corrupt("unknown column flags " + flags);
    }
    boolean dictionaryField = !spec.group() && schema.isDictionary(spec.fields().get(0));
    if (((flags & ColumnLayout.FLAG_DICTIONARY) != 0) != dictionaryField) {
      throw in.corrupt("dictionary section present where the schema says otherwise");
    }
    PageEntry[] entries = new PageEntry[pageCount];
    long nextRow = 0;
    long minOffset = FileLayout.DATA_OFFSET;
    for (int p = 0; p < pageCount; p++) {
      PageEntry e =
          PageEntryLayout.read(in, p, spec.name(), nextRow, minOffset, fileLength, recordCrcs);
      nextRow = e.firstRow() + e.rowCount();
      minOffset = e.offset() + e.byteLength();
      entries[p] = e;
    }
    if (nextRow != rowCount) {
      throw in.corrupt(
          "column '" + spec.name() + "' pages cover " + nextRow + " rows, file has " + rowCount);
    }
    PageInfo[] pages = new PageInfo[pageCount];
    for (int p = 0; p < pageCount; p++) {
      PageEntry e = entries[p];
      EliasFano ef = null;
      long indexAt = in.fileOffset();
      int start = in.take(e.indexLength());
      if (e.layout() != ColumnLayout.LAYOUT_ZIP_FIXED) {
        ByteBuffer ib = in.buffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        ib.limit(start + e.indexLength()).position(start);
        ef = EliasFano.read(ib, resource, indexAt);
        if (ib.hasRemaining()) {
          throw new CorruptFileException(resource, indexAt, "index has trailing bytes");
        }
        checkIndex(ef, e, resource, indexAt);
      } else if (e.indexLength() != 0) {
        throw new CorruptFileException(resource, indexAt, "fixed-slot page with an index");
      }
      pages[p] =
          new PageInfo(
              e.offset(),
              e.byteLength(),
              e.firstRow(),
              e.rowCount(),
              e.layout(),
              e.flags(),
              e.crc32c(),
              e.slotWidth(),
              ef);
    }
    FieldVector dictionary = null;
    if (dictionaryField) {
      dictionary = readDictionary(in, schema, spec, allocator);
    }
    if (in.remaining() != 0) {
      if (dictionary != null) {
        dictionary.close();
      }
      throw in.corrupt("column block has " + in.remaining() + " unexpected trailing bytes");
    }
    // Record CRCs and packed float lists came together, in 1.4.
    return new ColumnReader(
        index, spec, pages, resource, schema, dictionary, length, dataBytes, recordCrcs);
  }

  private static void checkIndex(EliasFano ef, PageEntry e, String resource, long at)
      throws CorruptFileException {
    long rows = e.rowCount();
    long bytes = e.byteLength();
    if (e.layout() == ColumnLayout.LAYOUT_SECTORS) {
      long sectors = ef.size();
      if (sectors < 1
          || sectors * FileLayout.SECTOR_BYTES != bytes
          || ef.get(0) != 0
          || ef.get(ef.size() - 1) >= rows) {
        throw new CorruptFileException(resource, at, "sector index disagrees with the page entry");
      }
      for (int s = 1; s < ef.size(); s++) {
        if (ef.get(s) == ef.get(s - 1)) {
          throw new CorruptFileException(resource, at, "sector index has an empty sector");
        }
      }
    } else {
      if (ef.size() != rows + 1 || ef.get(0) != 0 || ef.get(ef.size() - 1) != bytes) {
        throw new CorruptFileException(resource, at, "record index disagrees with the page entry");
      }
    }
  }

  private static FieldVector readDictionary(
      RecordInput in, RiffleSchema schema, ColumnSpec spec, BufferAllocator allocator)
      throws CorruptFileException {
    int fieldIndex = spec.fields().get(0);
    Field valueField = schema.dictionaryValues(fieldIndex);
    int count = in.i32();
    if (count < 0 || count > ColumnLayout.MAX_DICTIONARY_ENTRIES || count > in.remaining()) {
      throw in.corrupt("bad dictionary size " + count);
    }
    ValueCodec valueCodec = Codecs.forField(valueField);
    FieldVector v = valueField.createVector(allocator);
    boolean ok = false;
    try {
      v.setInitialCapacity(count);
      v.allocateNew();
      RecordInput value = new RecordInput(in.resource());
      for (int i = 0; i < count; i++) {
        int len = (int) in.varint(in.remaining());
        long at = in.fileOffset();
        int start = in.take(len);
        value.reset(in.buffer(), start, len, at);
        valueCodec.decode(value, v, i, true);
        if (value.remaining() != 0) {
          throw value.corrupt("dictionary value has trailing bytes");
        }
      }
      v.setValueCount(count);
      ok = true;
      return v;
    } finally {
      if (!ok) {
        v.close();
      }
    }
  }
}
