package dev.riffle.dataset;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import org.roaringbitmap.longlong.Roaring64Bitmap;

/**
 * Sets of global row ids as they appear in manifests: the portable 64-bit Roaring format (the
 * RoaringFormatSpec's 64-bit extension), base64-encoded, so that any Roaring implementation reads
 * them.
 */
public final class RowSets {
  private RowSets() {}

  /** Encodes a set (run-optimized first, for size). */
  public static String encode(Roaring64Bitmap rows) {
    Roaring64Bitmap copy = rows.clone();
    copy.runOptimize();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      copy.serializePortable(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  /**
   * Decodes a set.
   *
   * @throws IOException if the text is not base64 or not a portable bitmap
   */
  public static Roaring64Bitmap decode(String text) throws IOException {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new IOException("row set is not base64: " + e.getMessage(), e);
    }
    Roaring64Bitmap rows = new Roaring64Bitmap();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      rows.deserializePortable(in);
      if (in.available() != 0) {
        throw new IOException(in.available() + " trailing bytes after the row set");
      }
    } catch (RuntimeException e) {
      // The library validates keys but may still trip over hostile container contents.
      throw new IOException("row set does not decode: " + e, e);
    }
    return rows;
  }

  /** The rows {@code [0, n)}. */
  public static Roaring64Bitmap range(long n) {
    Roaring64Bitmap r = new Roaring64Bitmap();
    if (n > 0) {
      r.addRange(0, n);
    }
    return r;
  }
}
