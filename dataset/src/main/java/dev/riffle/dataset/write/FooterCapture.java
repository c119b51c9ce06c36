package dev.riffle.dataset.write;

import dev.riffle.dataset.DatasetLayout;
import dev.riffle.dataset.Manifest;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.FooterLayout;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Passes a data file's bytes through on their way to storage, keeping the last {@value
 * FooterLayout#FOOTER_BYTES}: the file's footer, whose CRC32C the manifest records (FORMAT.md
 * §11.2, {@code footerCrc32c}) so that a reader can tell the file from any other when it opens it.
 * Capturing it here costs no read back, which on an object store would be a round trip per file.
 * {@link #close()} only flushes: the caller closes the storage stream.
 */
final class FooterCapture extends FilterOutputStream {
  private final byte[] tail = new byte[FooterLayout.FOOTER_BYTES];
  private int filled;
  private long count;

  FooterCapture(OutputStream out) {
    super(Objects.requireNonNull(out));
  }

  /**
   * The schema a data file at {@code path} is written with: the dataset's, with the file's path
   * added to its metadata ({@link DatasetLayout#FILE_PATH_KEY}). Files of identical rows and layout
   * would otherwise have identical footers (and, by the CRC residue of checksummed sectors,
   * identical page CRCs), so that their footer CRCs could not tell them apart.
   */
  static Schema named(Schema schema, String path) {
    Map<String, String> metadata = new HashMap<>();
    if (schema.getCustomMetadata() != null) {
      metadata.putAll(schema.getCustomMetadata());
    }
    metadata.put(DatasetLayout.FILE_PATH_KEY, path);
    return new Schema(schema.getFields(), metadata);
  }

  @Override
  public void write(int b) throws IOException {
    out.write(b);
    keep(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len);
    keep(b, off, len);
  }

  private void keep(byte[] b, int off, int len) {
    int n = tail.length;
    if (len >= n) {
      System.arraycopy(b, off + len - n, tail, 0, n);
      filled = n;
    } else {
      int stay = Math.min(filled, n - len);
      System.arraycopy(tail, filled - stay, tail, 0, stay);
      System.arraycopy(b, off, tail, stay, len);
      filled = stay + len;
    }
    count += len;
  }

  /**
   * The footer CRC32C of the file written, as the manifest records it, after checking that its last
   * bytes are a footer (magic and CRC).
   *
   * @param resource the file's name, for messages
   */
  String footerCrcHex(String resource) throws CorruptFileException {
    if (filled < tail.length) {
      throw new CorruptFileException(resource, 0, "only " + count + " bytes written: no footer");
    }
    ByteBuffer b = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN);
    FooterLayout.read(b, 0, resource, count - tail.length);
    return Manifest.DataFile.crcHex(b.getInt(FooterLayout.FOOTER_CRC));
  }

  @Override
  public void close() throws IOException {
    flush();
  }
}
