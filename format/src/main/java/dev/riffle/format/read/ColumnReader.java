package dev.riffle.format.read;

import com.github.luben.zstd.Zstd;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.PageEntryLayout;
import dev.riffle.format.PageEntryLayout.PageEntry;
import dev.riffle.format.RecordInput;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.encoding.BitPacking;
import dev.riffle.format.encoding.Bitmaps;
import dev.riffle.format.encoding.ByteSplit;
import dev.riffle.format.encoding.Codecs;
import dev.riffle.format.encoding.EliasFano;
import dev.riffle.format.encoding.StructCodec;
import dev.riffle.format.encoding.ValueCodec;
import dev.riffle.format.encoding.VectorSizes;
import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeSupport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The search metadata of one stored column, and the decoding of its rows from the bytes a read
 * returned. Immutable after load and safe for concurrent takes.
 */
final class ColumnReader implements AutoCloseable {
  final int index;
  final ColumnSpec spec;
  final PageInfo[] pages;
  private final long[] pageFirstRows;
  private final String resource;
  private final ValueCodec codec;
  private final StructCodec group;
  private final int fixedWidth;
  private final boolean integerColumn;
  private final FieldVector dictionary;
  final long blockBytes;
  final long dataBytes;
  final long ramBytes;

  /** Whether packed records are allowed: only in a column whose records hold a packable list. */
  private final boolean packedRecords;

  /** Item width of LISTS sectors for this column, or -1 if it may not have them. */
  private final int listItemWidth;

  /** Unique per instance, never reused: keys this column's entries in {@link SectorMemo}. */
  private final long identity = IDENTITIES.incrementAndGet();

  private ColumnReader(
      int index,
      ColumnSpec spec,
      PageInfo[] pages,
      String resource,
      RiffleSchema schema,
      FieldVector dictionary,
      long blockBytes,
      long dataBytes) {
    this.index = index;
    this.spec = spec;
    this.pages = pages;
    this.resource = resource;
    this.dictionary = dictionary;
    this.blockBytes = blockBytes;
    this.dataBytes = dataBytes;
    pageFirstRows = new long[pages.length];
    long ram = 16L + 8L * pages.length + 64L * pages.length;
    for (int p = 0; p < pages.length; p++) {
      pageFirstRows[p] = pages[p].firstRow();
      ram += pages[p].index() == null ? 0 : pages[p].index().ramBytes();
    }
    if (dictionary != null) {
      ram += dictionary.getBufferSize();
    }
    this.ramBytes = ram;
    if (spec.group()) {
      group = Codecs.forGroup(schema, spec);
      codec = null;
      fixedWidth = -1;
      integerColumn = false;
      listItemWidth = -1;
      packedRecords = group.packs();
    } else {
      Field field = schema.fields().get(spec.fields().get(0));
      codec = Codecs.forField(field);
      group = null;
      fixedWidth =
          field.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Bool
              ? 1
              : TypeSupport.fixedWidth(field.getType());
      // Frame of reference is only ever written for integers of 1, 2, 4 or 8 bytes.
      integerColumn =
          TypeSupport.integerSignedness(field.getType()) >= 0
              && Integer.bitCount(fixedWidth) == 1
              && fixedWidth <= 8;
      listItemWidth = TypeSupport.listItemWidth(field);
      packedRecords = field.getDictionary() == null && codec.packs();
    }
  }

  /** Where a reader writes a column's decoded rows: one vector, or the vectors of a group. */
  static final class Target {
    final FieldVector single;
    final List<FieldVector> group;

    Target(FieldVector single, List<FieldVector> group) {
      this.single = single;
      this.group = group;
    }

    void setNull(int j) {
      if (single != null) {
        single.setNull(j);
      } else {
        for (FieldVector v : group) {
          if (v != null) {
            v.setNull(j);
          }
        }
      }
    }
  }

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
      PageEntry e = PageEntryLayout.read(in, p, spec.name(), nextRow, minOffset, fileLength);
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
    return new ColumnReader(index, spec, pages, resource, schema, dictionary, length, dataBytes);
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

  FieldVector dictionary() {
    return dictionary;
  }

  long rowCount() {
    return pages.length == 0
        ? 0
        : pageFirstRows[pages.length - 1] + pages[pages.length - 1].rowCount();
  }

  int pageOf(long row) {
    int lo = 0;
    int hi = pages.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (pageFirstRows[mid] <= row) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * Stores the byte range of {@code row} in {@code out[0]} (offset) and {@code out[1]} (length).
   */
  void locate(long row, long[] out) throws CorruptFileException {
    PageInfo page = pages[pageOf(row)];
    int k = (int) (row - page.firstRow());
    switch (page.layout()) {
      case ColumnLayout.LAYOUT_SECTORS:
        int s = page.index().floorIndex(k);
        out[0] = page.offset() + (long) s * FileLayout.SECTOR_BYTES;
        out[1] = FileLayout.SECTOR_BYTES;
        return;
      case ColumnLayout.LAYOUT_ZIP_FIXED:
        out[0] = page.offset() + (long) k * page.slotWidth();
        out[1] = page.slotWidth();
        return;
      default:
        page.index().getPair(k, out);
        long a = out[0];
        long b = out[1];
        if (b <= a) {
          throw new CorruptFileException(resource, page.offset() + a, "empty record");
        }
        out[0] = page.offset() + a;
        out[1] = b - a;
    }
  }

  /**
   * Decodes one row from a buffer that holds the file bytes starting at {@code bufFileOffset} and
   * includes the row's byte range.
   */
  void decodeRow(long row, ByteBuffer buf, long bufFileOffset, Target t, int j)
      throws CorruptFileException {
    int p = pageOf(row);
    PageInfo page = pages[p];
    int k = (int) (row - page.firstRow());
    switch (page.layout()) {
      case ColumnLayout.LAYOUT_SECTORS:
        {
          int s = page.index().floorIndex(k);
          long sectorAt = page.offset() + (long) s * FileLayout.SECTOR_BYTES;
          int first = (int) page.index().get(s);
          decodeSector(
              page,
              s,
              buf,
              (int) (sectorAt - bufFileOffset),
              sectorAt,
              k - first,
              k - first + 1,
              t,
              j);
          return;
        }
      case ColumnLayout.LAYOUT_ZIP_FIXED:
        {
          long at = page.offset() + (long) k * page.slotWidth();
          decodeSlot(page, buf, (int) (at - bufFileOffset), at, t, j);
          return;
        }
      default:
        {
          long[] range = new long[2];
          page.index().getPair(k, range);
          long a = range[0];
          long b = range[1];
          long at = page.offset() + a;
          decodeVar(buf, (int) (at - bufFileOffset), (int) (b - a), at, t, j);
        }
    }
  }

  /** Decodes page-relative rows [from, from + count) of page {@code p} held whole in pageBuf. */
  void decodePageRows(int p, ByteBuffer pageBuf, int from, int count, Target t, int outStart)
      throws CorruptFileException {
    PageInfo page = pages[p];
    int end = from + count;
    switch (page.layout()) {
      case ColumnLayout.LAYOUT_SECTORS:
        {
          int s = page.index().floorIndex(from);
          int k = from;
          while (k < end) {
            int first = (int) page.index().get(s);
            int next =
                s + 1 < page.index().size() ? (int) page.index().get(s + 1) : page.rowCount();
            int to = Math.min(end, next);
            decodeSector(
                page,
                s,
                pageBuf,
                s * FileLayout.SECTOR_BYTES,
                page.offset() + (long) s * FileLayout.SECTOR_BYTES,
                k - first,
                to - first,
                t,
                outStart + (k - from));
            k = to;
            s++;
          }
          return;
        }
      case ColumnLayout.LAYOUT_ZIP_FIXED:
        for (int k = from; k < end; k++) {
          long rel = (long) k * page.slotWidth();
          decodeSlot(page, pageBuf, (int) rel, page.offset() + rel, t, outStart + (k - from));
        }
        return;
      default:
        long[] range = new long[2];
        for (int k = from; k < end; k++) {
          page.index().getPair(k, range);
          long a = range[0];
          long b = range[1];
          decodeVar(pageBuf, (int) a, (int) (b - a), page.offset() + a, t, outStart + (k - from));
        }
    }
  }

  private void decodeSector(
      PageInfo page,
      int s,
      ByteBuffer buf,
      int pos,
      long fileOffset,
      int kFrom,
      int kTo,
      Target t,
      int outStart)
      throws CorruptFileException {
    buf = buf.order(ByteOrder.LITTLE_ENDIAN);
    if (pos < 0 || pos + FileLayout.SECTOR_BYTES > buf.limit()) {
      throw new IllegalStateException("sector not in the buffer read for it");
    }
    SectorMemo memo = LAST_SECTOR.get();
    if (!memo.holds(identity, buf, pos, fileOffset)) {
      checkSector(page, s, buf, pos, fileOffset, memo);
    }
    int codecId = memo.codecId;
    int bitWidth = memo.bitWidth;
    int valueWidth = memo.valueWidth;
    long reference = memo.reference;
    // A compressed sector is decoded from its inflated payload, laid out as if it followed the
    // header in a sector that ends where the payload ends; positions below are in that buffer.
    ByteBuffer d = memo.inflated ? memo.data : buf;
    int base = memo.inflated ? 0 : pos;
    int p = memo.values;
    int end = memo.end;
    int bitmap = memo.bitmap;
    int valid = memo.valid;
    int idx = bitmap < 0 ? kFrom : Bitmaps.rank(d, bitmap, kFrom);
    switch (codecId) {
      case SectorLayout.CODEC_FLAT:
      case SectorLayout.CODEC_FOR:
        {
          boolean isFor = codecId == SectorLayout.CODEC_FOR;
          if (t.single == null
              || valueWidth != fixedWidth
              || fixedWidth <= 0
              || (isFor && (!integerColumn || bitWidth > 64))
              || (!isFor && (bitWidth != 0 || reference != 0))) {
            throw new CorruptFileException(
                resource,
                fileOffset,
                "sector codec " + codecId + " does not fit column '" + spec.name() + "'");
          }
          long bytes = isFor ? BitPacking.packedBytes(valid, bitWidth) : (long) valid * valueWidth;
          if (p + bytes > end) {
            throw new CorruptFileException(
                resource, fileOffset, "sector values overrun the sector");
          }
          for (int k = kFrom; k < kTo; k++) {
            int j = outStart + (k - kFrom);
            if (bitmap >= 0 && !Bitmaps.get(d, bitmap, k)) {
              t.single.setNull(j);
              continue;
            }
            if (isFor) {
              long v = reference + BitPacking.get(d, p, idx, bitWidth);
              writeFixed(t.single, j, v, valueWidth, fileOffset);
            } else {
              copyFixed(t.single, j, d, p + idx * valueWidth, valueWidth, fileOffset);
            }
            idx++;
          }
          return;
        }
      case SectorLayout.CODEC_RECORDS:
        {
          if (bitWidth != 0 || valueWidth != 0 || reference != 0) {
            throw new CorruptFileException(
                resource, fileOffset, "record sector with value fields set");
          }
          int offsets = p;
          int area = offsets + 2 * (valid + 1);
          if (area > end) {
            throw new CorruptFileException(
                resource, fileOffset, "record offsets overrun the sector");
          }
          RecordInput in = new RecordInput(resource);
          for (int k = kFrom; k < kTo; k++) {
            int j = outStart + (k - kFrom);
            if (bitmap >= 0 && !Bitmaps.get(d, bitmap, k)) {
              t.setNull(j);
              continue;
            }
            int a = d.getShort(offsets + 2 * idx) & 0xFFFF;
            int b = d.getShort(offsets + 2 * idx + 2) & 0xFFFF;
            if (a > b || area + b > end) {
              throw new CorruptFileException(
                  resource,
                  // Positions in an inflated payload are no file positions: name the sector.
                  memo.inflated ? fileOffset : fileOffset + (offsets - base) + 2L * idx,
                  "record offsets out of order or past the sector");
            }
            if (memo.inflated) {
              in.resetInflated(d, area + a, b - a, fileOffset);
            } else {
              in.reset(d, area + a, b - a, fileOffset + (area - base) + a);
            }
            decodeRecord(in, t, j);
            idx++;
          }
          return;
        }
      case SectorLayout.CODEC_LISTS:
        if (listItemWidth > 0) {
          decodeLists(d, base, p, end, bitmap, valid, idx, kFrom, kTo, fileOffset, t, outStart);
          return;
        }
      // A column that cannot hold them: an unknown codec.
      default:
        throw new CorruptFileException(
            resource, fileOffset + SectorLayout.CODEC_OFFSET, "unknown sector codec " + codecId);
    }
  }

  /**
   * Decodes rows [kFrom, kTo) of a LISTS sector (FORMAT.md §5.1) whose packed counts start at
   * {@code p}: each row's record ({@code varint count}, then its items) is rebuilt in a per-thread
   * buffer and decoded like a RECORDS row. The first row's items start after the items of all valid
   * rows before it, so a take sums those counts (at most a sector's worth).
   */
  private void decodeLists(
      ByteBuffer d,
      int base,
      int p,
      int end,
      int bitmap,
      int valid,
      int idx,
      int kFrom,
      int kTo,
      long fileOffset,
      Target t,
      int outStart)
      throws CorruptFileException {
    SectorMemo memo = LAST_SECTOR.get();
    int bitWidth = memo.bitWidth;
    long reference = memo.reference;
    int w = listItemWidth;
    if (t.single == null || memo.valueWidth != w || bitWidth > 32 || memo.inflated) {
      throw new CorruptFileException(
          resource,
          fileOffset,
          "LISTS sector (item width "
              + memo.valueWidth
              + ", count width "
              + bitWidth
              + (memo.inflated ? ", compressed" : "")
              + ") does not fit column '"
              + spec.name()
              + "'");
    }
    long items = p + (long) BitPacking.packedBytes(valid, bitWidth);
    if (items > end) {
      throw new CorruptFileException(resource, fileOffset, "list counts overrun the sector");
    }
    long maxCount = (end - items) / w;
    ListScratch scratch = LIST_SCRATCH.get();
    // The counts of the valid rows before the first one decoded and of those decoded, at once.
    int last = idx;
    for (int k = kFrom; k < kTo; k++) {
      last += bitmap >= 0 && !Bitmaps.get(d, bitmap, k) ? 0 : 1;
    }
    if (last > valid) {
      throw new CorruptFileException(resource, fileOffset, "more list rows than valid rows");
    }
    long[] counts = scratch.counts(last);
    BitPacking.unpack(d, p, 0, last, bitWidth, counts);
    long start = 0;
    for (int v = 0; v < idx; v++) {
      start += checkedCount(counts[v], reference, maxCount, fileOffset);
    }
    RecordInput in = new RecordInput(resource);
    for (int k = kFrom; k < kTo; k++) {
      int j = outStart + (k - kFrom);
      if (bitmap >= 0 && !Bitmaps.get(d, bitmap, k)) {
        t.setNull(j);
        continue;
      }
      long c = checkedCount(counts[idx], reference, maxCount, fileOffset);
      long at = items + start * w;
      if (start > maxCount || at + c * w > end) {
        throw new CorruptFileException(
            resource, fileOffset + (at - base), "list items overrun the sector");
      }
      int len = scratch.record(d, (int) at, (int) c, w);
      in.reset(scratch.view, 0, len, fileOffset + (at - base));
      decodeRecord(in, t, j);
      start += c;
      idx++;
    }
  }

  private long checkedCount(long packed, long reference, long maxCount, long fileOffset)
      throws CorruptFileException {
    long c = reference + packed;
    if (c < 0 || c > maxCount) {
      throw new CorruptFileException(
          resource,
          fileOffset,
          "list item count " + Long.toUnsignedString(c) + " overruns the sector");
    }
    return c;
  }

  /** A per-thread buffer for the record of one LISTS row: varint count, then its items. */
  private static final class ListScratch {
    private byte[] bytes = new byte[FileLayout.SECTOR_BYTES + 16];
    ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    private long[] counts = new long[1024];

    long[] counts(int n) {
      if (counts.length < n) {
        counts = new long[Math.max(n, 2 * counts.length)];
      }
      return counts;
    }

    /** Builds the record of {@code count} items of {@code w} bytes at {@code d[at]}. */
    int record(ByteBuffer d, int at, int count, int w) {
      int len = 0;
      long c = count;
      while (c >= 0x80) {
        bytes[len++] = (byte) (c | 0x80);
        c >>>= 7;
      }
      bytes[len++] = (byte) c;
      d.get(at, bytes, len, count * w);
      return len + count * w;
    }
  }

  private static final ThreadLocal<ListScratch> LIST_SCRATCH =
      ThreadLocal.withInitial(ListScratch::new);

  /**
   * Verifies a sector's checksum and header and records it, parsed, as this thread's last verified
   * sector; throws (and records nothing) if it is damaged.
   */
  private void checkSector(
      PageInfo page, int s, ByteBuffer buf, int pos, long fileOffset, SectorMemo memo)
      throws CorruptFileException {
    memo.forget();
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().limit(pos + SectorLayout.CRC_OFFSET).position(pos));
    if ((int) crc.getValue() != buf.getInt(pos + SectorLayout.CRC_OFFSET)) {
      throw new CorruptFileException(
          resource, fileOffset, "sector checksum mismatch in column '" + spec.name() + "'");
    }
    int n = buf.getShort(pos) & 0xFFFF;
    int codecId = buf.get(pos + SectorLayout.CODEC_OFFSET) & 0xFF;
    int flags = buf.get(pos + SectorLayout.FLAGS_OFFSET) & 0xFF;
    int bitWidth = buf.get(pos + SectorLayout.BIT_WIDTH_OFFSET) & 0xFF;
    int valueWidth = buf.get(pos + SectorLayout.VALUE_WIDTH_OFFSET) & 0xFF;
    long reference = buf.getLong(pos + SectorLayout.REFERENCE_OFFSET);
    int expected =
        (s + 1 < page.index().size() ? (int) page.index().get(s + 1) : page.rowCount())
            - (int) page.index().get(s);
    int allowedFlags = SectorLayout.FLAG_VALIDITY | SectorLayout.FLAG_ZSTD;
    boolean zstd = (flags & SectorLayout.FLAG_ZSTD) != 0;
    int frameLength = buf.getShort(pos + SectorLayout.FRAME_LENGTH_OFFSET) & 0xFFFF;
    if (n != expected || (flags & ~allowedFlags) != 0 || (!zstd && frameLength != 0)) {
      throw new CorruptFileException(
          resource,
          fileOffset,
          "sector header disagrees with the index (" + n + " rows, expected " + expected + ")");
    }
    ByteBuffer d = buf;
    int p = pos + SectorLayout.HEADER_BYTES;
    int end = pos + SectorLayout.CRC_OFFSET;
    if (zstd) {
      d = inflateSector(buf, pos, frameLength, fileOffset);
      p = SectorLayout.HEADER_BYTES;
      end = d.limit();
    }
    int bitmap = -1;
    int valid = n;
    if ((flags & SectorLayout.FLAG_VALIDITY) != 0) {
      bitmap = p;
      p += Bitmaps.bytes(n);
      if (p > end) {
        throw new CorruptFileException(resource, fileOffset, "validity bitmap overruns the sector");
      }
      valid = Bitmaps.rank(d, bitmap, n);
    }
    if (zstd && codecId == SectorLayout.CODEC_RECORDS) {
      restoreOffsets(d, p, valid, end, fileOffset);
    }
    memo.remember(
        identity,
        buf,
        pos,
        fileOffset,
        n,
        codecId,
        bitWidth,
        valueWidth,
        reference,
        p,
        bitmap,
        valid,
        zstd ? d : null,
        end);
  }

  /**
   * Inflates the frame of a compressed sector (FORMAT.md §5.1) into this thread's sector buffer,
   * after the 16 header bytes, and returns that buffer limited to the end of the payload. The
   * buffer is overwritten by the next compressed sector this thread checks, which is also when
   * {@link SectorMemo} forgets the sector it belongs to.
   */
  private ByteBuffer inflateSector(ByteBuffer buf, int pos, int frameLength, long fileOffset)
      throws CorruptFileException {
    if (frameLength < 1 || SectorLayout.HEADER_BYTES + frameLength > SectorLayout.CRC_OFFSET) {
      throw new CorruptFileException(
          resource,
          fileOffset + SectorLayout.FRAME_LENGTH_OFFSET,
          "compressed sector frame of " + frameLength + " bytes does not fit the sector");
    }
    SectorInflater inf = SECTOR_INFLATER.get();
    byte[] frame;
    int at;
    if (buf.hasArray()) {
      frame = buf.array();
      at = buf.arrayOffset() + pos + SectorLayout.HEADER_BYTES;
    } else {
      buf.get(pos + SectorLayout.HEADER_BYTES, inf.frame, 0, frameLength);
      frame = inf.frame;
      at = 0;
    }
    long frameAt = fileOffset + SectorLayout.HEADER_BYTES;
    long size = Zstd.getFrameContentSize(frame, at, frameLength);
    if (size < 1 || size > SectorLayout.MAX_ZSTD_PAYLOAD_BYTES) {
      throw new CorruptFileException(
          resource, frameAt, "bad zstd frame in sector (content size " + size + ")");
    }
    int n;
    try {
      n =
          inf.ctx.decompressByteArray(
              inf.out, SectorLayout.HEADER_BYTES, (int) size, frame, at, frameLength);
    } catch (RuntimeException e) {
      throw new CorruptFileException(
          resource, frameAt, "zstd frame in sector does not inflate: " + e.getMessage(), e);
    }
    if (n != size) {
      throw new CorruptFileException(
          resource, frameAt, "zstd frame in sector inflates to " + n + " of " + size + " bytes");
    }
    return inf.view.clear().limit(SectorLayout.HEADER_BYTES + n);
  }

  /**
   * A compressed RECORDS sector stores record lengths where a plain one stores offsets (entry 0
   * stays 0): turns them back into offsets, in place, so decoding is the same for both.
   */
  private void restoreOffsets(ByteBuffer d, int at, int valid, int end, long fileOffset)
      throws CorruptFileException {
    if (at + 2L * (valid + 1) > end) {
      throw new CorruptFileException(resource, fileOffset, "record offsets overrun the sector");
    }
    int sum = d.getShort(at) & 0xFFFF;
    for (int v = 1; v <= valid; v++) {
      sum += d.getShort(at + 2 * v) & 0xFFFF;
      if (sum > 0xFFFF) {
        throw new CorruptFileException(
            resource, fileOffset, "record lengths of a compressed sector exceed 65535 bytes");
      }
      d.putShort(at + 2 * v, (short) sum);
    }
  }

  /** A zstd context and a buffer for the largest inflated sector, per thread. */
  private static final class SectorInflater {
    final com.github.luben.zstd.ZstdDecompressCtx ctx =
        new com.github.luben.zstd.ZstdDecompressCtx();
    final byte[] out = new byte[SectorLayout.HEADER_BYTES + SectorLayout.MAX_ZSTD_PAYLOAD_BYTES];
    final ByteBuffer view = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
    final byte[] frame = new byte[FileLayout.SECTOR_BYTES];
  }

  private static final ThreadLocal<SectorInflater> SECTOR_INFLATER =
      ThreadLocal.withInitial(SectorInflater::new);

  private static final java.util.concurrent.atomic.AtomicLong IDENTITIES =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * The last sector this thread verified (checksum and header), parsed: rows of a take or scan that
   * fall into the same sector of the same buffer skip the checksum and the header. It is keyed by
   * the column reader's identity, the buffer instance (held weakly, so a collected buffer never
   * matches and none is kept alive), the sector's position in it and its file offset. Readers never
   * change a buffer's bytes once read (each take and each page gets fresh buffer instances), so a
   * match means the very bytes that passed the check; a sector that fails is never recorded.
   */
  private static final class SectorMemo {
    private long owner = -1;
    private java.lang.ref.WeakReference<ByteBuffer> buffer;
    private int pos;
    private long fileOffset;
    int rows;
    int codecId;
    int bitWidth;
    int valueWidth;
    long reference;
    int values;
    int bitmap;
    int valid;
    boolean inflated;
    ByteBuffer data;
    int end;

    boolean holds(long owner, ByteBuffer buf, int pos, long fileOffset) {
      return this.owner == owner
          && this.pos == pos
          && this.fileOffset == fileOffset
          && buffer != null
          && buffer.get() == buf;
    }

    void forget() {
      owner = -1;
      buffer = null;
      data = null;
    }

    void remember(
        long owner,
        ByteBuffer buf,
        int pos,
        long fileOffset,
        int rows,
        int codecId,
        int bitWidth,
        int valueWidth,
        long reference,
        int values,
        int bitmap,
        int valid,
        ByteBuffer inflatedData,
        int end) {
      this.owner = owner;
      this.inflated = inflatedData != null;
      this.data = inflatedData;
      this.end = end;
      this.buffer = new java.lang.ref.WeakReference<>(buf);
      this.pos = pos;
      this.fileOffset = fileOffset;
      this.rows = rows;
      this.codecId = codecId;
      this.bitWidth = bitWidth;
      this.valueWidth = valueWidth;
      this.reference = reference;
      this.values = values;
      this.bitmap = bitmap;
      this.valid = valid;
    }
  }

  private static final ThreadLocal<SectorMemo> LAST_SECTOR =
      ThreadLocal.withInitial(SectorMemo::new);

  private void decodeSlot(PageInfo page, ByteBuffer buf, int pos, long fileOffset, Target t, int j)
      throws CorruptFileException {
    int width = page.slotWidth();
    int start = pos;
    if (page.hasNulls()) {
      int control = buf.get(pos) & 0xFF;
      if (control == 0) {
        t.setNull(j);
        return;
      }
      if (control != ZipLayout.CONTROL_VALID) {
        throw new CorruptFileException(resource, fileOffset, "bad control byte " + control);
      }
      start++;
      width--;
    }
    RecordInput in = new RecordInput(resource).reset(buf, start, width, fileOffset + (start - pos));
    decodeRecord(in, t, j);
  }

  private void decodeVar(ByteBuffer buf, int pos, int length, long fileOffset, Target t, int j)
      throws CorruptFileException {
    if (length < 1) {
      throw new CorruptFileException(resource, fileOffset, "empty record");
    }
    int control = buf.get(pos) & 0xFF;
    int known =
        ZipLayout.CONTROL_VALID
            | ZipLayout.CONTROL_ZSTD
            | ZipLayout.CONTROL_SPLIT
            | (packedRecords ? ZipLayout.CONTROL_PACKED : 0);
    int kinds =
        control & (ZipLayout.CONTROL_ZSTD | ZipLayout.CONTROL_SPLIT | ZipLayout.CONTROL_PACKED);
    if ((control & ~known) != 0 || Integer.bitCount(kinds) > 1) {
      throw new CorruptFileException(resource, fileOffset, "bad control byte " + control);
    }
    if ((control & ZipLayout.CONTROL_VALID) == 0) {
      if (control != 0 || length != 1) {
        throw new CorruptFileException(resource, fileOffset, "null record with a payload");
      }
      t.setNull(j);
      return;
    }
    RecordInput in = new RecordInput(resource);
    if ((control & ZipLayout.CONTROL_SPLIT) != 0) {
      ByteSplit.Decoder splitter = INFLATER.get().splitter;
      int n = splitter.decode(buf, pos + 1, length - 1, fileOffset + 1, resource);
      // Offsets inside the restored record are reported at the payload's start.
      in.resetInflated(
          ByteBuffer.wrap(splitter.record(), 0, n).order(ByteOrder.LITTLE_ENDIAN),
          0,
          n,
          fileOffset + 1);
    } else if ((control & ZipLayout.CONTROL_ZSTD) != 0) {
      byte[] frame;
      int frameAt;
      if (buf.hasArray()) {
        frame = buf.array();
        frameAt = buf.arrayOffset() + pos + 1;
      } else {
        frame = new byte[length - 1];
        buf.get(pos + 1, frame);
        frameAt = 0;
      }
      long size = Zstd.getFrameContentSize(frame, frameAt, length - 1);
      if (size < 0 || size > ZipLayout.MAX_INFLATED_BYTES) {
        throw new CorruptFileException(
            resource, fileOffset + 1, "bad zstd frame (content size " + size + ")");
      }
      Inflater inflater = INFLATER.get();
      byte[] raw = inflater.room((int) size);
      int n;
      try {
        n = inflater.ctx.decompressByteArray(raw, 0, (int) size, frame, frameAt, length - 1);
      } catch (RuntimeException e) {
        // zstd-jni throws ZstdException (not an error code) for damaged frames.
        throw new CorruptFileException(
            resource, fileOffset + 1, "zstd frame does not inflate: " + e.getMessage(), e);
      }
      if (n != size) {
        throw new CorruptFileException(
            resource, fileOffset + 1, "zstd frame inflates to " + n + " of " + size + " bytes");
      }
      in.resetInflated(
          ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN), 0, (int) size, fileOffset + 1);
    } else if ((control & ZipLayout.CONTROL_PACKED) != 0) {
      in.reset(buf, pos + 1, length - 1, fileOffset + 1).packed();
    } else {
      in.reset(buf, pos + 1, length - 1, fileOffset + 1);
    }
    decodeRecord(in, t, j);
  }

  /**
   * A zstd context and an output buffer per thread: creating a context per record cost more than
   * inflating a 10 KB record. The buffer is reused because a record is fully decoded into Arrow
   * vectors before the same thread inflates the next one.
   */
  private static final class Inflater {
    final com.github.luben.zstd.ZstdDecompressCtx ctx =
        new com.github.luben.zstd.ZstdDecompressCtx();
    private byte[] buffer = new byte[64 * 1024];
    final ByteSplit.Decoder splitter = new ByteSplit.Decoder();

    byte[] room(int size) {
      if (buffer.length < size) {
        buffer = new byte[Math.max(size, buffer.length * 2)];
      }
      return buffer;
    }
  }

  private static final ThreadLocal<Inflater> INFLATER = ThreadLocal.withInitial(Inflater::new);

  private void decodeRecord(RecordInput in, Target t, int j) throws CorruptFileException {
    try {
      if (t.single != null) {
        codec.decode(in, t.single, j, true);
      } else {
        group.decode(in, t.group, j);
      }
    } catch (ClassCastException | IllegalArgumentException | IndexOutOfBoundsException e) {
      // A record that parses but cannot be applied to Arrow (e.g. an offset overflow) is corrupt.
      throw in.corrupt("record does not decode: " + e);
    }
    if (in.remaining() != 0) {
      throw in.corrupt("record has " + in.remaining() + " trailing bytes");
    }
  }

  private void writeFixed(FieldVector v, int j, long value, int width, long fileOffset)
      throws CorruptFileException {
    if (v instanceof BitVector) {
      if ((value & ~1L) != 0) {
        throw new CorruptFileException(resource, fileOffset, "boolean value " + value);
      }
      ((BitVector) v).setSafe(j, (int) value);
      return;
    }
    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
    while (f.getValueCapacity() <= j) {
      f.reAlloc();
    }
    long at = (long) j * width;
    switch (width) {
      case 1:
        f.getDataBuffer().setByte(at, (byte) value);
        break;
      case 2:
        f.getDataBuffer().setShort(at, (short) value);
        break;
      case 4:
        f.getDataBuffer().setInt(at, (int) value);
        break;
      default:
        f.getDataBuffer().setLong(at, value);
    }
    org.apache.arrow.vector.BitVectorHelper.setBit(f.getValidityBuffer(), j);
  }

  private void copyFixed(FieldVector v, int j, ByteBuffer buf, int pos, int width, long fileOffset)
      throws CorruptFileException {
    if (v instanceof BitVector) {
      writeFixed(v, j, buf.get(pos), 1, fileOffset);
      return;
    }
    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
    while (f.getValueCapacity() <= j) {
      f.reAlloc();
    }
    dev.riffle.format.encoding.Buffers.copy(f.getDataBuffer(), (long) j * width, buf, pos, width);
    org.apache.arrow.vector.BitVectorHelper.setBit(f.getValidityBuffer(), j);
  }

  /**
   * Whether measuring the rows before decoding sizes the result better than the defaults do: for
   * variable-size values only (fixed-width vectors are sized exactly from the row count anyway).
   */
  boolean sizedByData() {
    return group != null ? group.fixedWidth() < 0 : codec.fixedWidth() < 0;
  }

  /** An empty sizes tree for this column: the codec's, or for a group one child per field. */
  VectorSizes newSizes() {
    return group != null ? group.newSizes() : codec.newSizes();
  }

  /**
   * Adds what decoding {@code row} will put into the vectors to {@code s}, from the same buffer
   * {@link #decodeRow} would decode it from. Only rows of ZIP_FIXED and ZIP_VAR pages (wide values,
   * where buffer growth costs) are measured; measuring never fails.
   *
   * @return false if the row was not measured: it lies in a sector, it is compressed and only
   *     inflating it would tell, or its bytes are damaged (decoding will report it)
   */
  boolean measureRow(long row, ByteBuffer buf, long bufFileOffset, VectorSizes s) {
    PageInfo page = pages[pageOf(row)];
    int k = (int) (row - page.firstRow());
    try {
      switch (page.layout()) {
        case ColumnLayout.LAYOUT_ZIP_FIXED:
          long at = page.offset() + (long) k * page.slotWidth();
          return measureSlot(page, buf, (int) (at - bufFileOffset), s);
        case ColumnLayout.LAYOUT_ZIP_VAR:
          long[] range = new long[2];
          page.index().getPair(k, range);
          long a = range[0];
          long b = range[1];
          return measureVar(buf, (int) (page.offset() + a - bufFileOffset), (int) (b - a), s);
        default:
          return false;
      }
    } catch (CorruptFileException | RuntimeException e) {
      return false;
    }
  }

  /** {@link #measureRow} for page-relative rows [from, from + count) of a page held whole. */
  boolean measurePageRows(int p, ByteBuffer pageBuf, int from, int count, VectorSizes s) {
    PageInfo page = pages[p];
    try {
      long[] range = new long[2];
      for (int k = from; k < from + count; k++) {
        boolean ok;
        if (page.layout() == ColumnLayout.LAYOUT_ZIP_FIXED) {
          ok = measureSlot(page, pageBuf, (int) ((long) k * page.slotWidth()), s);
        } else if (page.layout() == ColumnLayout.LAYOUT_ZIP_VAR) {
          page.index().getPair(k, range);
          ok = measureVar(pageBuf, (int) range[0], (int) (range[1] - range[0]), s);
        } else {
          ok = false;
        }
        if (!ok) {
          return false;
        }
      }
      return true;
    } catch (CorruptFileException | RuntimeException e) {
      return false;
    }
  }

  private boolean measureSlot(PageInfo page, ByteBuffer buf, int pos, VectorSizes s)
      throws CorruptFileException {
    int width = page.slotWidth();
    int start = pos;
    if (page.hasNulls()) {
      if (buf.get(pos) == 0) {
        return true;
      }
      start++;
      width--;
    }
    return measureRecord(new RecordInput(resource).reset(buf, start, width, 0), s);
  }

  private boolean measureVar(ByteBuffer buf, int pos, int length, VectorSizes s)
      throws CorruptFileException {
    if (length < 1) {
      return false;
    }
    int control = buf.get(pos) & 0xFF;
    if (control == 0) {
      return true;
    }
    if (control == ZipLayout.CONTROL_VALID) {
      return measureRecord(new RecordInput(resource).reset(buf, pos + 1, length - 1, 0), s);
    }
    if (control == (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED) && packedRecords) {
      return measureRecord(
          new RecordInput(resource).reset(buf, pos + 1, length - 1, 0).packed(), s);
    }
    if (control == (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT) && codec != null) {
      long size = ByteSplit.recordLength(buf, pos + 1, length - 1);
      return size >= 0 && codec.measureInflated(size, s);
    }
    if (control != (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_ZSTD) || codec == null) {
      return false;
    }
    // The frame header (at most 18 bytes) declares the inflated size.
    byte[] head = new byte[Math.min(length - 1, 32)];
    buf.get(pos + 1, head);
    long size = Zstd.getFrameContentSize(head, 0, head.length);
    return size >= 0 && size <= ZipLayout.MAX_INFLATED_BYTES && codec.measureInflated(size, s);
  }

  private boolean measureRecord(RecordInput in, VectorSizes s) throws CorruptFileException {
    if (codec != null) {
      codec.measure(in, true, s);
    } else {
      group.measure(in, s);
    }
    return in.remaining() == 0;
  }

  /**
   * Sets the initial capacities of the result vector of top-level field {@code fieldIndex} (one of
   * this column's) for {@code rows} rows from measured sizes; the caller allocates it.
   */
  void presize(FieldVector v, int fieldIndex, VectorSizes s, int rows) {
    if (codec != null) {
      s.setValues(rows);
      codec.presize(v, s);
    } else {
      int i = spec.fields().indexOf(fieldIndex);
      VectorSizes c = s.child(i);
      c.setValues(rows);
      group.child(i).presize(v, c);
    }
  }

  /** Page summaries for inspection. */
  List<String> layoutNames() {
    List<String> names = new ArrayList<>();
    for (PageInfo p : pages) {
      names.add(ColumnLayout.layoutName(p.layout()));
    }
    return names;
  }

  @Override
  public void close() {
    if (dictionary != null) {
      dictionary.close();
    }
  }
}
