package dev.riffle.format.testing;

import java.util.Locale;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Floats and lists and structs of them compared bit for bit: validity at every level, list lengths
 * and the raw bits of every valid float, read from the vectors' buffers (a boxed float may not keep
 * a NaN's payload). Floats are written the same way, from raw bits.
 */
public final class FloatBits {
  private FloatBits() {}

  /** The first item of list {@code i} of a list, large list or fixed-size list vector. */
  public static long start(FieldVector v, int i) {
    if (v instanceof ListVector) {
      return v.getOffsetBuffer().getInt(4L * i);
    }
    if (v instanceof LargeListVector) {
      return v.getOffsetBuffer().getLong(8L * i);
    }
    return (long) i * ((FixedSizeListVector) v).getListSize();
  }

  /** The end of list {@code i}'s items. */
  public static long end(FieldVector v, int i) {
    if (v instanceof FixedSizeListVector f) {
      return (long) (i + 1) * f.getListSize();
    }
    return start(v, i + 1);
  }

  public static FieldVector items(FieldVector v) {
    if (v instanceof ListVector l) {
      return l.getDataVector();
    }
    if (v instanceof LargeListVector l) {
      return l.getDataVector();
    }
    return ((FixedSizeListVector) v).getDataVector();
  }

  /** The raw bits of valid float {@code t} (a float32's in the low 32 bits). */
  public static long bits(FieldVector items, long t) {
    return items instanceof Float4Vector
        ? items.getDataBuffer().getInt(4 * t) & 0xFFFFFFFFL
        : items.getDataBuffer().getLong(8 * t);
  }

  /** Sets float {@code t} to the raw {@code bits}, or to null. */
  public static void set(FieldVector items, int t, long bits, boolean isNull) {
    if (items instanceof Float4Vector f) {
      f.setSafe(t, 0f);
      f.getDataBuffer().setInt(4L * t, (int) bits);
      if (isNull) {
        f.setNull(t);
      }
    } else {
      Float8Vector d = (Float8Vector) items;
      d.setSafe(t, 0.0);
      d.getDataBuffer().setLong(8L * t, bits);
      if (isNull) {
        d.setNull(t);
      }
    }
  }

  /** The value and bits of {@code bits}, for a message. */
  public static String describe(long bits, boolean single) {
    return single
        ? String.format(Locale.ROOT, "%s (0x%08x)", Float.intBitsToFloat((int) bits), (int) bits)
        : String.format(Locale.ROOT, "%s (0x%016x)", Double.longBitsToDouble(bits), bits);
  }

  /**
   * Fails unless slot {@code g} of {@code got} is slot {@code w} of {@code want} bit for bit: a
   * float, or a list, fixed-size list or struct of them.
   *
   * @param what the read path, column and row, for the message
   */
  public static void assertSameValue(String what, FieldVector want, int w, FieldVector got, int g) {
    if (want.isNull(w) != got.isNull(g)) {
      throw new AssertionError(what + " is " + (want.isNull(w) ? "" : "not ") + "null");
    }
    if (want.isNull(w)) {
      return;
    }
    if (want instanceof Float4Vector || want instanceof Float8Vector) {
      boolean single = want instanceof Float4Vector;
      if (single != got instanceof Float4Vector) {
        throw new AssertionError(what + " read back as " + got.getField());
      }
      long a = bits(want, w);
      long b = bits(got, g);
      if (a != b) {
        throw new AssertionError(
            what + " is " + describe(a, single) + ", read back " + describe(b, single));
      }
    } else if (want instanceof StructVector s) {
      StructVector t = (StructVector) got;
      for (FieldVector child : s.getChildrenFromFields()) {
        String name = child.getName();
        assertSameValue(what + "." + name, child, w, (FieldVector) t.getChild(name), g);
      }
    } else {
      long ws = start(want, w);
      long wn = end(want, w) - ws;
      long gs = start(got, g);
      long gn = end(got, g) - gs;
      if (wn != gn) {
        throw new AssertionError(
            String.format(Locale.ROOT, "%s has %d items, read back %d", what, wn, gn));
      }
      FieldVector wi = items(want);
      FieldVector gi = items(got);
      for (long t = 0; t < wn; t++) {
        assertSameValue(
            what + "[" + t + " of " + wn + "]",
            wi,
            Math.toIntExact(ws + t),
            gi,
            Math.toIntExact(gs + t));
      }
    }
  }
}
