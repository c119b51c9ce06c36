package dev.riffle.format.encoding;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import dev.riffle.format.ZipLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Split records ({@link ZipLayout#CONTROL_SPLIT}, FORMAT.md §5.3): a record's bytes regrouped into
 * {@code stride} byte planes, each stored raw or as its own zstd frame.
 *
 * <p>Random float32 rows barely shrink under zstd as they are (one Huffman table for all bytes:
 * about 6%), while the plane of their sign and exponent bytes alone takes about 3 bits a byte. A
 * frame per plane gives each plane its own table; the mantissa planes, which do not shrink, stay
 * raw and cost only a copy on read.
 */
public final class ByteSplit {
  private ByteSplit() {}

  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Smaller records are not worth a split: too few bytes per plane for a zstd table to pay. */
  public static final int MIN_RECORD_BYTES = 256;

  /**
   * A split record is kept only if its payload is at most 19/20 of the record: every random read of
   * it pays an inflate and an interleave, which a gain under 5% does not justify.
   */
  public static boolean worthIt(long splitBytes, long rawBytes) {
    return splitBytes * 20 <= rawBytes * 19;
  }

  /**
   * zstd's minimum match length for planes: the longest, so that zstd codes a plane almost only as
   * Huffman literals. Short matches in the sign/exponent plane cost more in sequence tables than
   * they save (about 15% larger frames at the default of 3 for level 3) and slow the inflate.
   */
  public static final int MIN_MATCH = 7;

  /** Writer-side scratch and zstd context: reused across the records of a page. */
  public static final class Encoder implements AutoCloseable {
    private final ZstdCompressCtx ctx;
    private byte[] plane = new byte[0];
    private byte[] frame = new byte[0];
    private final int[] frameLengths = new int[8];
    private final byte[][] frames = new byte[8][];

    public Encoder(int zstdLevel) {
      ctx = new ZstdCompressCtx();
      ctx.setLevel(zstdLevel);
      ctx.setMinMatch(MIN_MATCH);
      ctx.setContentSize(true);
      ctx.setChecksum(false);
      ctx.setDictID(false);
    }

    @Override
    public void close() {
      ctx.close();
    }

    /**
     * Appends the split payload of {@code data[from, from + len)} (everything after the control
     * byte) to {@code out}.
     *
     * @return the payload's length
     */
    public int encode(byte[] data, int from, int len, int stride, ByteSink out) {
      int planeLen = len / stride;
      if (plane.length < planeLen) {
        plane = new byte[planeLen];
        frame = new byte[(int) Zstd.compressBound(planeLen)];
      }
      int start = out.length();
      out.put((byte) stride);
      out.putVarint(len);
      for (int p = 0; p < stride; p++) {
        for (int j = 0, at = from + p; j < planeLen; j++, at += stride) {
          plane[j] = data[at];
        }
        frameLengths[p] = 0;
        if (planeLen > 0) {
          int n = ctx.compressByteArray(frame, 0, frame.length, plane, 0, planeLen);
          if (n < planeLen) {
            frameLengths[p] = n;
            if (frames[p] == null || frames[p].length < n) {
              frames[p] = new byte[frame.length];
            }
            System.arraycopy(frame, 0, frames[p], 0, n);
          }
        }
        out.putVarint(frameLengths[p]);
      }
      for (int p = 0; p < stride; p++) {
        if (frameLengths[p] > 0) {
          out.put(frames[p], 0, frameLengths[p]);
        } else {
          int at = out.reserve(planeLen);
          byte[] dst = out.array();
          for (int j = 0, src = from + p; j < planeLen; j++, src += stride) {
            dst[at + j] = data[src];
          }
        }
      }
      out.put(data, from + planeLen * stride, len - planeLen * stride);
      return out.length() - start;
    }
  }

  /**
   * The record length a split payload declares, without inflating anything, or -1 if the header is
   * damaged (decoding reports it).
   */
  public static long recordLength(ByteBuffer buf, int pos, int length) {
    try {
      RecordInput in = new RecordInput("").reset(buf, pos, length, 0);
      if (!ZipLayout.validStride(in.u8())) {
        return -1;
      }
      return in.varint(ZipLayout.MAX_INFLATED_BYTES);
    } catch (CorruptFileException e) {
      return -1;
    }
  }

  /** Reader-side state, one per thread: a zstd context and buffers reused across records. */
  public static final class Decoder {
    private final ZstdDecompressCtx ctx = new ZstdDecompressCtx();
    private byte[] record = new byte[64 * 1024];
    private byte[] planes = new byte[64 * 1024];
    private byte[] frame = new byte[0];
    private final int[] frameLengths = new int[8];

    /**
     * Restores the record of the split payload {@code buf[pos, pos + length)}, whose first byte
     * lies at {@code fileOffset} of {@code resource}, into {@link #record()}.
     *
     * @return the record's length
     * @throws CorruptFileException if the payload is not a valid split record, consumed exactly
     */
    public int decode(ByteBuffer buf, int pos, int length, long fileOffset, String resource)
        throws CorruptFileException {
      RecordInput in = new RecordInput(resource).reset(buf, pos, length, fileOffset);
      int stride = in.u8();
      if (!ZipLayout.validStride(stride)) {
        throw new CorruptFileException(resource, fileOffset, "bad split stride " + stride);
      }
      int len = (int) in.varint(ZipLayout.MAX_INFLATED_BYTES);
      if (len == 0) {
        throw new CorruptFileException(resource, fileOffset + 1, "empty split record");
      }
      int planeLen = len / stride;
      long stored = len - (long) planeLen * stride;
      for (int p = 0; p < stride; p++) {
        frameLengths[p] = (int) in.varint(Integer.MAX_VALUE);
        stored += frameLengths[p] == 0 ? planeLen : frameLengths[p];
      }
      // Checked before any buffer is sized for the record.
      if (stored != in.remaining()) {
        throw in.corrupt(
            "split record planes and tail take "
                + stored
                + " bytes, "
                + in.remaining()
                + " remain");
      }
      if (record.length < len) {
        record = new byte[Math.max(len, record.length * 2)];
      }
      if (planes.length < len) {
        planes = new byte[Math.max(len, planes.length * 2)];
      }
      for (int p = 0; p < stride; p++) {
        long at = in.fileOffset();
        if (frameLengths[p] == 0) {
          buf.get(in.take(planeLen), planes, p * planeLen, planeLen);
        } else {
          inflate(buf, in.take(frameLengths[p]), frameLengths[p], planeLen, at, resource, p);
        }
      }
      interleave(stride, planeLen);
      int tail = len - planeLen * stride;
      buf.get(in.take(tail), record, planeLen * stride, tail);
      if (in.remaining() != 0) {
        throw in.corrupt("split record has " + in.remaining() + " trailing bytes");
      }
      return len;
    }

    /** Puts byte j of plane p at record byte j·stride + p, a whole value per store. */
    private void interleave(int stride, int m) {
      byte[] b = planes;
      byte[] r = record;
      switch (stride) {
        case 2:
          for (int j = 0; j < m; j++) {
            SHORT.set(r, 2 * j, (short) ((b[j] & 0xFF) | (b[m + j] & 0xFF) << 8));
          }
          break;
        case 4:
          for (int j = 0, m2 = 2 * m, m3 = 3 * m; j < m; j++) {
            INT.set(
                r,
                4 * j,
                (b[j] & 0xFF)
                    | (b[m + j] & 0xFF) << 8
                    | (b[m2 + j] & 0xFF) << 16
                    | (b[m3 + j] & 0xFF) << 24);
          }
          break;
        default:
          for (int j = 0; j < m; j++) {
            long v = 0;
            for (int p = 7; p >= 0; p--) {
              v = v << 8 | (b[p * m + j] & 0xFF);
            }
            LONG.set(r, 8 * j, v);
          }
      }
    }

    /** The buffer holding the last decoded record from index 0; valid until the next decode. */
    public byte[] record() {
      return record;
    }

    private void inflate(
        ByteBuffer buf, int pos, int frameLength, int planeLen, long at, String resource, int p)
        throws CorruptFileException {
      byte[] src;
      int srcAt;
      if (buf.hasArray()) {
        src = buf.array();
        srcAt = buf.arrayOffset() + pos;
      } else {
        if (frame.length < frameLength) {
          frame = new byte[Math.max(frameLength, frame.length * 2)];
        }
        buf.get(pos, frame, 0, frameLength);
        src = frame;
        srcAt = 0;
      }
      long size = Zstd.getFrameContentSize(src, srcAt, frameLength);
      if (size != planeLen) {
        throw new CorruptFileException(
            resource,
            at,
            "zstd frame of plane " + p + " declares " + size + " bytes, the plane has " + planeLen);
      }
      int n;
      try {
        n = ctx.decompressByteArray(planes, p * planeLen, planeLen, src, srcAt, frameLength);
      } catch (RuntimeException e) {
        // zstd-jni throws ZstdException (not an error code) for damaged frames.
        throw new CorruptFileException(
            resource, at, "zstd frame of plane " + p + " does not inflate: " + e.getMessage(), e);
      }
      if (n != planeLen) {
        throw new CorruptFileException(
            resource, at, "zstd frame of plane " + p + " inflates to " + n + " of " + planeLen);
      }
    }
  }
}
