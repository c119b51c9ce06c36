package dev.riffle.format.encoding;

import dev.riffle.format.CorruptFileException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An immutable Elias-Fano coded non-decreasing sequence of non-negative longs, kept in RAM as a
 * search index (row to sector, row to byte offset).
 *
 * <p>Each value is split into {@code l} low bits, stored verbatim in a packed array, and a high
 * part {@code v >> l}, stored in unary as bit {@code (v >> l) + i} of a bit array with exactly one
 * set bit per value. With {@code l = floor(log2(U / n))} the high part of every value is below
 * {@code 2n}, so the sequence takes at most {@code l + 3} bits per value, and the high-bit array is
 * at least a third ones; that density is what lets a sample of every 256th one (and every 256th
 * zero) make {@link #get} and {@link #floorIndex} constant-time in expectation.
 *
 * <p>Serialized layout, little-endian:
 *
 * <pre>
 * u32 count n
 * u8  lowBits l      (l = n == 0 ? 0 : max(0, floor(log2(U / n))), capped at 62)
 * u8[3] reserved, zero
 * u64 universe U     (the last value; 0 when n == 0)
 * u64[ceil(n*l/64)]  low bits: value i's low l bits at bit position i*l, LSB-first across words
 * u64[ceil((n + (U >> l) + 1)/64)]  high bits: for value i, bit ((v_i >> l) + i) is set
 * </pre>
 *
 * Unused bits in the last word of either bit array are zero.
 *
 * <p>Why this file is long: the encoder, the serialized form with its checks, and the select and
 * search operations share one bit layout; split apart, each half would have to restate it.
 */
public final class EliasFano {

  private static final int HEADER_BYTES = 16;

  /** One sample per this many ones (zeros); a power of two so the sample index is a shift. */
  private static final int SAMPLE_SHIFT = 8;

  private static final int SAMPLE_MASK = (1 << SAMPLE_SHIFT) - 1;

  /** Object header, the scalar fields and the array references, rounded. */
  private static final long SHALLOW_BYTES = 56;

  /** Per-array header. */
  private static final long ARRAY_BYTES = 16;

  private final int n;
  private final int lowBits;
  private final long lowMask;
  private final long universe;
  private final long[] low;
  private final long[] high;

  /** Number of meaningful bits in {@link #high}: {@code n + (U >> l) + 1}. */
  private final long highLength;

  /** {@code selectOne[k]} is the bit position in {@link #high} of the one numbered {@code 256k}. */
  private final long[] selectOne;

  /**
   * {@code selectZero[k]} is the bit position in {@link #high} of the zero numbered {@code 256k}.
   */
  private final long[] selectZero;

  private EliasFano(int n, int lowBits, long universe, long[] low, long[] high, long highLength) {
    this.n = n;
    this.lowBits = lowBits;
    this.lowMask = lowBits == 0 ? 0 : (1L << lowBits) - 1;
    this.universe = universe;
    this.low = low;
    this.high = high;
    this.highLength = highLength;
    this.selectOne = new long[(n + SAMPLE_MASK) >>> SAMPLE_SHIFT];
    this.selectZero = new long[(int) ((highLength - n + SAMPLE_MASK) >>> SAMPLE_SHIFT)];
    buildSamples();
  }

  /**
   * Encodes {@code values[0..count)}.
   *
   * @throws IllegalArgumentException if {@code count} is negative or exceeds {@code values.length},
   *     a value is negative, the values decrease anywhere, or the serialized form would not fit in
   *     2 GiB
   */
  public static EliasFano of(long[] values, int count) {
    if (count < 0 || count > values.length) {
      throw new IllegalArgumentException(
          "count " + count + " outside [0, " + values.length + "] (array length)");
    }
    long prev = 0;
    for (int i = 0; i < count; i++) {
      long v = values[i];
      if (v < prev) {
        throw new IllegalArgumentException(
            v < 0
                ? "value " + v + " at index " + i + " is negative"
                : "value " + v + " at index " + i + " is less than its predecessor " + prev);
      }
      prev = v;
    }
    long universe = count == 0 ? 0 : values[count - 1];
    int l = lowBitsFor(count, universe);
    long lowWords = ceilDiv64((long) count * l);
    long highLength = count + (universe >>> l) + 1;
    long highWords = ceilDiv64(highLength);
    if (HEADER_BYTES + 8 * (lowWords + highWords) > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(count + " values would serialize to more than 2 GiB");
    }
    long[] low = new long[(int) lowWords];
    long[] high = new long[(int) highWords];
    long lowMask = l == 0 ? 0 : (1L << l) - 1;
    for (int i = 0; i < count; i++) {
      long v = values[i];
      if (l > 0) {
        long pos = (long) i * l;
        int wi = (int) (pos >>> 6);
        int off = (int) (pos & 63);
        long lo = v & lowMask;
        low[wi] |= lo << off;
        if (off + l > 64) {
          low[wi + 1] |= lo >>> (64 - off);
        }
      }
      long bit = (v >>> l) + i;
      high[(int) (bit >>> 6)] |= 1L << bit;
    }
    return new EliasFano(count, l, universe, low, high, highLength);
  }

  /**
   * The number of low bits the layout prescribes for {@code n} values whose last is {@code
   * universe}. Canonical widths are enforced on read because they bound the high-bit array to fewer
   * than {@code 3n + 1} bits, which is what keeps the select samples effective.
   */
  private static int lowBitsFor(long n, long universe) {
    if (n == 0) {
      return 0;
    }
    long ratio = universe / n;
    // floor(log2(U / n)) == floor(log2(floor(U / n))) for U / n >= 1; 0 when the ratio is below 1.
    int l = ratio == 0 ? 0 : 63 - Long.numberOfLeadingZeros(ratio);
    return Math.min(l, 62);
  }

  /** Number of bytes {@link #serialize} writes. */
  public int serializedBytes() {
    return HEADER_BYTES + 8 * (low.length + high.length);
  }

  /**
   * Writes the serialized form at {@code buf}'s position, advancing it by {@link
   * #serializedBytes()}. {@code buf} should be little-endian; the bytes written are little-endian
   * regardless, and the buffer's byte order is left unchanged.
   *
   * @throws BufferOverflowException if fewer than {@link #serializedBytes()} bytes remain; nothing
   *     is written in that case
   */
  public void serialize(ByteBuffer buf) {
    int size = serializedBytes();
    if (buf.remaining() < size) {
      throw new BufferOverflowException();
    }
    ByteBuffer b = littleEndian(buf);
    int p = buf.position();
    b.putInt(p, n);
    b.put(p + 4, (byte) lowBits);
    b.put(p + 5, (byte) 0);
    b.put(p + 6, (byte) 0);
    b.put(p + 7, (byte) 0);
    b.putLong(p + 8, universe);
    p += HEADER_BYTES;
    for (long word : low) {
      b.putLong(p, word);
      p += 8;
    }
    for (long word : high) {
      b.putLong(p, word);
      p += 8;
    }
    buf.position(p);
  }

  /**
   * Reads a serialized form at {@code buf}'s position, advancing the position past it on success
   * and leaving it unchanged on failure.
   *
   * <p>Every count, width and length is checked against {@code buf.remaining()} before anything is
   * allocated, and the decoded sequence is checked in full (one set high bit per value, zero
   * padding, canonical low-bit width, non-decreasing values ending exactly at the stored universe),
   * so a successfully read instance always answers {@link #get} and {@link #floorIndex} without
   * failing.
   *
   * @param buf the bytes; should be little-endian (other orders are read as little-endian too)
   * @param resource the file or object name, for error messages
   * @param fileOffset the absolute offset in {@code resource} of {@code buf}'s current position
   * @throws CorruptFileException if the bytes are not a valid serialized form; this is the only
   *     exception thrown for any buffer contents
   */
  public static EliasFano read(ByteBuffer buf, String resource, long fileOffset)
      throws CorruptFileException {
    ByteBuffer b = littleEndian(buf);
    int start = buf.position();
    int remaining = buf.remaining();
    if (remaining < HEADER_BYTES) {
      throw new CorruptFileException(
          resource,
          fileOffset + remaining,
          "Elias-Fano header needs " + HEADER_BYTES + " bytes, only " + remaining + " remain");
    }
    int n = b.getInt(start);
    if (n < 0) {
      throw new CorruptFileException(
          resource,
          fileOffset,
          "Elias-Fano count " + Integer.toUnsignedString(n) + " exceeds 2^31-1");
    }
    int l = b.get(start + 4) & 0xFF;
    for (int k = 5; k < 8; k++) {
      if (b.get(start + k) != 0) {
        throw new CorruptFileException(
            resource, fileOffset + k, "Elias-Fano reserved header byte is not zero");
      }
    }
    long universe = b.getLong(start + 8);
    if (universe < 0) {
      throw new CorruptFileException(
          resource,
          fileOffset + 8,
          "Elias-Fano universe " + Long.toUnsignedString(universe) + " exceeds 2^63-1");
    }
    if (n == 0 && universe != 0) {
      throw new CorruptFileException(
          resource, fileOffset + 8, "empty Elias-Fano sequence with universe " + universe);
    }
    int expectedL = lowBitsFor(n, universe);
    if (l != expectedL) {
      throw new CorruptFileException(
          resource,
          fileOffset + 4,
          "Elias-Fano low-bit width "
              + l
              + ", but "
              + n
              + " values up to "
              + universe
              + " need "
              + expectedL);
    }
    // With a canonical l, U >> l < 2n, so none of these can overflow a long.
    long lowWords = ceilDiv64((long) n * l);
    long highLength = n + (universe >>> l) + 1;
    long highWords = ceilDiv64(highLength);
    long needed = HEADER_BYTES + 8 * (lowWords + highWords);
    if (needed > remaining) {
      throw new CorruptFileException(
          resource,
          fileOffset + remaining,
          "Elias-Fano sequence of "
              + n
              + " values needs "
              + needed
              + " bytes, only "
              + remaining
              + " remain");
    }
    long[] low = new long[(int) lowWords];
    long[] high = new long[(int) highWords];
    int p = start + HEADER_BYTES;
    for (int k = 0; k < low.length; k++, p += 8) {
      low[k] = b.getLong(p);
    }
    int highStart = p;
    for (int k = 0; k < high.length; k++, p += 8) {
      high[k] = b.getLong(p);
    }
    long highRel = highStart - start;
    checkPadding(low, (long) n * l, resource, fileOffset + HEADER_BYTES, "low");
    checkPadding(high, highLength, resource, fileOffset + highRel, "high");
    long ones = 0;
    for (long word : high) {
      ones += Long.bitCount(word);
    }
    if (ones != n) {
      throw new CorruptFileException(
          resource,
          fileOffset + highRel,
          "Elias-Fano high bits hold " + ones + " ones for " + n + " values");
    }
    checkSequence(n, l, universe, low, high, resource, fileOffset + highRel);
    EliasFano ef = new EliasFano(n, l, universe, low, high, highLength);
    buf.position(start + (int) needed);
    return ef;
  }

  /** Rejects set bits at or beyond {@code bits} in the last word, where the layout wants zeros. */
  private static void checkPadding(
      long[] words, long bits, String resource, long arrayOffset, String which)
      throws CorruptFileException {
    int used = (int) (bits & 63);
    if (words.length == 0 || used == 0) {
      return;
    }
    if ((words[words.length - 1] & (-1L << used)) != 0) {
      throw new CorruptFileException(
          resource,
          arrayOffset + 8L * (words.length - 1),
          "Elias-Fano " + which + " bits have non-zero padding");
    }
  }

  /**
   * Decodes the whole sequence once and rejects it unless it is non-decreasing, non-negative and
   * ends exactly at the universe; that is what lets {@link #floorIndex} binary-search low bits
   * without re-checking.
   */
  private static void checkSequence(
      int n, int l, long universe, long[] low, long[] high, String resource, long highOffset)
      throws CorruptFileException {
    long lowMask = l == 0 ? 0 : (1L << l) - 1;
    long prev = 0;
    int i = 0;
    for (int wi = 0; wi < high.length; wi++) {
      for (long w = high[wi]; w != 0; w &= w - 1) {
        long pos = ((long) wi << 6) + Long.numberOfTrailingZeros(w);
        long v = ((pos - i) << l) | lowAt(low, i, l, lowMask);
        if (v < prev) {
          throw new CorruptFileException(
              resource,
              highOffset + 8L * wi,
              "Elias-Fano value " + i + " decodes to " + v + ", below its predecessor " + prev);
        }
        prev = v;
        i++;
      }
    }
    if (prev != universe) {
      throw new CorruptFileException(
          resource,
          highOffset,
          "Elias-Fano last value decodes to " + prev + ", but the universe is " + universe);
    }
  }

  /** Number of values. */
  public int size() {
    return n;
  }

  /**
   * The value at index {@code i}, in expected constant time.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < size()}
   */
  public long get(int i) {
    if (i < 0 || i >= n) {
      throw new IndexOutOfBoundsException("index " + i + " outside [0, " + n + ")");
    }
    return ((selectOne(i) - i) << lowBits) | lowAt(low, i, lowBits, lowMask);
  }

  /**
   * {@code get(i)} into {@code out[0]} and {@code get(i + 1)} into {@code out[1]}, with one select:
   * the next value's high bits follow from the next set bit, usually in the same word. This is the
   * byte range of record {@code i} in an offset index, asked once per row of every take.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < size() - 1}
   */
  public void getPair(int i, long[] out) {
    if (i < 0 || i + 1 >= n) {
      throw new IndexOutOfBoundsException("pair at " + i + " outside [0, " + (n - 1) + ")");
    }
    long p = selectOne(i);
    int wi = (int) (p >>> 6);
    // Bits above p in its word (none when p is the word's top bit).
    long w = (p & 63) == 63 ? 0 : high[wi] & (-2L << (p & 63));
    while (w == 0) {
      w = high[++wi];
    }
    long q = ((long) wi << 6) + Long.numberOfTrailingZeros(w);
    out[0] = ((p - i) << lowBits) | lowAt(low, i, lowBits, lowMask);
    out[1] = ((q - i - 1) << lowBits) | lowAt(low, i + 1, lowBits, lowMask);
  }

  /**
   * The largest index {@code i} with {@code get(i) <= x}, or -1 if every value exceeds {@code x}.
   * When values repeat, this is the last of the equal ones.
   */
  public int floorIndex(long x) {
    if (n == 0 || x < 0) {
      return -1;
    }
    if (x >= universe) {
      return n - 1;
    }
    // Zero number h ends bucket h (the values whose high part is h), so the values with high part
    // hx are exactly the ones between zeros hx-1 and hx. Only their low bits need comparing.
    long hx = x >>> lowBits;
    long from = hx == 0 ? 0 : selectZero(hx - 1) - (hx - 1);
    long to = selectZero(hx) - hx;
    long xl = x & lowMask;
    int a = (int) from;
    int b = (int) to;
    while (a < b) {
      int mid = (a + b) >>> 1;
      if (lowAt(low, mid, lowBits, lowMask) <= xl) {
        a = mid + 1;
      } else {
        b = mid;
      }
    }
    return a - 1;
  }

  /**
   * Approximate heap bytes held by this instance: the low and high bit arrays, both select samples,
   * and the object itself.
   */
  public long ramBytes() {
    return SHALLOW_BYTES
        + 4 * ARRAY_BYTES
        + 8L * (low.length + high.length + selectOne.length + selectZero.length);
  }

  @Override
  public String toString() {
    return "EliasFano[size=" + n + ", lowBits=" + lowBits + ", universe=" + universe + "]";
  }

  private void buildSamples() {
    long ones = 0;
    long zeros = 0;
    int nextOne = 0;
    int nextZero = 0;
    int lastWord = high.length - 1;
    int used = (int) (highLength & 63);
    long lastValid = used == 0 ? -1L : (1L << used) - 1;
    for (int wi = 0; wi <= lastWord; wi++) {
      long w = high[wi];
      // Padding is zero, so without this mask it would be sampled as bucket separators.
      long z = ~w & (wi == lastWord ? lastValid : -1L);
      int c1 = Long.bitCount(w);
      int c0 = Long.bitCount(z);
      // A sample falls every 256 ones (zeros) and a word has at most 64, so at most one per word.
      if (nextOne < selectOne.length && ones + c1 > ((long) nextOne << SAMPLE_SHIFT)) {
        int r = (int) (((long) nextOne << SAMPLE_SHIFT) - ones);
        selectOne[nextOne++] = ((long) wi << 6) + select64(w, r);
      }
      if (nextZero < selectZero.length && zeros + c0 > ((long) nextZero << SAMPLE_SHIFT)) {
        int r = (int) (((long) nextZero << SAMPLE_SHIFT) - zeros);
        selectZero[nextZero++] = ((long) wi << 6) + select64(z, r);
      }
      ones += c1;
      zeros += c0;
    }
  }

  /** Bit position of the one numbered {@code i} (0-based) in {@link #high}. */
  private long selectOne(int i) {
    long start = selectOne[i >>> SAMPLE_SHIFT];
    int rank = i & SAMPLE_MASK;
    int wi = (int) (start >>> 6);
    long w = high[wi] & (-1L << start);
    while (true) {
      int c = Long.bitCount(w);
      if (rank < c) {
        return ((long) wi << 6) + select64(w, rank);
      }
      rank -= c;
      w = high[++wi];
    }
  }

  /** Bit position of the zero numbered {@code k} (0-based) in {@link #high}; k <= U >> l. */
  private long selectZero(long k) {
    long start = selectZero[(int) (k >>> SAMPLE_SHIFT)];
    int rank = (int) (k & SAMPLE_MASK);
    int wi = (int) (start >>> 6);
    long w = ~high[wi] & (-1L << start);
    while (true) {
      int c = Long.bitCount(w);
      if (rank < c) {
        return ((long) wi << 6) + select64(w, rank);
      }
      rank -= c;
      w = ~high[++wi];
    }
  }

  private static long lowAt(long[] low, int i, int l, long lowMask) {
    if (l == 0) {
      return 0;
    }
    long pos = (long) i * l;
    int wi = (int) (pos >>> 6);
    int off = (int) (pos & 63);
    long v = low[wi] >>> off;
    if (off + l > 64) {
      v |= low[wi + 1] << (64 - off);
    }
    return v & lowMask;
  }

  /** Position of the set bit numbered {@code rank} (0-based) in {@code w}; it must exist. */
  private static int select64(long w, int rank) {
    // Halve the search range by popcount first, then clear the few remaining lower ones; this
    // keeps the loop to at most 7 iterations instead of up to 63.
    int pos = 0;
    int c = Long.bitCount(w & 0xFFFF_FFFFL);
    if (rank >= c) {
      rank -= c;
      w >>>= 32;
      pos += 32;
    }
    c = Long.bitCount(w & 0xFFFFL);
    if (rank >= c) {
      rank -= c;
      w >>>= 16;
      pos += 16;
    }
    c = Long.bitCount(w & 0xFFL);
    if (rank >= c) {
      rank -= c;
      w >>>= 8;
      pos += 8;
    }
    for (; rank > 0; rank--) {
      w &= w - 1;
    }
    return pos + Long.numberOfTrailingZeros(w);
  }

  private static long ceilDiv64(long bits) {
    return (bits + 63) >>> 6;
  }

  private static ByteBuffer littleEndian(ByteBuffer buf) {
    return buf.order() == ByteOrder.LITTLE_ENDIAN
        ? buf
        : buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
  }
}
