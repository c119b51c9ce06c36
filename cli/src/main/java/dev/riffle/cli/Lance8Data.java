package dev.riffle.cli;

import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * {@code lance8}: the eight data types of the Lance paper's random-access benchmarks, one column
 * each, so that one file covers them all: {@code u64} (uint64, 10% nulls), {@code str16} (16
 * characters), {@code list_u64} (about 40 B a row), {@code list_str} (about 80 B), {@code vec768}
 * (3 KiB), {@code list_vec} (about 15 KiB), {@code bin20k} (20 KiB) and {@code list_bin} (about 100
 * KiB). Lists have 1 to 9 items, 5 on average. Rows are large (about 140 KiB), so keep row counts
 * small in tests.
 */
final class Lance8Data implements SyntheticData {
  static final int STRING_CHARS = 16;
  static final int BINARY_BYTES = 20 * 1024;

  private static final Schema SCHEMA =
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

  @Override
  public Schema schema() {
    return SCHEMA;
  }

  @Override
  public int batchRows() {
    return 32;
  }

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
    UInt8Vector listU64Items = (UInt8Vector) listU64.getDataVector();
    VarCharVector listStrItems = (VarCharVector) listStr.getDataVector();
    FixedSizeListVector listVecItems = (FixedSizeListVector) listVec.getDataVector();
    VarBinaryVector listBinItems = (VarBinaryVector) listBin.getDataVector();
    for (int i = 0; i < count; i++) {
      if (rng.nextInt(10) == 0) {
        u64.setNull(i);
      } else {
        u64.setSafe(i, rng.nextLong());
      }
      str16.setSafe(i, Synth.alphanumeric(rng, STRING_CHARS));

      int n = Synth.aboutFive(rng);
      int at = listU64.startNewValue(i);
      for (int k = 0; k < n; k++) {
        listU64Items.setSafe(at + k, rng.nextLong());
      }
      listU64.endValue(i, n);

      n = Synth.aboutFive(rng);
      at = listStr.startNewValue(i);
      for (int k = 0; k < n; k++) {
        listStrItems.setSafe(at + k, Synth.alphanumeric(rng, STRING_CHARS));
      }
      listStr.endValue(i, n);

      Synth.fillVector(vec768, i, rng);

      n = Synth.aboutFive(rng);
      at = listVec.startNewValue(i);
      for (int k = 0; k < n; k++) {
        Synth.fillVector(listVecItems, at + k, rng);
      }
      listVec.endValue(i, n);

      bin20k.setSafe(i, Synth.bytes(rng, BINARY_BYTES));

      n = Synth.aboutFive(rng);
      at = listBin.startNewValue(i);
      for (int k = 0; k < n; k++) {
        listBinItems.setSafe(at + k, Synth.bytes(rng, BINARY_BYTES));
      }
      listBin.endValue(i, n);
    }
  }
}
