package dev.riffle.datagen;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code lance8}: the eight data types of the Lance paper's random-access benchmarks, one column
 * each, so that one file covers them all: {@code u64} (uint64, 10% nulls), {@code str16} (16
 * characters), {@code list_u64} (about 40 B a row), {@code list_str} (about 80 B), {@code vec768}
 * (3 KiB), {@code list_vec} (about 15 KiB), {@code bin20k} (20 KiB) and {@code list_bin} (about 100
 * KiB). Lists have 1 to 9 items, 5 on average. Rows are large (about 140 KiB), so keep row counts
 * small in tests.
 */
public final class Lance8Data implements SyntheticData {
  static final int STRING_CHARS = 16;
  static final int BINARY_BYTES = 20 * 1024;

  static final Schema SCHEMA =
      new Schema(
          List.of(
              Synth.nullable("u64", Synth.UINT64),
              Synth.notNull("str16", ArrowType.Utf8.INSTANCE),
              Synth.listOf("list_u64", Synth.notNull("item", Synth.UINT64)),
              Synth.listOf("list_str", Synth.notNull("item", ArrowType.Utf8.INSTANCE)),
              Synth.floatVector("vec768", VectorsData.DIM),
              Synth.listOf("list_vec", Synth.floatVector("item", VectorsData.DIM)),
              Synth.notNull("bin20k", ArrowType.Binary.INSTANCE),
              Synth.listOf("list_bin", Synth.notNull("item", ArrowType.Binary.INSTANCE))));

  private final Schema schema;

  /** All eight columns. */
  public Lance8Data() {
    this(null);
  }

  /**
   * Only the named columns (all if null), in the order given, so that narrow types can be generated
   * at the row counts their benchmarks need without the 140 KiB a row of the wide ones. Absent
   * columns draw nothing from the generator (present ones draw in the full schema's order, whatever
   * the order given), so that one column alone is the data of its type by itself.
   *
   * @throws IllegalArgumentException for a name that is not a lance8 column
   */
  public Lance8Data(List<String> columns) {
    if (columns == null) {
      schema = SCHEMA;
      return;
    }
    List<Field> fields = new ArrayList<>();
    for (String c : columns) {
      if (!ROW_BYTES.containsKey(c)) {
        throw new IllegalArgumentException(
            "lance8 has no column '" + c + "'; columns are " + names());
      }
      fields.add(SCHEMA.findField(c));
    }
    schema = new Schema(fields);
  }

  /** The column names, in schema order. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (Field f : SCHEMA.getFields()) {
      names.add(f.getName());
    }
    return names;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public int batchRows() {
    long rowBytes = 0;
    for (Field f : schema.getFields()) {
      rowBytes += ROW_BYTES.get(f.getName());
    }
    // A few MiB per batch whatever the columns.
    return (int) Math.max(32, Math.min(65_536, (4L << 20) / Math.max(1, rowBytes)));
  }

  /**
   * Approximate bytes of one row of a column, for batch sizes and row counts.
   *
   * @throws IllegalArgumentException for a name that is not a lance8 column
   */
  public static int rowBytes(String column) {
    Integer b = ROW_BYTES.get(column);
    if (b == null) {
      throw new IllegalArgumentException(
          "lance8 has no column '" + column + "'; columns are " + names());
    }
    return b;
  }

  private static final Map<String, Integer> ROW_BYTES =
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

  @Override
  public void fill(
      VectorSchemaRoot batch, long first, int count, long totalRows, SplittableRandom rng) {
    UInt8Vector u64 = (UInt8Vector) batch.getVector("u64");
    VarCharVector str16 = (VarCharVector) batch.getVector("str16");
    ListVector listU64 = (ListVector) batch.getVector("list_u64");
    ListVector listStr = (ListVector) batch.getVector("list_str");
    FixedSizeListVector vec768 = (FixedSizeListVector) batch.getVector("vec768");
    ListVector listVec = (ListVector) batch.getVector("list_vec");
    VarBinaryVector bin20k = (VarBinaryVector) batch.getVector("bin20k");
    ListVector listBin = (ListVector) batch.getVector("list_bin");
    for (int i = 0; i < count; i++) {
      // Absent columns (see the constructor) draw nothing from the generator.
      if (u64 != null) {
        if (rng.nextInt(10) == 0) {
          u64.setNull(i);
        } else {
          u64.setSafe(i, rng.nextLong());
        }
      }
      if (str16 != null) {
        str16.setSafe(i, Synth.alphanumeric(rng, STRING_CHARS));
      }
      if (listU64 != null) {
        UInt8Vector items = (UInt8Vector) listU64.getDataVector();
        int n = Synth.aboutFive(rng);
        int at = listU64.startNewValue(i);
        for (int k = 0; k < n; k++) {
          items.setSafe(at + k, rng.nextLong());
        }
        listU64.endValue(i, n);
      }
      if (listStr != null) {
        VarCharVector items = (VarCharVector) listStr.getDataVector();
        int n = Synth.aboutFive(rng);
        int at = listStr.startNewValue(i);
        for (int k = 0; k < n; k++) {
          items.setSafe(at + k, Synth.alphanumeric(rng, STRING_CHARS));
        }
        listStr.endValue(i, n);
      }
      if (vec768 != null) {
        Synth.fillVector(vec768, i, rng);
      }
      if (listVec != null) {
        FixedSizeListVector items = (FixedSizeListVector) listVec.getDataVector();
        int n = Synth.aboutFive(rng);
        int at = listVec.startNewValue(i);
        for (int k = 0; k < n; k++) {
          Synth.fillVector(items, at + k, rng);
        }
        listVec.endValue(i, n);
      }
      if (bin20k != null) {
        bin20k.setSafe(i, Synth.bytes(rng, BINARY_BYTES));
      }
      if (listBin != null) {
        VarBinaryVector items = (VarBinaryVector) listBin.getDataVector();
        int n = Synth.aboutFive(rng);
        int at = listBin.startNewValue(i);
        for (int k = 0; k < n; k++) {
          items.setSafe(at + k, Synth.bytes(rng, BINARY_BYTES));
        }
        listBin.endValue(i, n);
      }
    }
  }
}
