package dev.riffle.format.read;

import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.PageEntryLayout;
import dev.riffle.format.PageEntryLayout.PageEntry;
import dev.riffle.format.PageStatsLayout;
import dev.riffle.format.RecordInput;
import dev.riffle.format.encoding.Codecs;
import dev.riffle.format.encoding.EliasFano;
import dev.riffle.format.encoding.ValueCodec;
import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.StatsKinds;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Parses a column block (FORMAT.md §4, {@link dev.riffle.format.ColumnLayout}): its page entries,
 * the search index of each page, the dictionary section and the statistics section (format 1.4),
 * checking each against the others and against the file, into a {@link ColumnReader}.
 */
final class ColumnBlockReader {
  private ColumnBlockReader() {}

  /**
   * Parses a column block; {@code block} holds exactly its bytes, read from {@code offset}. In a
   * file with record CRCs (1.4) every block has a statistics section, which came with them.
   */
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
    boolean statsVersion = recordCrcs;
    int base = block.position();
    int flags = block.getInt(base + 4);
    int known = ColumnLayout.FLAG_DICTIONARY | (statsVersion ? ColumnLayout.FLAG_STATS : 0);
    if ((flags & ~known) != 0) {
      throw new CorruptFileException(resource, offset + 4, "unknown column flags " + flags);
    }
    if (statsVersion && (flags & ColumnLayout.FLAG_STATS) == 0) {
      throw new CorruptFileException(
          resource, offset + 4, "column '" + spec.name() + "' has no statistics section");
    }
    boolean hasStats = (flags & ColumnLayout.FLAG_STATS) != 0;
    // The statistics section's own checksum first, so that damage there reads as such.
    int statsLength =
        hasStats
            ? PageStatsLayout.checkTrailer(
                block,
                base + ColumnLayout.HEADER_BYTES,
                base + length - 4,
                offset - base,
                resource,
                spec.name())
            : 0;
    int end = length - 4 - (hasStats ? PageStatsLayout.TRAILER_BYTES : 0);
    RecordInput in = new RecordInput(resource).reset(block, base, end, offset);
    int pageCount = in.i32();
    in.i32(); // flags, checked above
    if (pageCount != expectPages
        || pageCount < 0
        || (long) pageCount * PageEntryLayout.ENTRY_BYTES > in.remaining()) {
      throw in.corrupt("bad page count " + pageCount);
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
    EliasFano[] indexes = new EliasFano[pageCount];
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
      indexes[p] = ef;
    }
    FieldVector dictionary = null;
    if (dictionaryField) {
      dictionary = readDictionary(in, schema, spec, allocator);
    }
    boolean ok = false;
    try {
      List<List<PageStats>> stats = null;
      if (hasStats) {
        if (in.remaining() != statsLength) {
          throw in.corrupt(
              "statistics section of "
                  + statsLength
                  + " bytes where "
                  + in.remaining()
                  + " bytes remain");
        }
        stats = readStats(in, schema, spec, entries, dictionary);
      }
      if (in.remaining() != 0) {
        throw in.corrupt("column block has " + in.remaining() + " unexpected trailing bytes");
      }
      PageInfo[] pages = new PageInfo[pageCount];
      for (int p = 0; p < pageCount; p++) {
        PageEntry e = entries[p];
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
                indexes[p],
                stats == null ? List.of() : stats.get(p));
      }
      // Record CRCs and packed float lists came together, in 1.4.
      ColumnReader reader =
          new ColumnReader(
              index, spec, pages, resource, schema, dictionary, length, dataBytes, recordCrcs);
      ok = true;
      return reader;
    } finally {
      if (!ok && dictionary != null) {
        dictionary.close();
      }
    }
  }

  /**
   * The statistics section's entries (FORMAT.md §4.5), each checked by {@link
   * PageStatsLayout#read}: per page, one per field of the column.
   */
  private static List<List<PageStats>> readStats(
      RecordInput in,
      RiffleSchema schema,
      ColumnSpec spec,
      PageEntry[] entries,
      FieldVector dictionary)
      throws CorruptFileException {
    int m = spec.fields().size();
    Field[] fields = new Field[m];
    PageStatsLayout.Kind[] kinds = new PageStatsLayout.Kind[m];
    for (int k = 0; k < m; k++) {
      fields[k] = schema.fields().get(spec.fields().get(k));
      kinds[k] =
          fields[k].getDictionary() == null
              ? StatsKinds.of(fields[k])
              : PageStatsLayout.Kind.codes(dictionary.getValueCount());
    }
    List<List<PageStats>> out = new ArrayList<>(entries.length);
    for (int p = 0; p < entries.length; p++) {
      PageEntry e = entries[p];
      List<PageStats> page = new ArrayList<>(m);
      for (int k = 0; k < m; k++) {
        String what =
            "page " + p + " of column '" + spec.name() + "', field '" + fields[k].getName() + "'";
        // A group's rows are never null as a whole: HAS_NULLS says nothing about its fields.
        Boolean hasNulls = spec.group() ? null : e.hasNulls();
        PageStatsLayout.Entry s = PageStatsLayout.read(in, kinds[k], e.rowCount(), hasNulls, what);
        page.add(PageStats.of(fields[k], kinds[k], e.rowCount(), s));
      }
      out.add(List.copyOf(page));
    }
    return out;
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
