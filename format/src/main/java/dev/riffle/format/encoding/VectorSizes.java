package dev.riffle.format.encoding;

import org.apache.arrow.vector.DensityAwareVector;
import org.apache.arrow.vector.FieldVector;

/**
 * What decoding a batch will put into each vector of one codec's tree: value slots, and data bytes
 * of variable-width vectors. Filled by {@link ValueCodec#measure} from the bytes already read, then
 * used to give every result buffer its final size before decoding, so that no buffer is allocated
 * twice (growing by doubling copies the data again and faults in fresh pages each time).
 */
public final class VectorSizes {
  /** Largest slot count or byte count used to size a vector; beyond it Arrow's defaults apply. */
  static final long MAX = Integer.MAX_VALUE - 64;

  /** Slots (values, null or not) of this vector. */
  long values;

  /** Data bytes of a variable-width vector. */
  long bytes;

  final VectorSizes[] children;

  VectorSizes(VectorSizes... children) {
    this.children = children;
  }

  public VectorSizes child(int i) {
    return children[i];
  }

  public long values() {
    return values;
  }

  public long bytes() {
    return bytes;
  }

  /** Sets the slot count of the vector itself (a top-level vector has one slot per batch row). */
  public void setValues(long values) {
    this.values = values;
  }

  /**
   * Item slots of a list's items (the one child of a list or fixed-size list tree), or -1 when the
   * tree has no single child or they are more than Arrow can index.
   */
  public long itemSlots() {
    if (children.length != 1 || children[0].values > MAX) {
      return -1;
    }
    return Math.max(1, children[0].values);
  }

  /** The slot count to size a vector with: at least 1, and within what Arrow can index. */
  int slots() {
    return (int) Math.min(MAX, Math.max(1, values));
  }

  /** Sizes a variable-width vector for its slots and data bytes (too large: Arrow's defaults). */
  void sizeVariable(FieldVector v) {
    if (bytes > MAX) {
      v.setInitialCapacity(slots());
      return;
    }
    int n = slots();
    // setInitialCapacity(count, density) allocates (long) (count · density) bytes; the half byte
    // keeps the rounding of the division from losing the last byte.
    double density = (Math.max(1, bytes) + 0.5) / n;
    ((DensityAwareVector) v).setInitialCapacity(n, density);
  }
}
