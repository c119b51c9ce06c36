package dev.riffle.convert.h5ad;

import io.jhdf.exceptions.HdfFilterException;
import io.jhdf.filter.Filter;
import io.jhdf.filter.FilterManager;
import java.util.Arrays;

/**
 * The HDF5 LZF filter (id 32000, h5py's), decoding chunks whose uncompressed size is not recorded.
 * h5py stores variable-length string datasets with empty filter client data, and jhdf 0.13.0's own
 * filter reads the size from it and fails (ArrayIndexOutOfBoundsException); this one grows its
 * output instead, as h5py's C filter does. Chunks stored unfiltered are {@link FilterMasks}'s.
 */
final class LenientLzfFilter implements Filter {
  static final int ID = 32000;

  private static volatile boolean installed;

  /** Replaces jhdf's LZF filter, once per JVM. */
  static void install() {
    if (!installed) {
      synchronized (LenientLzfFilter.class) {
        if (!installed) {
          FilterManager.addFilter(new LenientLzfFilter());
          installed = true;
        }
      }
    }
  }

  @Override
  public int getId() {
    return ID;
  }

  @Override
  public String getName() {
    return "lzf";
  }

  @Override
  public byte[] decode(byte[] in, int[] clientData) {
    int known = clientData != null && clientData.length >= 3 ? clientData[2] : 0;
    // A chunk that LZF could not shrink never gets here: HDF5 stored it unfiltered and said so
    // in its filter mask, which FilterMasks honours. (Guessing from the size would be wrong: LZF
    // may shrink a chunk to exactly its size.)
    try {
      return decompress(in, known > 0 ? known : Math.max(64, in.length * 4));
    } catch (ArrayIndexOutOfBoundsException e) {
      throw new HdfFilterException("corrupt LZF chunk", e);
    }
  }

  /** liblzf's format: literal runs (control byte below 32) and back references. */
  static byte[] decompress(byte[] in, int sizeHint) {
    byte[] out = new byte[sizeHint];
    int ip = 0;
    int op = 0;
    while (ip < in.length) {
      int ctrl = in[ip++] & 0xff;
      if (ctrl < 32) {
        int len = ctrl + 1;
        out = ensure(out, op + len);
        System.arraycopy(in, ip, out, op, len);
        ip += len;
        op += len;
      } else {
        int len = ctrl >>> 5;
        int ref = op - ((ctrl & 0x1f) << 8) - 1;
        if (len == 7) {
          len += in[ip++] & 0xff;
        }
        ref -= in[ip++] & 0xff;
        len += 2;
        if (ref < 0) {
          throw new HdfFilterException("corrupt LZF chunk: back reference before the start");
        }
        out = ensure(out, op + len);
        // Byte by byte: the reference may overlap what it produces (runs).
        for (int i = 0; i < len; i++) {
          out[op++] = out[ref++];
        }
      }
    }
    return op == out.length ? out : Arrays.copyOf(out, op);
  }

  private static byte[] ensure(byte[] out, int size) {
    return size <= out.length ? out : Arrays.copyOf(out, Math.max(size, out.length * 2));
  }
}
