package dev.riffle.bench;

import dev.riffle.format.write.WriterOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Every data type the comparison runner writes: the eight {@link Lance8} types (one column named
 * like the type) and the {@link MlTypes} shapes (several columns).
 */
final class Types {
  static final List<String> ALL;

  static {
    List<String> all = new ArrayList<>(Lance8.TYPES);
    all.addAll(MlTypes.TYPES);
    ALL = List.copyOf(all);
  }

  private Types() {}

  static boolean lance8(String type) {
    return Lance8.TYPES.contains(type);
  }

  /**
   * @throws IllegalArgumentException for an unknown type, naming the known ones
   */
  static Schema schema(String type) {
    if (lance8(type)) {
      return new Schema(List.of(Lance8.field(type)));
    }
    if (MlTypes.TYPES.contains(type)) {
      return MlTypes.schema(type);
    }
    throw new IllegalArgumentException("unknown type " + type + "; types are " + ALL);
  }

  /** The value kind of each column, in schema order (see {@link Fingerprint}). */
  static List<String> kinds(String type) {
    return lance8(type) ? List.of(type) : MlTypes.kinds(type);
  }

  static int rowBytes(String type) {
    return lance8(type) ? Lance8.ROW_BYTES.get(type) : MlTypes.rowBytes(type);
  }

  /** Narrow types get the large default row count (coalescing must not flatter anyone). */
  static boolean narrow(String type) {
    return rowBytes(type) <= 100;
  }

  /** Rows per batch: a few MiB whatever the type. */
  static int batchRows(String type) {
    return (int) Math.max(8, Math.min(65_536, (4L << 20) / rowBytes(type)));
  }

  /**
   * The column of a one-column scan, or null where the file has one column (a one-column scan is
   * then the full scan).
   */
  static String labelColumn(String type) {
    return lance8(type) ? null : MlTypes.labelColumn(type);
  }

  /** The writer options of {@code riffle generate} for the type, on top of {@code base}. */
  static WriterOptions riffleOptions(String type, WriterOptions base) {
    return type.equals("sparse") ? base.withColumnGroup("indices", "values") : base;
  }

  /** Fills rows [0, count) of {@code root}, rows [first, first + count) of a file of total. */
  static void fill(
      String type, VectorSchemaRoot root, long first, int count, long total, SplittableRandom rng) {
    if (lance8(type)) {
      Lance8.fill(type, root.getVector(0), count, rng);
      root.setRowCount(count);
    } else {
      MlTypes.fill(type, root, first, count, total, rng);
    }
  }
}
