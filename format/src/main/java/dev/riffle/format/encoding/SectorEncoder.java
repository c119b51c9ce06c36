package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.CODEC_FLAT;
import static dev.riffle.format.SectorLayout.CODEC_FOR;
import static dev.riffle.format.SectorLayout.CODEC_RECORDS;
import static dev.riffle.format.SectorLayout.CRC_OFFSET;
import static dev.riffle.format.SectorLayout.FLAG_VALIDITY;
import static dev.riffle.format.SectorLayout.FLAG_ZSTD;
import static dev.riffle.format.SectorLayout.HEADER_BYTES;
import static dev.riffle.format.SectorLayout.MAX_ROWS;
import static dev.riffle.format.SectorLayout.MAX_ZSTD_PAYLOAD_BYTES;
import static dev.riffle.format.SectorLayout.PAYLOAD_BYTES;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import dev.riffle.format.ByteSink;
import dev.riffle.format.FileLayout;
import dev.riffle.format.SectorLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Packs a page's rows into self-contained 4 KiB sectors ({@link SectorLayout}). Packing is greedy:
 * a sector takes rows while its encoding still fits, so no value ever straddles a sector and one
 * aligned read serves any row.
 *
 * <p>With a zstd level, a sector may instead hold its payload as one zstd frame (FORMAT.md §5.1,
 * 1.1), packing more rows into the same 4 KiB: chosen only when that holds at least a quarter more
 * rows than the plain greedy sector (see {@link #worthCompressing}), because every random read of
 * such a sector pays an inflate.
 */
public final class SectorEncoder {
  private SectorEncoder() {}

  /**
   * A compressed sector is written only if it holds at least {@code n + ceil(n / 4)} rows, where
   * {@code n} is what the plain greedy sector holds: each read of it inflates up to 64 KiB, which
   * is worth it only for a real gain in bytes per row (text, repetitive values), not for a few
   * percent.
   */
  static int worthCompressing(int plainRows) {
    return plainRows + (plainRows + 3) / 4;
  }

  /** The most zstd frames tried per sector while looking for the largest row count that fits. */
  static final int MAX_TRIES = 6;

  /** Encodes fixed-width values without compressed sectors (the 1.0 form). */
  public static LongList encodeFixed(PageRows rows, int width, int signedness, ByteSink out) {
    return encodeFixed(rows, width, signedness, 0, out);
  }

  /**
   * Encodes fixed-width values (each valid record is {@code width} little-endian bytes). Integer
   * kinds ({@code signedness} 0 or 1) use frame-of-reference bit packing per sector when it is
   * smaller than the flat form.
   *
   * @param zstdLevel level of compressed sectors, 0 for none
   * @return the first row of each sector, relative to the page
   */
  public static LongList encodeFixed(
      PageRows rows, int width, int signedness, int zstdLevel, ByteSink out) {
    return new Packer(rows, width, signedness, zstdLevel).run(out);
  }

  /** Encodes variable-size records without compressed sectors (the 1.0 form). */
  public static LongList encodeRecords(PageRows rows, ByteSink out) {
    return encodeRecords(rows, 0, out);
  }

  /**
   * Encodes variable-size records; every record must be at most {@link
   * SectorLayout#MAX_RECORD_BYTES}.
   *
   * @param zstdLevel level of compressed sectors, 0 for none
   */
  public static LongList encodeRecords(PageRows rows, int zstdLevel, ByteSink out) {
    return new Packer(rows, -1, -1, zstdLevel).run(out);
  }

  /**
   * Encodes list records ({@code varint count}, then {@code count} items of {@code itemWidth}
   * bytes) into sectors (format 1.2): a sector that compressed sectors do not take (see {@link
   * #encodeRecords}) is written with the LISTS codec, bit-packed counts and the items back to back,
   * instead of as plain records.
   *
   * @param zstdLevel level of compressed sectors, 0 for none
   */
  public static LongList encodeLists(PageRows rows, int itemWidth, int zstdLevel, ByteSink out) {
    Packer p = new Packer(rows, -1, -1, zstdLevel);
    p.listWidth = itemWidth;
    return p.run(out);
  }

  /** The payload (bitmap and values) of a run of rows, as it follows a sector's header. */
  private static final class Payload {
    final ByteBuffer buf =
        ByteBuffer.allocate(MAX_ZSTD_PAYLOAD_BYTES + 8).order(ByteOrder.LITTLE_ENDIAN);
    int length;
    int valid;
    boolean nulls;
    int codec;
    int bitWidth;
    int valueWidth;
    long reference;

    /** RECORDS: where the u16 offsets start in {@link #buf}. */
    int offsetsAt;
  }

  private static final class Packer {
    private final PageRows rows;
    private final byte[] data;
    private final int width;
    private final int signedness;
    private final int zstdLevel;
    private final boolean values;
    private final Payload payload = new Payload();
    private long[] packed;
    private ZstdCompressCtx zstd;
    private byte[] frame;

    /** Item width of list records packed as LISTS sectors, or 0. */
    int listWidth;

    /** {@code width} -1: records; else fixed-width values. */
    Packer(PageRows rows, int width, int signedness, int zstdLevel) {
      this.rows = rows;
      this.data = rows.array();
      this.width = width;
      this.signedness = signedness;
      this.zstdLevel = zstdLevel;
      this.values = width > 0;
    }

    LongList run(ByteSink out) {
      LongList firstRows = new LongList();
      int row = 0;
      int valid = 0;
      while (row < rows.rowCount()) {
        int n = values ? plainValueRows(row, valid) : plainRecordRows(row, valid);
        int m = zstdLevel > 0 ? compressedRows(row, valid, n) : 0;
        firstRows.add(row);
        int taken;
        if (m > 0) {
          build(row, valid, m);
          writeCompressed(out, m);
          taken = m;
        } else if (listWidth > 0) {
          taken = plainListRows(row, valid);
          buildLists(row, valid, taken);
          writePlain(out, taken);
        } else {
          build(row, valid, n);
          writePlain(out, n);
          taken = n;
        }
        valid += payload.valid;
        row += taken;
      }
      return firstRows;
    }

    /** Rows of the greedy plain value sector starting at {@code row}. */
    private int plainValueRows(int row, int valid) {
      int n = 0;
      int nv = 0;
      boolean nulls = false;
      long min = 0;
      long max = 0;
      while (row < rows.rowCount() && n < MAX_ROWS) {
        boolean isValid = rows.isValid(row);
        boolean nulls2 = nulls || !isValid;
        int nv2 = nv + (isValid ? 1 : 0);
        long min2 = min;
        long max2 = max;
        if (isValid && signedness >= 0) {
          long v = readValue(data, rows.recordStart(valid), width, signedness == 1);
          if (nv == 0) {
            min2 = v;
            max2 = v;
          } else if (signedness == 1) {
            min2 = Math.min(min, v);
            max2 = Math.max(max, v);
          } else {
            min2 = Long.compareUnsigned(v, min) < 0 ? v : min;
            max2 = Long.compareUnsigned(v, max) > 0 ? v : max;
          }
        }
        int bitmap = nulls2 ? Bitmaps.bytes(n + 1) : 0;
        long flatBytes = (long) nv2 * width;
        long forBytes =
            signedness >= 0
                ? BitPacking.packedBytes(nv2, BitPacking.bitWidth(max2 - min2))
                : Long.MAX_VALUE;
        if (n > 0 && bitmap + Math.min(flatBytes, forBytes) > PAYLOAD_BYTES) {
          break;
        }
        n++;
        nv = nv2;
        nulls = nulls2;
        min = min2;
        max = max2;
        if (isValid) {
          valid++;
        }
        row++;
      }
      return n;
    }

    /** Rows of the greedy plain record sector starting at {@code row}. */
    private int plainRecordRows(int row, int valid) {
      int n = 0;
      int nv = 0;
      boolean nulls = false;
      int recordBytes = 0;
      while (row < rows.rowCount() && n < MAX_ROWS) {
        boolean isValid = rows.isValid(row);
        boolean nulls2 = nulls || !isValid;
        int len = isValid ? rows.recordEnd(valid) - rows.recordStart(valid) : 0;
        int nv2 = nv + (isValid ? 1 : 0);
        long size = (nulls2 ? Bitmaps.bytes(n + 1) : 0) + 2L * (nv2 + 1) + recordBytes + len;
        if (n > 0 && size > PAYLOAD_BYTES) {
          break;
        }
        if (size > PAYLOAD_BYTES) {
          throw new IllegalArgumentException("record of " + len + " bytes does not fit a sector");
        }
        n++;
        nv = nv2;
        nulls = nulls2;
        recordBytes += len;
        if (isValid) {
          valid++;
        }
        row++;
      }
      return n;
    }

    /** The item count of list record {@code v} (its leading varint). */
    private long listCount(int v) {
      int at = rows.recordStart(v);
      long c = 0;
      for (int shift = 0; ; shift += 7) {
        int b = data[at++];
        c |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return c;
        }
      }
    }

    /** Rows of the greedy plain LISTS sector starting at {@code row}. */
    private int plainListRows(int row, int valid) {
      int n = 0;
      int nv = 0;
      boolean nulls = false;
      long min = 0;
      long max = 0;
      long items = 0;
      while (row < rows.rowCount() && n < MAX_ROWS) {
        boolean isValid = rows.isValid(row);
        boolean nulls2 = nulls || !isValid;
        long c = isValid ? listCount(valid) : 0;
        int nv2 = nv + (isValid ? 1 : 0);
        long min2 = !isValid ? min : nv == 0 ? c : Math.min(min, c);
        long max2 = !isValid ? max : nv == 0 ? c : Math.max(max, c);
        long items2 = items + c;
        long size =
            (nulls2 ? Bitmaps.bytes(n + 1) : 0)
                + BitPacking.packedBytes(nv2, BitPacking.bitWidth(max2 - min2))
                + items2 * listWidth;
        if (n > 0 && size > PAYLOAD_BYTES) {
          break;
        }
        if (size > PAYLOAD_BYTES) {
          throw new IllegalArgumentException("list of " + c + " items does not fit a sector");
        }
        n++;
        nv = nv2;
        nulls = nulls2;
        min = min2;
        max = max2;
        items = items2;
        if (isValid) {
          valid++;
        }
        row++;
      }
      return n;
    }

    /** Builds the LISTS payload of rows [row, row + n): bitmap, packed counts, items. */
    private void buildLists(int row, int valid, int n) {
      Payload p = payload;
      int nv = 0;
      boolean nulls = false;
      long min = 0;
      long max = 0;
      long items = 0;
      if (packed == null || packed.length < n) {
        packed = new long[Math.max(n, 1024)];
      }
      for (int k = 0; k < n; k++) {
        if (!rows.isValid(row + k)) {
          nulls = true;
          continue;
        }
        long c = listCount(valid + nv);
        packed[nv] = c;
        min = nv == 0 ? c : Math.min(min, c);
        max = nv == 0 ? c : Math.max(max, c);
        items += c;
        nv++;
      }
      int bitWidth = BitPacking.bitWidth(max - min);
      int bitmap = nulls ? Bitmaps.bytes(n) : 0;
      int countBytes = BitPacking.packedBytes(nv, bitWidth);
      int size = (int) (bitmap + countBytes + items * listWidth);
      ByteBuffer s = p.buf;
      byte[] a = s.array();
      Arrays.fill(a, 0, size, (byte) 0);
      p.length = size;
      p.valid = nv;
      p.nulls = nulls;
      p.codec = SectorLayout.CODEC_LISTS;
      p.bitWidth = bitWidth;
      p.valueWidth = listWidth;
      p.reference = min;
      if (nulls) {
        for (int k = 0; k < n; k++) {
          if (rows.isValid(row + k)) {
            a[k >>> 3] |= (byte) (1 << (k & 7));
          }
        }
      }
      for (int v = 0; v < nv; v++) {
        packed[v] -= min;
      }
      s.clear().position(bitmap);
      BitPacking.pack(packed, nv, bitWidth, s);
      int at = bitmap + countBytes;
      for (int v = 0; v < nv; v++) {
        int end = rows.recordEnd(valid + v);
        int len = (int) ((packed[v] + min) * listWidth);
        System.arraycopy(data, end - len, a, at, len);
        at += len;
      }
    }

    /**
     * The rows of a compressed sector starting at {@code row}, or 0 if none qualifies. The search
     * is deterministic: it starts at the qualifying count {@link #worthCompressing}(n); while the
     * last frame fitted it guesses the count that would fill the sector in proportion to the last
     * fitting frame's size, after a frame that did not fit it bisects between the largest count
     * that fitted and the smallest that did not; it stops after {@link #MAX_TRIES} frames or when
     * that interval is within 1/64 of the count.
     */
    private int compressedRows(int row, int valid, int plainRows) {
      int left = Math.min(rows.rowCount() - row, MAX_ROWS);
      int need = worthCompressing(plainRows);
      if (need > left) {
        return 0;
      }
      int fitBytes = frameBytes(row, valid, need);
      if (fitBytes < 0) {
        return 0;
      }
      int fit = need;
      int fail = left + 1;
      boolean lastFitted = true;
      for (int tries = 1; tries < MAX_TRIES && fail - fit > Math.max(1, fit / 64); tries++) {
        long guess;
        if (lastFitted) {
          guess = (long) fit * PAYLOAD_BYTES / Math.max(1, fitBytes);
        } else {
          guess = ((long) fit + fail) / 2;
        }
        int m = (int) Math.max(fit + 1, Math.min(fail - 1, guess));
        int bytes = frameBytes(row, valid, m);
        if (bytes >= 0) {
          fit = m;
          fitBytes = bytes;
          lastFitted = true;
        } else {
          fail = m;
          lastFitted = false;
        }
      }
      return fit;
    }

    /** The zstd frame size of the payload of {@code n} rows, or -1 if it does not fit a sector. */
    private int frameBytes(int row, int valid, int n) {
      if (!build(row, valid, n)) {
        return -1;
      }
      int c = compress();
      return c >= 0 && c <= PAYLOAD_BYTES ? c : -1;
    }

    /**
     * Compresses the payload into {@link #frame}; returns its size or -1. A RECORDS payload is
     * compressed with its offsets turned into differences (record lengths), which repeat where
     * offsets only grow: FORMAT.md §5.1. This changes the payload, which is built anew before the
     * next use.
     */
    private int compress() {
      Payload p = payload;
      if (p.codec == CODEC_RECORDS) {
        ByteBuffer s = p.buf;
        for (int v = p.valid; v > 0; v--) {
          int at = p.offsetsAt + 2 * v;
          s.putShort(at, (short) ((s.getShort(at) & 0xFFFF) - (s.getShort(at - 2) & 0xFFFF)));
        }
      }
      if (zstd == null) {
        zstd = new ZstdCompressCtx();
        zstd.setLevel(zstdLevel);
        zstd.setContentSize(true);
        zstd.setChecksum(false);
        frame = new byte[(int) Zstd.compressBound(MAX_ZSTD_PAYLOAD_BYTES)];
      }
      try {
        return zstd.compressByteArray(
            frame, 0, frame.length, payload.buf.array(), 0, payload.length);
      } catch (RuntimeException e) {
        return -1;
      }
    }

    /**
     * Builds the payload of rows [row, row + n) (whose first valid record is {@code valid}).
     *
     * @return false if it is larger than a compressed sector may inflate to
     */
    private boolean build(int row, int valid, int n) {
      Payload p = payload;
      int nv = 0;
      boolean nulls = false;
      long min = 0;
      long max = 0;
      int recordBytes = 0;
      for (int k = 0; k < n; k++) {
        if (!rows.isValid(row + k)) {
          nulls = true;
          continue;
        }
        int v = valid + nv;
        if (values) {
          if (signedness >= 0) {
            long x = readValue(data, rows.recordStart(v), width, signedness == 1);
            if (nv == 0) {
              min = x;
              max = x;
            } else if (signedness == 1) {
              min = Math.min(min, x);
              max = Math.max(max, x);
            } else {
              min = Long.compareUnsigned(x, min) < 0 ? x : min;
              max = Long.compareUnsigned(x, max) > 0 ? x : max;
            }
          }
        } else {
          recordBytes += rows.recordEnd(v) - rows.recordStart(v);
        }
        nv++;
      }
      int bitmap = nulls ? Bitmaps.bytes(n) : 0;
      long size;
      boolean useFor = false;
      int bitWidth = 0;
      if (values) {
        long flat = (long) nv * width;
        if (signedness >= 0) {
          bitWidth = BitPacking.bitWidth(max - min);
          useFor = BitPacking.packedBytes(nv, bitWidth) < flat;
        }
        size = bitmap + (useFor ? BitPacking.packedBytes(nv, bitWidth) : flat);
      } else {
        size = bitmap + 2L * (nv + 1) + recordBytes;
      }
      if (size > MAX_ZSTD_PAYLOAD_BYTES) {
        return false;
      }
      ByteBuffer s = p.buf;
      byte[] a = s.array();
      Arrays.fill(a, 0, (int) size, (byte) 0);
      p.length = (int) size;
      p.valid = nv;
      p.nulls = nulls;
      p.codec = values ? (useFor ? CODEC_FOR : CODEC_FLAT) : CODEC_RECORDS;
      p.bitWidth = useFor ? bitWidth : 0;
      p.valueWidth = values ? width : 0;
      p.reference = useFor ? min : 0L;
      int at = 0;
      if (nulls) {
        for (int k = 0; k < n; k++) {
          if (rows.isValid(row + k)) {
            a[k >>> 3] |= (byte) (1 << (k & 7));
          }
        }
        at = bitmap;
      }
      int from = nv == 0 ? 0 : rows.recordStart(valid);
      if (values && useFor) {
        if (packed == null || packed.length < nv) {
          packed = new long[Math.max(nv, 1024)];
        }
        for (int v = 0; v < nv; v++) {
          packed[v] = readValue(data, rows.recordStart(valid + v), width, signedness == 1) - min;
        }
        s.clear().position(at);
        BitPacking.pack(packed, nv, bitWidth, s);
      } else if (values) {
        System.arraycopy(data, from, a, at, nv * width);
      } else {
        p.offsetsAt = at;
        for (int v = 0; v <= nv; v++) {
          int end = v == 0 ? from : rows.recordEnd(valid + v - 1);
          s.putShort(at + 2 * v, (short) (end - from));
        }
        System.arraycopy(data, from, a, at + 2 * (nv + 1), recordBytes);
      }
      return true;
    }

    private ByteBuffer header(ByteSink out, int n, int flags) {
      int base = out.reserve(FileLayout.SECTOR_BYTES);
      byte[] a = out.array();
      Arrays.fill(a, base, base + FileLayout.SECTOR_BYTES, (byte) 0);
      ByteBuffer s =
          ByteBuffer.wrap(a, base, FileLayout.SECTOR_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN);
      Payload p = payload;
      s.putShort(SectorLayout.ROW_COUNT_OFFSET, (short) n);
      s.put(SectorLayout.CODEC_OFFSET, (byte) p.codec);
      s.put(SectorLayout.FLAGS_OFFSET, (byte) ((p.nulls ? FLAG_VALIDITY : 0) | flags));
      s.put(SectorLayout.BIT_WIDTH_OFFSET, (byte) p.bitWidth);
      s.put(SectorLayout.VALUE_WIDTH_OFFSET, (byte) p.valueWidth);
      s.putLong(SectorLayout.REFERENCE_OFFSET, p.reference);
      return s;
    }

    private void writePlain(ByteSink out, int n) {
      ByteBuffer s = header(out, n, 0);
      s.position(HEADER_BYTES);
      s.put(payload.buf.array(), 0, payload.length);
      seal(s);
    }

    private void writeCompressed(ByteSink out, int n) {
      int c = compress();
      if (c < 0 || c > PAYLOAD_BYTES) {
        throw new IllegalStateException("sector frame no longer fits after it did");
      }
      ByteBuffer s = header(out, n, FLAG_ZSTD);
      s.putShort(SectorLayout.FRAME_LENGTH_OFFSET, (short) c);
      s.position(HEADER_BYTES);
      s.put(frame, 0, c);
      seal(s);
    }
  }

  private static void seal(ByteBuffer sector) {
    CRC32C crc = new CRC32C();
    crc.update(sector.array(), sector.arrayOffset(), CRC_OFFSET);
    sector.putInt(CRC_OFFSET, (int) crc.getValue());
  }

  /** Reads a little-endian value of {@code width} (1..8) bytes, sign- or zero-extended. */
  static long readValue(byte[] a, int at, int width, boolean signed) {
    long v = 0;
    for (int i = 0; i < width; i++) {
      v |= (a[at + i] & 0xFFL) << (8 * i);
    }
    if (signed && width < 8) {
      int shift = 64 - 8 * width;
      v = (v << shift) >> shift;
    }
    return v;
  }
}
