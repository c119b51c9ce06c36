package dev.riffle.bench;

import dev.riffle.datagen.VectorsData;
import java.util.List;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.parquet.example.data.Group;

/**
 * A 64-bit digest of one row, computed the same way from an Arrow batch and from a Parquet-MR
 * {@link Group}, so that the formats' takes can be compared without keeping values. A column's
 * value kind is its lance8 type name, {@code i32}, {@code float}, or a list of one ({@code
 * list_i32}, {@code list_f32}, ...).
 */
final class Fingerprint {
  private static final long NULL = 0x9E3779B97F4A7C15L;

  private Fingerprint() {}

  static long mix(long h, long x) {
    h ^= x + 0x9E3779B97F4A7C15L + (h << 6) + (h >>> 2);
    return h * 0xBF58476D1CE4E5B9L;
  }

  static long bytes(long h, byte[] b) {
    h = mix(h, b.length);
    for (byte x : b) {
      h = mix(h, x);
    }
    return h;
  }

  /** The digest of row {@code i} of a batch of {@code type} (every column, in order). */
  static long of(String type, VectorSchemaRoot root, int i) {
    List<String> kinds = Types.kinds(type);
    long h = 17;
    for (int f = 0; f < kinds.size(); f++) {
      h = arrow(kinds.get(f), root.getVector(f), i, h);
    }
    return h;
  }

  private static long arrow(String type, FieldVector v, int i, long h) {
    switch (type) {
      case "u64":
        return v.isNull(i) ? mix(h, NULL) : mix(h, ((UInt8Vector) v).get(i));
      case "str16":
      case "bin20k":
      case "str":
      case "bin":
        return bytes(h, ((BaseVariableWidthVector) v).get(i));
      case "i32":
        return mix(h, ((IntVector) v).get(i));
      case "float":
        return mix(h, Float.floatToRawIntBits(((Float4Vector) v).get(i)));
      case "vec768":
        {
          FixedSizeListVector f = (FixedSizeListVector) v;
          Float4Vector d = (Float4Vector) f.getDataVector();
          int m = f.getListSize();
          h = mix(h, m);
          for (int k = 0; k < m; k++) {
            h = mix(h, Float.floatToRawIntBits(d.get(i * m + k)));
          }
          return h;
        }
      default:
        {
          ListVector l = (ListVector) v;
          int s = l.getElementStartIndex(i);
          int e = l.getElementEndIndex(i);
          h = mix(h, e - s);
          String item = itemKind(type);
          for (int k = s; k < e; k++) {
            h = arrow(item, l.getDataVector(), k, h);
          }
          return h;
        }
    }
  }

  /** The value kind of a list kind's items. */
  static String itemKind(String listKind) {
    switch (listKind) {
      case "list_u64":
        return "u64";
      case "list_i32":
        return "i32";
      case "list_f32":
        return "float";
      case "list_str":
        return "str";
      case "list_vec":
        return "vec768";
      case "list_bin":
        return "bin";
      default:
        throw new IllegalArgumentException(listKind);
    }
  }

  /** The digest of a row of {@code type} read by Parquet-MR (every field, in order). */
  static long of(String type, Group g) {
    List<String> kinds = Types.kinds(type);
    long h = 17;
    for (int f = 0; f < kinds.size(); f++) {
      h = parquet(kinds.get(f), g, f, 0, h);
    }
    return h;
  }

  private static long parquet(String type, Group g, int field, int index, long h) {
    switch (type) {
      case "u64":
        return g.getFieldRepetitionCount(field) == 0
            ? mix(h, NULL)
            : mix(h, g.getLong(field, index));
      case "str16":
      case "bin20k":
      case "str":
      case "bin":
        return bytes(h, g.getBinary(field, index).getBytes());
      case "i32":
        return mix(h, g.getInteger(field, index));
      case "float":
        return mix(h, Float.floatToRawIntBits(g.getFloat(field, index)));
      default:
        {
          // A 3-level LIST: group (LIST) { repeated group list { element } }.
          Group list = g.getGroup(field, index);
          int n = list.getFieldRepetitionCount(0);
          h = mix(h, type.equals("vec768") ? VectorsData.DIM : n);
          if (type.equals("vec768")) {
            for (int k = 0; k < n; k++) {
              h = parquet("float", list.getGroup(0, k), 0, 0, h);
            }
            return h;
          }
          String item = itemKind(type);
          for (int k = 0; k < n; k++) {
            h = parquet(item, list.getGroup(0, k), 0, 0, h);
          }
          return h;
        }
    }
  }
}
