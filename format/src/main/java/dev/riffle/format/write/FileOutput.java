package dev.riffle.format.write;

import java.io.IOException;
import java.io.OutputStream;

/** A sequential byte sink that knows its position and pads to sector boundaries. */
final class FileOutput {
  private static final byte[] ZEROS = new byte[dev.riffle.format.FileLayout.SECTOR_BYTES];
  private final OutputStream out;
  private long position;

  FileOutput(OutputStream out) {
    this.out = out;
  }

  long position() {
    return position;
  }

  void write(byte[] b, int off, int len) throws IOException {
    out.write(b, off, len);
    position += len;
  }

  /** Pads with zeros to the next multiple of {@code alignment} and returns the new position. */
  long padTo(int alignment) throws IOException {
    int pad = (int) ((alignment - position % alignment) % alignment);
    write(ZEROS, 0, pad);
    return position;
  }

  long alignToSector() throws IOException {
    return padTo(dev.riffle.format.FileLayout.SECTOR_BYTES);
  }

  void flush() throws IOException {
    out.flush();
  }
}
