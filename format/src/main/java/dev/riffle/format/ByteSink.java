package dev.riffle.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growable little-endian byte buffer that encoders append to. Writers reuse one sink per column
 * so that encoding a row allocates nothing once the sink has grown to a page.
 */
public final class ByteSink {
  private byte[] bytes;
  private int length;

  /** Creates an empty sink with a small initial capacity. */
  public ByteSink() {
    this(256);
  }

  /** Creates an empty sink with the given initial capacity in bytes. */
  public ByteSink(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  /** Bytes written so far. */
  public int length() {
    return length;
  }

  /** The backing array; only {@code [0, length())} is meaningful. */
  public byte[] array() {
    return bytes;
  }

  /** Forgets the content, keeping the capacity. */
  public void clear() {
    length = 0;
  }

  /** Cuts the content back to {@code newLength} bytes. */
  public void truncate(int newLength) {
    if (newLength < 0 || newLength > length) {
      throw new IllegalArgumentException("truncate to " + newLength + " of " + length);
    }
    length = newLength;
  }

  /** Makes room for {@code n} more bytes and returns the position they start at. */
  public int reserve(int n) {
    int start = length;
    ensure(n);
    length += n;
    return start;
  }

  private void ensure(int n) {
    int need = Math.addExact(length, n);
    if (need > bytes.length) {
      long grown = Math.max(need, (long) bytes.length * 2);
      // Arrays larger than this are refused by most JVMs; fail with a clear message instead.
      if (grown > Integer.MAX_VALUE - 16) {
        grown = need;
      }
      bytes = Arrays.copyOf(bytes, (int) grown);
    }
  }

  public void put(byte b) {
    ensure(1);
    bytes[length++] = b;
  }

  public void put(byte[] src, int offset, int n) {
    ensure(n);
    System.arraycopy(src, offset, bytes, length, n);
    length += n;
  }

  /** Appends the remaining bytes of {@code src} without moving its position. */
  public void put(ByteBuffer src) {
    int n = src.remaining();
    ensure(n);
    src.duplicate().get(bytes, length, n);
    length += n;
  }

  public void putZeros(int n) {
    ensure(n);
    Arrays.fill(bytes, length, length + n, (byte) 0);
    length += n;
  }

  public void putShort(int v) {
    ensure(2);
    bytes[length++] = (byte) v;
    bytes[length++] = (byte) (v >>> 8);
  }

  public void putInt(int v) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      bytes[length++] = (byte) (v >>> (8 * i));
    }
  }

  public void putLong(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      bytes[length++] = (byte) (v >>> (8 * i));
    }
  }

  /** Writes the low {@code width} bytes of {@code v}, little-endian. */
  public void putLongBytes(long v, int width) {
    ensure(width);
    for (int i = 0; i < width; i++) {
      bytes[length++] = (byte) (v >>> (8 * i));
    }
  }

  /** Unsigned LEB128: 7 bits per byte, high bit set on all but the last byte. */
  public void putVarint(long v) {
    if (v < 0) {
      throw new IllegalArgumentException("negative varint " + v);
    }
    while (v >= 0x80) {
      put((byte) (v | 0x80));
      v >>>= 7;
    }
    put((byte) v);
  }

  public void putShortAt(int position, int v) {
    bytes[position] = (byte) v;
    bytes[position + 1] = (byte) (v >>> 8);
  }

  public void putIntAt(int position, int v) {
    for (int i = 0; i < 4; i++) {
      bytes[position + i] = (byte) (v >>> (8 * i));
    }
  }

  /** A little-endian view of the content (shares the array). */
  public ByteBuffer view() {
    return ByteBuffer.wrap(bytes, 0, length).slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  /** A copy of the content. */
  public byte[] toByteArray() {
    return Arrays.copyOf(bytes, length);
  }
}
