package dev.riffle.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The eight data types of the Lance paper (lance8), one column per file, with the value
 * distributions of {@code riffle generate lance8} (cli {@code Lance8Data}/{@code Synth}, which are
 * package-private there and so re-stated here): {@code u64} uint64 with 10% nulls, {@code str16} 16
 * alphanumeric characters, lists of 1 to 9 items (5 on average), {@code vec768} FixedSizeList of
 * 768 float32 in [-1, 1), {@code bin20k} 20 KiB of random bytes. Every format is written from the
 * very same Arrow batches, so all hold identical rows.
 */
final class Lance8 {
  static final int DIM = 768;
  static final int BINARY_BYTES = 20 * 1024;
  static final ArrowType UINT64 = new ArrowType.Int(64, false);
  static final ArrowType FLOAT32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  static final List<String> TYPES =
      List.of("u64", "str16", "list_u64", "list_str", "vec768", "list_vec", "bin20k", "list_bin");

  /** Approximate bytes of one row, for batch sizes and default row counts. */
  static final Map<String, Integer> ROW_BYTES =
      Map.of(
          "u64",
          8,
          "str16",
          20,
          "list_u64",
          48,
          "list_str",
          100,
          "vec768",
          3072,
          "list_vec",
          15_400,
          "bin20k",
          20_480,
          "list_bin",
          102_400);

  private static final byte[] ALNUM =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
          .getBytes(StandardCharsets.US_ASCII);

  private Lance8() {}

  static boolean narrow(String type) {
    return ROW_BYTES.get(type) <= 100;
  }

  static Field field(String type) {
    switch (type) {
      case "u64":
        return new Field("u64", FieldType.nullable(UINT64), List.of());
      case "str16":
        return notNull("str16", ArrowType.Utf8.INSTANCE);
      case "list_u64":
        return listOf("list_u64", notNull("item", UINT64));
      case "list_str":
        return listOf("list_str", notNull("item", ArrowType.Utf8.INSTANCE));
      case "vec768":
        return vector("vec768");
      case "list_vec":
        return listOf("list_vec", vector("item"));
      case "bin20k":
        return notNull("bin20k", ArrowType.Binary.INSTANCE);
      case "list_bin":
        return listOf("list_bin", notNull("item", ArrowType.Binary.INSTANCE));
      default:
        throw new IllegalArgumentException("unknown type " + type + "; types are " + TYPES);
    }
  }

  private static Field notNull(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.notNullable(type), List.of(children));
  }

  private static Field listOf(String name, Field item) {
    return notNull(name, ArrowType.List.INSTANCE, item);
  }

  private static Field vector(String name) {
    return notNull(name, new ArrowType.FixedSizeList(DIM), notNull("item", FLOAT32));
  }

  /** Rows per batch: a few MiB whatever the type. */
  static int batchRows(String type) {
    return (int) Math.max(8, Math.min(65_536, (4L << 20) / ROW_BYTES.get(type)));
  }

  /** Fills rows [0, count) of {@code v} (freshly allocated) from {@code rng}. */
  static void fill(String type, FieldVector v, int count, SplittableRandom rng) {
    for (int i = 0; i < count; i++) {
      switch (type) {
        case "u64":
          if (rng.nextInt(10) == 0) {
            ((UInt8Vector) v).setNull(i);
          } else {
            ((UInt8Vector) v).setSafe(i, rng.nextLong());
          }
          break;
        case "str16":
          ((VarCharVector) v).setSafe(i, alphanumeric(rng, 16));
          break;
        case "vec768":
          fillVector((FixedSizeListVector) v, i, rng);
          break;
        case "bin20k":
          ((VarBinaryVector) v).setSafe(i, bytes(rng, BINARY_BYTES));
          break;
        default:
          ListVector list = (ListVector) v;
          int n = 1 + rng.nextInt(9);
          int at = list.startNewValue(i);
          FieldVector items = list.getDataVector();
          for (int k = 0; k < n; k++) {
            switch (type) {
              case "list_u64":
                ((UInt8Vector) items).setSafe(at + k, rng.nextLong());
                break;
              case "list_str":
                ((VarCharVector) items).setSafe(at + k, alphanumeric(rng, 16));
                break;
              case "list_vec":
                fillVector((FixedSizeListVector) items, at + k, rng);
                break;
              default:
                ((VarBinaryVector) items).setSafe(at + k, bytes(rng, BINARY_BYTES));
            }
          }
          list.endValue(i, n);
      }
    }
    v.setValueCount(count);
  }

  static void fillVector(FixedSizeListVector v, int index, SplittableRandom rng) {
    Float4Vector data = (Float4Vector) v.getDataVector();
    int start = v.startNewValue(index);
    for (int j = 0; j < DIM; j++) {
      data.setSafe(start + j, (float) (rng.nextDouble() * 2 - 1));
    }
  }

  private static byte[] alphanumeric(SplittableRandom rng, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = ALNUM[rng.nextInt(ALNUM.length)];
    }
    return b;
  }

  private static byte[] bytes(SplittableRandom rng, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i += 8) {
      long r = rng.nextLong();
      for (int k = 0; k < 8 && i + k < length; k++) {
        b[i + k] = (byte) (r >>> (8 * k));
      }
    }
    return b;
  }
}
