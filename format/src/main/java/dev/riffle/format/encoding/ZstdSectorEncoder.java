package dev.riffle.format.encoding;

import static dev.riffle.format.SectorLayout.CODEC_RECORDS;
import static dev.riffle.format.SectorLayout.FLAG_ZSTD;
import static dev.riffle.format.SectorLayout.HEADER_BYTES;
import static dev.riffle.format.SectorLayout.MAX_ROWS;
import static dev.riffle.format.SectorLayout.MAX_ZSTD_PAYLOAD_BYTES;
import static dev.riffle.format.SectorLayout.PAYLOAD_BYTES;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import dev.riffle.format.ByteSink;
import dev.riffle.format.SectorLayout;
import java.nio.ByteBuffer;

/**
 * Compressed sectors (FORMAT.md §5.1): the payload of a FLAT, FOR or RECORDS encoder as one zstd
 * frame, so that more rows fit the same 4 KiB. Such a sector is written only when it holds at least
 * a quarter more rows than the plain greedy sector ({@link #worthCompressing}), because every
 * random read of it pays an inflate.
 */
final class ZstdSectorEncoder {
  /**
   * A compressed sector is written only if it holds at least {@code n + ceil(n / 4)} rows, where
   * {@code n} is what the plain greedy sector holds: each read of it inflates up to 64 KiB, which
   * is worth it only for a real gain in bytes per row (text, repetitive values), not for a few
   * percent.
   */
  static int worthCompressing(int plainRows) {
    return plainRows + (plainRows + 3) / 4;
  }

  /**
   * The most payload bytes the writer puts in one compressed sector (format 1.4; readers accept up
   * to {@code MAX_ZSTD_PAYLOAD_BYTES}): a random read of one row inflates the whole sector, so a
   * sector of 5,000 short names (65 KB inflated) cost a take of one name more than the rest of a
   * counts row. Text that compresses 4× still fills the 4 KiB frame.
   */
  static final int MAX_WRITTEN_PAYLOAD_BYTES = 16 * 1024;

  /** The most zstd frames tried per sector while looking for the largest row count that fits. */
  static final int MAX_TRIES = 6;

  private final PageRows rows;
  private final PayloadEncoder codec;
  private final SectorPayload payload;
  private final int level;

  /** Made on the first frame: most pages never get that far (see {@link #rows}). */
  private ZstdCompressCtx zstd;

  private byte[] frame;

  /**
   * @param codec the encoder whose payloads are compressed (never LISTS)
   * @param payload where {@code codec} builds them
   */
  ZstdSectorEncoder(PageRows rows, PayloadEncoder codec, SectorPayload payload, int level) {
    this.rows = rows;
    this.codec = codec;
    this.payload = payload;
    this.level = level;
  }

  /**
   * The rows of a compressed sector starting at {@code row}, or 0 if none qualifies. The search is
   * deterministic: it starts at the qualifying count {@link #worthCompressing}(n); while the last
   * frame fitted it guesses the count that would fill the sector in proportion to the last fitting
   * frame's size, after a frame that did not fit it bisects between the largest count that fitted
   * and the smallest that did not; it stops after {@link #MAX_TRIES} frames or when that interval
   * is within 1/64 of the count. The payload is left in no particular state.
   *
   * @param plainRows the rows of the plain greedy sector at {@code row}
   */
  int rows(int row, int valid, int plainRows) {
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
    if (!codec.build(row, valid, n, payload) || payload.length > MAX_WRITTEN_PAYLOAD_BYTES) {
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
    SectorPayload p = payload;
    if (p.codec == CODEC_RECORDS) {
      ByteBuffer s = p.buf;
      for (int v = p.valid; v > 0; v--) {
        int at = p.offsetsAt + 2 * v;
        s.putShort(at, (short) ((s.getShort(at) & 0xFFFF) - (s.getShort(at - 2) & 0xFFFF)));
      }
    }
    if (zstd == null) {
      zstd = new ZstdCompressCtx();
      zstd.setLevel(level);
      zstd.setContentSize(true);
      zstd.setChecksum(false);
      frame = new byte[(int) Zstd.compressBound(MAX_ZSTD_PAYLOAD_BYTES)];
    }
    try {
      return zstd.compressByteArray(frame, 0, frame.length, p.buf.array(), 0, p.length);
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * Builds the payload of rows [row, row + n), which {@link #rows} found to fit, and appends it to
   * {@code out} as a compressed sector.
   */
  void write(int row, int valid, int n, ByteSink out) {
    codec.build(row, valid, n, payload);
    int c = compress();
    if (c < 0 || c > PAYLOAD_BYTES) {
      throw new IllegalStateException("sector frame no longer fits after it did");
    }
    ByteBuffer s = payload.header(out, n, FLAG_ZSTD);
    s.putShort(SectorLayout.FRAME_LENGTH_OFFSET, (short) c);
    s.position(HEADER_BYTES);
    s.put(frame, 0, c);
    SectorPayload.seal(s);
  }
}
