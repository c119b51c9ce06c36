package dev.riffle.bench;

import java.util.List;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.parquet.example.data.Group;

/**
 * A 64-bit digest of one row's value, computed the same way from an Arrow vector and from a
 * Parquet-MR {@link Group}, so that the formats' takes can be compared without keeping values.
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

  /** The digest of row {@code i} of a lance8 column. */
  static long of(String type, FieldVector v, int i) {
    return arrow(type, v, i, 17);
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
          String item = itemType(type);
          for (int k = s; k < e; k++) {
            h = arrow(item, l.getDataVector(), k, h);
          }
          return h;
        }
    }
  }

  private static String itemType(String listType) {
    switch (listType) {
      case "list_u64":
        return "u64";
      case "list_str":
        return "str";
      case "list_vec":
        return "vec768";
      case "list_bin":
        return "bin";
      default:
        throw new IllegalArgumentException(listType);
    }
  }

  /** The digest of a lance8 row read by Parquet-MR (field 0 of the record). */
  static long of(String type, Group g) {
    return parquet(type, g, 0, 0, 17);
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
      case "float":
        return mix(h, Float.floatToRawIntBits(g.getFloat(field, index)));
      default:
        {
          // A 3-level LIST: group (LIST) { repeated group list { element } }.
          Group list = g.getGroup(field, index);
          int n = list.getFieldRepetitionCount(0);
          h = mix(h, type.equals("vec768") ? Lance8.DIM : n);
          if (type.equals("vec768")) {
            for (int k = 0; k < n; k++) {
              h = parquet("float", list.getGroup(0, k), 0, 0, h);
            }
            return h;
          }
          String item = itemType(type);
          for (int k = 0; k < n; k++) {
            h = parquet(item, list.getGroup(0, k), 0, 0, h);
          }
          return h;
        }
    }
  }

  static List<String> types() {
    return Lance8.TYPES;
  }
}
