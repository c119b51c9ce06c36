package dev.riffle.format.encoding;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import org.apache.arrow.vector.FieldVector;

/**
 * Encodes one non-null value of an Arrow vector into a row record, and decodes it back into a
 * vector slot. Codecs nest the way Arrow types nest; the byte forms are specified in FORMAT.md §5
 * ("Row records").
 *
 * <p>{@code whole} is true when the value is the entire record: a variable-width value then omits
 * its length, which the page's offsets already give.
 */
public abstract class ValueCodec {

  /** Appends the non-null value at {@code index} of {@code vector} to {@code out}. */
  public abstract void encode(FieldVector vector, int index, ByteSink out, boolean whole);

  /** Decodes one value from {@code in} into slot {@code index} of {@code vector}. */
  public abstract void decode(RecordInput in, FieldVector vector, int index, boolean whole)
      throws CorruptFileException;

  /** Advances {@code in} past one encoded value. */
  public abstract void skip(RecordInput in, boolean whole) throws CorruptFileException;

  /** The encoded size of every value if it is constant, else -1. */
  public int fixedWidth() {
    return -1;
  }

  /**
   * Appends {@code count} non-null values starting at {@code start}. Codecs of fixed-width values
   * override this with one bulk copy, which is what makes long numeric lists cheap to encode.
   */
  public void encodeRun(FieldVector vector, int start, int count, ByteSink out) {
    for (int i = 0; i < count; i++) {
      encode(vector, start + i, out, false);
    }
  }

  /** Decodes {@code count} values into consecutive slots starting at {@code start}. */
  public void decodeRun(RecordInput in, FieldVector vector, int start, int count)
      throws CorruptFileException {
    for (int i = 0; i < count; i++) {
      decode(in, vector, start + i, false);
    }
  }

  /** A fresh, empty {@link VectorSizes} tree shaped like this codec's vector tree. */
  public VectorSizes newSizes() {
    return new VectorSizes();
  }

  /**
   * Reads past one encoded value, as {@link #skip} does, adding its slot and what it puts into
   * child vectors to {@code s}.
   */
  public void measure(RecordInput in, boolean whole, VectorSizes s) throws CorruptFileException {
    skip(in, whole);
    s.values++;
  }

  /** Measures {@code count} consecutive encoded values. */
  public void measureRun(RecordInput in, int count, VectorSizes s) throws CorruptFileException {
    for (int i = 0; i < count; i++) {
      measure(in, false, s);
    }
  }

  /**
   * Adds {@code count} values without reading them; only for codecs whose {@link #fixedWidth()} is
   * positive, whose sizes follow from the count alone.
   */
  public void addFixed(VectorSizes s, long count) {
    s.values += count;
  }

  /**
   * Adds one whole-form value that inflates to {@code size} bytes without reading it, if the size
   * alone determines what it adds (binary values, fixed-width values).
   *
   * @return false if the value would have to be inflated to be measured
   */
  public boolean measureInflated(long size, VectorSizes s) {
    if (fixedWidth() > 0) {
      addFixed(s, 1);
      return true;
    }
    return false;
  }

  /**
   * Adds to {@code s} an estimate of what {@code count} values in whole form (each the entire
   * record, not packed) will add when their records hold {@code bytes} bytes in all, if the byte
   * count alone gives one: a compressed sector tells its inflated size, not its records. For the
   * items of a list it is an upper bound only when they are not null (a null item costs one bit); a
   * vector the estimate leaves too small grows while decoding.
   *
   * @return false if the bytes say nothing useful (the defaults then size the vectors)
   */
  public boolean estimateRecords(long count, long bytes, VectorSizes s) {
    if (fixedWidth() > 0) {
      addFixed(s, count);
      return true;
    }
    return false;
  }

  /**
   * Sets the initial capacities of {@code v} and its children from {@code s}; the caller then
   * allocates {@code v} once, with {@code allocateNew()}.
   */
  public void presize(FieldVector v, VectorSizes s) {
    v.setInitialCapacity(s.slots());
  }

  /**
   * Whether this codec's tree holds a packable list (a list or large list of non-null integer-kind
   * items, or with {@code floats} (format 1.4) of non-null float32/float64 items), whose form a
   * packed record changes.
   */
  public boolean packs(boolean floats) {
    return false;
  }

  /**
   * Reads one value in plain form from {@code in} and appends it in packed-record form: packable
   * lists packed, everything else copied as it is.
   */
  public void pack(RecordInput in, ByteSink out, boolean whole) throws CorruptFileException {
    int from = in.position();
    skip(in, whole);
    copy(in, from, out);
  }

  /** Appends the bytes of {@code in} from {@code from} to its position. */
  static void copy(RecordInput in, int from, ByteSink out) {
    int n = in.position() - from;
    int at = out.reserve(n);
    in.buffer().get(from, out.array(), at, n);
  }

  /** Skips {@code count} encoded values. */
  public void skipRun(RecordInput in, int count) throws CorruptFileException {
    for (int i = 0; i < count; i++) {
      skip(in, false);
    }
  }
}
