package dev.riffle.format.read;

import com.github.luben.zstd.Zstd;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FileLayout;
import dev.riffle.format.RecordInput;
import dev.riffle.format.SectorLayout;
import dev.riffle.format.encoding.BitPacking;
import dev.riffle.format.encoding.Bitmaps;
import dev.riffle.format.encoding.Buffers;
import dev.riffle.format.encoding.VectorSizes;
import dev.riffle.format.schema.ColumnSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;

/**
 * Decodes rows of one column's SECTORS pages (FORMAT.md §5.1): checks each sector (CRC32C, header)
 * once per thread and buffer, inflates compressed sectors, and decodes FLAT, FOR and RECORDS values
 * into the target vectors; LISTS sectors go to {@link ListSectorDecoder}.
 *
 * <p>Why this file stays whole (a little over 500 lines): the per-thread memo of the last checked
 * sector, the inflate, the value and record codecs' decoding and the estimate of a page's row sizes
 * (which sizes a scan's vectors) all read the sector's parsed header; they change together with
 * FORMAT.md §5.1.
 */
final class SectorDecoder {
  private final String resource;
  private final ColumnSpec spec;
  private final RowCodec rows;
  private final int fixedWidth;
  private final boolean integerColumn;

  /** The LISTS codec of this column, null if it may not have LISTS sectors. */
  private final ListSectorDecoder lists;

  /** Whether LISTS sectors of this column may pack their items as decimals (1.4, float items). */
  private final boolean listPackedItems;

  /** Unique per instance, never reused: keys this column's entries in {@link SectorMemo}. */
  private final long identity = IDENTITIES.incrementAndGet();

  SectorDecoder(
      String resource,
      ColumnSpec spec,
      RowCodec rows,
      int fixedWidth,
      boolean integerColumn,
      int listItemWidth,
      boolean listItemsNullable,
      boolean listPackedItems) {
    this.resource = resource;
    this.spec = spec;
    this.rows = rows;
    this.fixedWidth = fixedWidth;
    this.integerColumn = integerColumn;
    this.lists =
        listItemWidth > 0
            ? new ListSectorDecoder(resource, spec, rows, listItemWidth, listItemsNullable)
            : null;
    this.listPackedItems = listPackedItems;
  }

  // LISTS in a column that cannot hold them falls through to "unknown codec"
  @SuppressWarnings("fallthrough")
  void decodeSector(
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
          if (valid == memo.rows
              && t.single instanceof BaseFixedWidthVector f
              && !(f instanceof BitVector)
              && f.getTypeWidth() == valueWidth) {
            // No null row: the rows' values are consecutive, written in one pass.
            decodeFixed(d, p, isFor, reference, bitWidth, kFrom, kTo - kFrom, f, outStart);
            return;
          }
          for (int k = kFrom; k < kTo; k++) {
            int j = outStart + (k - kFrom);
            if (bitmap >= 0 && !Bitmaps.get(d, bitmap, k)) {
              t.single.setNull(j);
              continue;
            }
            if (isFor) {
              long v = reference + BitPacking.get(d, p, idx, bitWidth);
              Target.writeFixed(resource, t.single, j, v, valueWidth, fileOffset);
            } else {
              Target.copyFixed(
                  resource, t.single, j, d, p + idx * valueWidth, valueWidth, fileOffset);
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
            rows.decode(in, t, j);
            idx++;
          }
          return;
        }
      case SectorLayout.CODEC_LISTS:
        if (lists != null) {
          lists.decode(
              memo, d, base, p, end, bitmap, valid, idx, kFrom, kTo, fileOffset, t, outStart);
          return;
        }
      // A column that cannot hold them: an unknown codec.
      default:
        throw new CorruptFileException(
            resource, fileOffset + SectorLayout.CODEC_OFFSET, "unknown sector codec " + codecId);
    }
  }

  /**
   * Writes the {@code count} values from value {@code first} of a FLAT or FOR sector without null
   * rows into slots {@code [out, out + count)} of {@code v}: a FLAT sector's as one copy, a FOR
   * sector's unpacked into a scratch array and stored by address, after one capacity check (not a
   * bounds-checked store per value). The caller checked that the values lie in the sector.
   */
  private static void decodeFixed(
      ByteBuffer d,
      int p,
      boolean isFor,
      long reference,
      int bitWidth,
      int first,
      int count,
      BaseFixedWidthVector v,
      int out) {
    while (v.getValueCapacity() < out + count) {
      v.reAlloc();
    }
    int w = v.getTypeWidth();
    if (!isFor) {
      Buffers.copy(v.getDataBuffer(), (long) out * w, d, p + first * w, count * w);
    } else {
      long[] values = ListSectorDecoder.scratch(count);
      BitPacking.unpack(d, p, first, count, bitWidth, values);
      long at = v.getDataBuffer().memoryAddress() + (long) out * w;
      for (int i = 0; i < count; i++, at += w) {
        long value = reference + values[i];
        switch (w) {
          case 1 -> MemoryUtil.putByte(at, (byte) value);
          case 2 -> MemoryUtil.putShort(at, (short) value);
          case 4 -> MemoryUtil.putInt(at, (int) value);
          default -> MemoryUtil.putLong(at, value);
        }
      }
    }
    Buffers.setValid(v.getValidityBuffer(), out, count);
  }

  /**
   * Adds to {@code s} an estimate of what decoding page-relative rows [from, from + count) of a
   * SECTORS page held whole will allocate, from each RECORDS sector's bytes without decoding it
   * ({@link RowCodec#estimateRecords}): a plain sector's record offsets give the rows' record
   * bytes; a compressed one gives the rows their share of its frame's content size, read from the
   * frame header (inflating it twice would cost more than growing vectors). It only sizes vectors:
   * nothing here is verified, and decoding checks every sector as it would without it.
   *
   * <p>LISTS sectors give their rows' item bytes exactly, from the packed counts.
   *
   * @return false if the rows cannot be estimated so (other sector codecs, groups, or a header that
   *     makes no sense; decoding will report it)
   */
  boolean estimatePageRows(PageInfo page, ByteBuffer buf, int from, int count, VectorSizes s) {
    buf = buf.order(ByteOrder.LITTLE_ENDIAN);
    int end = from + count;
    int sector = page.index().floorIndex(from);
    int k = from;
    while (k < end) {
      int first = (int) page.index().get(sector);
      int next =
          sector + 1 < page.index().size() ? (int) page.index().get(sector + 1) : page.rowCount();
      int pos = sector * FileLayout.SECTOR_BYTES;
      int n = next - first;
      int kFrom = k - first;
      int kTo = Math.min(end, next) - first;
      if (n <= 0 || kTo <= kFrom || pos + FileLayout.SECTOR_BYTES > buf.limit()) {
        return false;
      }
      int codec = buf.get(pos + SectorLayout.CODEC_OFFSET) & 0xFF;
      long bytes =
          codec == SectorLayout.CODEC_RECORDS
              ? recordBytes(buf, pos, n, kFrom, kTo)
              : codec == SectorLayout.CODEC_LISTS && lists != null
                  ? lists.itemBytes(buf, pos, n, kFrom, kTo)
                  : -1;
      if (bytes < 0 || !rows.estimateRecords(kTo - kFrom, bytes, s)) {
        return false;
      }
      k = first + kTo;
      sector++;
    }
    return true;
  }

  /**
   * The record bytes of rows [kFrom, kTo) of the n-row RECORDS sector at {@code pos}, estimated for
   * a compressed one; -1 if its header or offsets make no sense.
   */
  private static long recordBytes(ByteBuffer buf, int pos, int n, int kFrom, int kTo) {
    int flags = buf.get(pos + SectorLayout.FLAGS_OFFSET) & 0xFF;
    int bitmapBytes = (flags & SectorLayout.FLAG_VALIDITY) != 0 ? Bitmaps.bytes(n) : 0;
    if ((flags & SectorLayout.FLAG_ZSTD) != 0) {
      int frameLength = buf.getShort(pos + SectorLayout.FRAME_LENGTH_OFFSET) & 0xFFFF;
      if (frameLength < 1 || SectorLayout.HEADER_BYTES + frameLength > SectorLayout.CRC_OFFSET) {
        return -1;
      }
      // The content size is in the frame header, at most 18 bytes.
      int headerBytes = Math.min(frameLength, 18);
      byte[] frame = SECTOR_INFLATER.get().frame;
      buf.get(pos + SectorLayout.HEADER_BYTES, frame, 0, headerBytes);
      long size = Zstd.getFrameContentSize(frame, 0, headerBytes);
      if (size < 1 || size > SectorLayout.MAX_ZSTD_PAYLOAD_BYTES) {
        return -1;
      }
      // The payload: the bitmap, n + 1 offsets at most, then the records.
      long records = Math.max(0, size - bitmapBytes - 2L * (n + 1));
      return (records * (kTo - kFrom) + n - 1) / n;
    }
    int p = pos + SectorLayout.HEADER_BYTES;
    int from = kFrom;
    int to = kTo;
    if (bitmapBytes > 0) {
      from = Bitmaps.rank(buf, p, kFrom);
      to = Bitmaps.rank(buf, p, kTo);
      p += bitmapBytes;
    }
    if (p + 2 * (to + 1) > pos + SectorLayout.CRC_OFFSET) {
      return -1;
    }
    int a = buf.getShort(p + 2 * from) & 0xFFFF;
    int b = buf.getShort(p + 2 * to) & 0xFFFF;
    return b >= a ? b - a : -1;
  }

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
    int allowedFlags =
        SectorLayout.FLAG_VALIDITY
            | SectorLayout.FLAG_ZSTD
            | (codecId == SectorLayout.CODEC_LISTS && listPackedItems
                ? SectorLayout.FLAG_PACKED_ITEMS
                : 0);
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
    memo.packedItems = (flags & SectorLayout.FLAG_PACKED_ITEMS) != 0;
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
  static final class SectorMemo {
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
    boolean packedItems;

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
}
