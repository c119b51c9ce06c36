package dev.riffle.format.read;

import com.github.luben.zstd.Zstd;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import dev.riffle.format.ZipLayout;
import dev.riffle.format.encoding.ByteSplit;
import dev.riffle.format.encoding.VectorSizes;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Decodes and measures rows of one column's zipped pages (FORMAT.md §5.2, §5.3): ZIP_FIXED slots
 * and ZIP_VAR records, plain, zstd-compressed, split into byte planes or packed.
 */
final class ZipDecoder {
  private final String resource;
  private final RowCodec rows;

  /** Whether packed records are allowed: only in a column whose records hold a packable list. */
  private final boolean packedRecords;

  /** Whether float lists of packed records are packed too (format 1.4). */
  private final boolean packedFloats;

  ZipDecoder(String resource, RowCodec rows, boolean packedRecords, boolean packedFloats) {
    this.resource = resource;
    this.rows = rows;
    this.packedRecords = packedRecords;
    this.packedFloats = packedFloats;
  }

  void decodeSlot(PageInfo page, ByteBuffer buf, int pos, long fileOffset, Target t, int j)
      throws CorruptFileException {
    int width = page.slotWidth();
    if (page.recordCrcs()) {
      width -= ZipLayout.RECORD_CRC_BYTES;
      checkCrc(buf, pos, width, fileOffset, "slot");
    }
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
    rows.decode(in, t, j);
  }

  /**
   * Checks the CRC32C stored in the 4 bytes after {@code buf[pos, pos + length)}: a take reads a
   * record alone, so this is what verifies it (FORMAT.md §7.6).
   */
  private void checkCrc(ByteBuffer buf, int pos, int length, long fileOffset, String what)
      throws CorruptFileException {
    if (!crcHolds(buf, pos, length)) {
      throw new CorruptFileException(
          resource, fileOffset, what + " of " + length + " bytes fails its checksum");
    }
  }

  private static boolean crcHolds(ByteBuffer buf, int pos, int length) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().limit(pos + length).position(pos));
    return (int) crc.getValue() == buf.getInt(pos + length);
  }

  /**
   * Decodes the record of {@code length} bytes at {@code buf[pos]} (file offset {@code
   * fileOffset}); {@code crc}: the page has record CRCs, so a valid record's last 4 bytes are its
   * checksum.
   */
  void decodeVar(ByteBuffer buf, int pos, int length, long fileOffset, boolean crc, Target t, int j)
      throws CorruptFileException {
    if (length < 1) {
      throw new CorruptFileException(resource, fileOffset, "empty record");
    }
    int control = buf.get(pos) & 0xFF;
    if (crc && control != 0) {
      if (length < 1 + ZipLayout.RECORD_CRC_BYTES) {
        throw new CorruptFileException(
            resource, fileOffset, "record of " + length + " bytes is too short for its checksum");
      }
      length -= ZipLayout.RECORD_CRC_BYTES;
      checkCrc(buf, pos, length, fileOffset, "record");
    }
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
      in.reset(buf, pos + 1, length - 1, fileOffset + 1).packed(packedFloats);
    } else {
      in.reset(buf, pos + 1, length - 1, fileOffset + 1);
    }
    rows.decode(in, t, j);
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

  boolean measureSlot(PageInfo page, ByteBuffer buf, int pos, VectorSizes s)
      throws CorruptFileException {
    int width = page.slotWidth() - (page.recordCrcs() ? ZipLayout.RECORD_CRC_BYTES : 0);
    if (page.recordCrcs() && !crcHolds(buf, pos, width)) {
      return false; // its decode says what is wrong
    }
    int start = pos;
    if (page.hasNulls()) {
      if (buf.get(pos) == 0) {
        return true;
      }
      start++;
      width--;
    }
    return rows.measure(new RecordInput(resource).reset(buf, start, width, 0), s);
  }

  /**
   * Sizes a record without decoding it. With record CRCs, only a record whose CRC holds is
   * measured: a damaged count would otherwise size the batch's vectors from it (gigabytes from one
   * flipped byte) before its decode could report the damage. Without them (format 1.0), the take
   * checked the whole page's CRC first.
   */
  boolean measureVar(ByteBuffer buf, int pos, int length, boolean crc, VectorSizes s)
      throws CorruptFileException {
    if (length < 1) {
      return false;
    }
    int control = buf.get(pos) & 0xFF;
    if (control == 0) {
      return true;
    }
    if (crc) {
      length -= ZipLayout.RECORD_CRC_BYTES;
      if (length < 1 || !crcHolds(buf, pos, length)) {
        return false;
      }
    }
    if (control == ZipLayout.CONTROL_VALID) {
      return rows.measure(new RecordInput(resource).reset(buf, pos + 1, length - 1, 0), s);
    }
    if (control == (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_PACKED) && packedRecords) {
      return rows.measure(
          new RecordInput(resource).reset(buf, pos + 1, length - 1, 0).packed(packedFloats), s);
    }
    if (control == (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_SPLIT)) {
      long size = ByteSplit.recordLength(buf, pos + 1, length - 1);
      return size >= 0 && rows.measureInflated(size, s);
    }
    if (control != (ZipLayout.CONTROL_VALID | ZipLayout.CONTROL_ZSTD)) {
      return false;
    }
    // The frame header (at most 18 bytes) declares the inflated size.
    byte[] head = new byte[Math.min(length - 1, 32)];
    buf.get(pos + 1, head);
    long size = Zstd.getFrameContentSize(head, 0, head.length);
    return size >= 0 && size <= ZipLayout.MAX_INFLATED_BYTES && rows.measureInflated(size, s);
  }
}
