package dev.riffle.spark.vector;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.junit.jupiter.api.Test;

/**
 * The raw-address columns give what Spark's checked {@link ArrowColumnVector} gives over the same
 * vectors, value by value and null by null (with and without nulls), and categorical codes wider
 * than a signed byte's range read as unsigned.
 */
class RawColumnTest {
  private static final int ROWS = 1000;

  @Test
  void leavesAndListsMatchArrowColumnVector() {
    long seed = Long.getLong("riffle.seed", System.nanoTime());
    System.out.println(
        "reproduce with: mvn -pl spark -am test -Dtest=RawColumnTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Driffle.seed="
            + seed);
    Random r = new Random(seed);
    try (BufferAllocator a = new RootAllocator();
        TinyIntVector b = new TinyIntVector("b", a);
        SmallIntVector s = new SmallIntVector("s", a);
        IntVector i = new IntVector("i", a);
        BigIntVector l = new BigIntVector("l", a);
        Float4Vector f = new Float4Vector("f", a);
        Float8Vector d = new Float8Vector("d", a);
        DateDayVector day = new DateDayVector("day", a);
        TimeStampMicroTZVector ts = new TimeStampMicroTZVector("ts", a, "UTC");
        VarCharVector str = new VarCharVector("str", a);
        IntVector dense = new IntVector("dense", a);
        ListVector emb = ListVector.empty("emb", a)) {
      UnionListWriter w = emb.getWriter();
      for (int k = 0; k < ROWS; k++) {
        boolean nul = r.nextInt(5) == 0;
        if (!nul) {
          b.setSafe(k, r.nextInt());
          s.setSafe(k, r.nextInt());
          i.setSafe(k, r.nextInt());
          l.setSafe(k, r.nextLong());
          f.setSafe(k, r.nextFloat());
          d.setSafe(k, r.nextDouble());
          day.setSafe(k, r.nextInt(40000));
          ts.setSafe(k, r.nextLong());
          str.setSafe(k, ("v" + r.nextInt(100) + "é").getBytes(StandardCharsets.UTF_8));
          w.setPosition(k);
          w.startList();
          for (int e = r.nextInt(40); e > 0; e--) {
            if (r.nextInt(7) == 0) {
              w.writeNull();
            } else {
              w.float4().writeFloat4(r.nextFloat());
            }
          }
          w.endList();
        }
        dense.setSafe(k, k * 7);
      }
      for (var v :
          new org.apache.arrow.vector.FieldVector[] {b, s, i, l, f, d, day, ts, str, dense}) {
        v.setValueCount(ROWS);
      }
      emb.setValueCount(ROWS);
      check(b, DataTypes.ByteType);
      check(s, DataTypes.ShortType);
      check(i, DataTypes.IntegerType);
      check(l, DataTypes.LongType);
      check(f, DataTypes.FloatType);
      check(d, DataTypes.DoubleType);
      check(day, DataTypes.DateType);
      check(ts, DataTypes.TimestampType);
      check(str, DataTypes.StringType);
      check(dense, DataTypes.IntegerType);
      check(emb, new ArrayType(DataTypes.FloatType, true));
      assertThat(ColumnVectors.of(dense, null, DataTypes.IntegerType).hasNull()).isFalse();
    }
  }

  @Test
  void unsignedCodesAboveASignedByteReadTheirValues() {
    try (BufferAllocator a = new RootAllocator();
        UInt1Vector codes = new UInt1Vector("c", a);
        IntVector values = new IntVector("v", a)) {
      for (int k = 0; k < 256; k++) {
        values.setSafe(k, k * 3);
        if (k % 11 == 0) {
          codes.setNull(k);
        } else {
          codes.setSafe(k, 255 - k);
        }
      }
      values.setValueCount(256);
      codes.setValueCount(256);
      ColumnVector c = ColumnVectors.of(codes, values, DataTypes.IntegerType);
      for (int k = 0; k < 256; k++) {
        assertThat(c.isNullAt(k)).as("row %d", k).isEqualTo(k % 11 == 0);
        if (k % 11 != 0) {
          assertThat(c.getInt(k)).as("row %d", k).isEqualTo((255 - k) * 3);
        }
      }
    }
  }

  private static void check(org.apache.arrow.vector.FieldVector v, DataType type) {
    ColumnVector raw = ColumnVectors.of(v, null, type);
    assertThat(raw).as(v.getName()).isNotInstanceOf(ArrowColumnVector.class);
    ArrowColumnVector ref = new ArrowColumnVector(v);
    assertThat(raw.hasNull()).as(v.getName()).isEqualTo(ref.hasNull());
    assertThat(raw.numNulls()).as(v.getName()).isEqualTo(ref.numNulls());
    for (int k = 0; k < ROWS; k++) {
      String at = v.getName() + " row " + k;
      assertThat(raw.isNullAt(k)).as(at).isEqualTo(ref.isNullAt(k));
      if (ref.isNullAt(k)) {
        continue;
      }
      assertThat(value(raw, type, k)).as(at).isEqualTo(value(ref, type, k));
    }
  }

  private static Object value(ColumnVector c, DataType type, int k) {
    if (type instanceof ArrayType) {
      ColumnarArray items = c.getArray(k);
      StringBuilder out = new StringBuilder();
      for (int e = 0; e < items.numElements(); e++) {
        out.append(items.isNullAt(e) ? "null" : Float.toString(items.getFloat(e))).append(',');
      }
      return out.toString();
    }
    if (type == DataTypes.ByteType) {
      return c.getByte(k);
    } else if (type == DataTypes.ShortType) {
      return c.getShort(k);
    } else if (type == DataTypes.IntegerType || type == DataTypes.DateType) {
      return c.getInt(k);
    } else if (type == DataTypes.LongType || type == DataTypes.TimestampType) {
      return c.getLong(k);
    } else if (type == DataTypes.FloatType) {
      return c.getFloat(k);
    } else if (type == DataTypes.DoubleType) {
      return c.getDouble(k);
    }
    return c.getUTF8String(k).toString();
  }
}
