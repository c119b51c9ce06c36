package dev.riffle.datagen;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Building blocks of the synthetic datasets: field constructors and random values. Random values
 * are incompressible on purpose, so that file sizes match the raw data sizes they stand for.
 * Transcendental functions use {@link StrictMath}, whose results do not depend on the CPU or JIT
 * (unlike {@link Math}'s intrinsics), so that a seed gives the same file on every machine.
 */
final class Synth {
  static final ArrowType UINT64 = new ArrowType.Int(64, false);
  static final ArrowType INT32 = new ArrowType.Int(32, true);
  static final ArrowType INT8 = new ArrowType.Int(8, true);
  static final ArrowType FLOAT32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  static final ArrowType FLOAT64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  private static final byte[] LOWER =
      "abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ALNUM =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
          .getBytes(StandardCharsets.US_ASCII);

  private Synth() {}

  static Field notNull(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.notNullable(type), List.of(children));
  }

  static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), List.of());
  }

  /** A non-null list of non-null items. */
  static Field listOf(String name, Field item) {
    return notNull(name, ArrowType.List.INSTANCE, item);
  }

  /**
   * A non-null dictionary-encoded field as it appears in an Arrow batch: with its index type; the
   * encoding names the dictionary.
   */
  static Field categorical(String name, DictionaryEncoding encoding) {
    return new Field(
        name, new FieldType(false, encoding.getIndexType(), encoding, null), List.of());
  }

  /** A utf8 vector of {@code values}, e.g. a dictionary's. */
  static VarCharVector strings(String name, String[] values, BufferAllocator allocator) {
    VarCharVector v = new VarCharVector(name, allocator);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
    }
    v.setValueCount(values.length);
    return v;
  }

  /** Closes the vectors of every dictionary in {@code dictionaries}. */
  static void close(DictionaryProvider.MapDictionaryProvider dictionaries) {
    for (long id : dictionaries.getDictionaryIds()) {
      dictionaries.lookup(id).getVector().close();
    }
  }

  /** A non-null fixed-size list of non-null float32. */
  static Field floatVector(String name, int size) {
    return notNull(name, new ArrowType.FixedSizeList(size), notNull("item", FLOAT32));
  }

  /** A float in [-1, 1) with a random mantissa. */
  static float unitFloat(SplittableRandom rng) {
    return (float) (rng.nextDouble() * 2 - 1);
  }

  /** Fills entry {@code index} of a fixed-size float list with random values. */
  static void fillVector(FixedSizeListVector v, int index, SplittableRandom rng) {
    Float4Vector data = (Float4Vector) v.getDataVector();
    int start = v.startNewValue(index);
    for (int j = 0; j < v.getListSize(); j++) {
      data.setSafe(start + j, unitFloat(rng));
    }
  }

  /** A standard normal deviate (Box-Muller; one of each pair is dropped, for simplicity). */
  static double gaussian(SplittableRandom rng) {
    double u = 1.0 - rng.nextDouble(); // in (0, 1], so the log is finite
    double v = rng.nextDouble();
    return StrictMath.sqrt(-2 * StrictMath.log(u)) * StrictMath.cos(2 * StrictMath.PI * v);
  }

  /** An item count in [1, 9], 5 on average: the "about five per row" of the Lance benchmarks. */
  static int aboutFive(SplittableRandom rng) {
    return 1 + rng.nextInt(9);
  }

  static byte[] lowercase(SplittableRandom rng, int length) {
    return pick(rng, LOWER, length);
  }

  static byte[] alphanumeric(SplittableRandom rng, int length) {
    return pick(rng, ALNUM, length);
  }

  private static byte[] pick(SplittableRandom rng, byte[] alphabet, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = alphabet[rng.nextInt(alphabet.length)];
    }
    return b;
  }

  static byte[] bytes(SplittableRandom rng, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i += 8) {
      long r = rng.nextLong();
      for (int k = 0; k < 8 && i + k < length; k++) {
        b[i + k] = (byte) (r >>> (8 * k));
      }
    }
    return b;
  }

  /**
   * Writes {@code k} distinct integers from {@code [0, universe)} in increasing order into {@code
   * out} (Floyd's sampling: k draws, whatever the universe).
   *
   * @param scratch a bit set of at least {@code universe} bits, cleared on return
   */
  static void sortedSample(SplittableRandom rng, int universe, int k, BitSet scratch, int[] out) {
    for (int j = universe - k; j < universe; j++) {
      int t = rng.nextInt(j + 1);
      scratch.set(scratch.get(t) ? j : t);
    }
    int n = 0;
    for (int b = scratch.nextSetBit(0); b >= 0; b = scratch.nextSetBit(b + 1)) {
      out[n++] = b;
    }
    scratch.clear();
  }
}
