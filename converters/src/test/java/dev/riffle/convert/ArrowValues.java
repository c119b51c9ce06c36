package dev.riffle.convert;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Arrow values in a plain form that tests compare: Long for every integer kind (dates, times and
 * timestamps as their raw counts, unsigned as their bit pattern), Float/Double, BigDecimal, String,
 * hex for binary, List and Map for nesting.
 */
final class ArrowValues {
  private ArrowValues() {}

  static List<List<Object>> rows(VectorSchemaRoot root) {
    List<List<Object>> out = new ArrayList<>();
    for (int i = 0; i < root.getRowCount(); i++) {
      List<Object> row = new ArrayList<>();
      for (FieldVector v : root.getFieldVectors()) {
        row.add(get(v, i));
      }
      out.add(row);
    }
    return out;
  }

  static Object get(FieldVector v, int i) {
    if (v.isNull(i)) {
      return null;
    }
    if (v instanceof BitVector) {
      return ((BitVector) v).get(i) != 0;
    }
    if (v instanceof BaseIntVector) {
      return ((BaseIntVector) v).getValueAsLong(i);
    }
    if (v instanceof Float4Vector) {
      return ((Float4Vector) v).get(i);
    }
    if (v instanceof Float8Vector) {
      return ((Float8Vector) v).get(i);
    }
    if (v instanceof DecimalVector || v instanceof Decimal256Vector) {
      return v.getObject(i);
    }
    if (v instanceof VarCharVector) {
      return new String(((VarCharVector) v).get(i), java.nio.charset.StandardCharsets.UTF_8);
    }
    if (v instanceof VarBinaryVector) {
      return HexFormat.of().formatHex(((VarBinaryVector) v).get(i));
    }
    if (v instanceof ListVector) {
      ListVector l = (ListVector) v;
      List<Object> out = new ArrayList<>();
      for (int j = l.getElementStartIndex(i); j < l.getElementEndIndex(i); j++) {
        out.add(get(l.getDataVector(), j));
      }
      return out;
    }
    if (v instanceof StructVector) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (FieldVector c : ((StructVector) v).getChildrenFromFields()) {
        out.put(c.getName(), get(c, i));
      }
      return out;
    }
    if (v instanceof BaseFixedWidthVector) {
      // Dates, times, timestamps: raw counts; fixed-size binary and float16: hex bytes.
      BaseFixedWidthVector f = (BaseFixedWidthVector) v;
      int w = f.getTypeWidth();
      var t = v.getField().getType().getTypeID();
      if (t == org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID.FixedSizeBinary
          || t == org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID.FloatingPoint) {
        byte[] b = new byte[w];
        f.getDataBuffer().getBytes((long) i * w, b);
        return HexFormat.of().formatHex(b);
      }
      return w == 4
          ? (long) f.getDataBuffer().getInt((long) i * 4)
          : f.getDataBuffer().getLong((long) i * 8);
    }
    throw new IllegalArgumentException("no test form for " + v.getField());
  }
}
