package dev.riffle.convert;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.BaseListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Feeds the rows of the current Arrow batch to parquet-mr: a record is the row index into {@link
 * #batch}, written field by field through the {@link RecordConsumer} (Dremel shredding is
 * parquet-mr's).
 */
final class ArrowWriteSupport extends WriteSupport<Integer> {
  private final MessageType schema;
  private RecordConsumer consumer;
  VectorSchemaRoot batch;

  ArrowWriteSupport(MessageType schema) {
    this.schema = schema;
  }

  @Override
  // Parquet (or Spark) still calls this override; its replacement is not in the version we use
  @SuppressWarnings("deprecation")
  public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
    return new WriteContext(schema, new HashMap<>());
  }

  @Override
  public WriteContext init(ParquetConfiguration configuration) {
    return new WriteContext(schema, new HashMap<>());
  }

  @Override
  public void prepareForWrite(RecordConsumer recordConsumer) {
    this.consumer = recordConsumer;
  }

  @Override
  public void write(Integer row) {
    consumer.startMessage();
    List<FieldVector> vectors = batch.getFieldVectors();
    for (int i = 0; i < vectors.size(); i++) {
      field(vectors.get(i), row, schema.getType(i), i);
    }
    consumer.endMessage();
  }

  private void field(FieldVector v, int row, Type t, int index) {
    if (v.isNull(row)) {
      return;
    }
    if (v instanceof BaseListVector && isEmptyList(v, row)) {
      // An empty list is the group without its repeated field.
      consumer.startField(t.getName(), index);
      consumer.startGroup();
      consumer.endGroup();
      consumer.endField(t.getName(), index);
      return;
    }
    consumer.startField(t.getName(), index);
    value(v, row, t);
    consumer.endField(t.getName(), index);
  }

  private static boolean isEmptyList(FieldVector v, int row) {
    BaseListVector l = (BaseListVector) v;
    return l.getElementEndIndex(row) == l.getElementStartIndex(row);
  }

  private void value(FieldVector v, int row, Type t) {
    if (v instanceof StructVector) {
      GroupType g = t.asGroupType();
      consumer.startGroup();
      List<FieldVector> children = ((StructVector) v).getChildrenFromFields();
      for (int i = 0; i < children.size(); i++) {
        field(children.get(i), row, g.getType(i), i);
      }
      consumer.endGroup();
      return;
    }
    if (v instanceof BaseListVector) {
      BaseListVector l = (BaseListVector) v;
      GroupType repeated = t.asGroupType().getType(0).asGroupType();
      FieldVector data = l.getChildrenFromFields().get(0);
      boolean isMap = v.getField().getType() instanceof ArrowType.Map;
      consumer.startGroup();
      consumer.startField(repeated.getName(), 0);
      for (int j = l.getElementStartIndex(row); j < l.getElementEndIndex(row); j++) {
        if (isMap) {
          // The entries struct is the repeated key_value group itself.
          consumer.startGroup();
          List<FieldVector> kv = ((StructVector) data).getChildrenFromFields();
          field(kv.get(0), j, repeated.getType(0), 0);
          field(kv.get(1), j, repeated.getType(1), 1);
          consumer.endGroup();
        } else {
          consumer.startGroup();
          field(data, j, repeated.getType(0), 0);
          consumer.endGroup();
        }
      }
      consumer.endField(repeated.getName(), 0);
      consumer.endGroup();
      return;
    }
    primitive(v, row, t.asPrimitiveType());
  }

  private void primitive(FieldVector v, int row, PrimitiveType p) {
    ArrowType at = v.getField().getType();
    switch (p.getPrimitiveTypeName()) {
      case BOOLEAN:
        consumer.addBoolean(((BitVector) v).get(row) != 0);
        return;
      case FLOAT:
        consumer.addFloat(((Float4Vector) v).get(row));
        return;
      case DOUBLE:
        consumer.addDouble(((Float8Vector) v).get(row));
        return;
      case INT32:
      case INT64:
        long x = integer(v, row, at);
        if (p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT32) {
          consumer.addInteger((int) x);
        } else {
          consumer.addLong(x);
        }
        return;
      case INT96:
        long nanos = integer(v, row, at);
        java.nio.ByteBuffer b =
            java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putLong(Math.floorMod(nanos, 86_400_000_000_000L));
        b.putInt((int) (Math.floorDiv(nanos, 86_400_000_000_000L) + 2_440_588L));
        consumer.addBinary(Binary.fromConstantByteArray(b.array()));
        return;
      default:
        consumer.addBinary(Binary.fromConstantByteArray(bytes(v, row, p)));
    }
  }

  /** The integer a fixed-width value is written as, converting units Parquet lacks. */
  private static long integer(FieldVector v, int row, ArrowType at) {
    if (at instanceof ArrowType.Decimal) {
      BigInteger u = unscaled(v, row);
      return u.longValue();
    }
    if (v instanceof BaseIntVector) {
      return ((BaseIntVector) v).getValueAsLong(row);
    }
    if (v instanceof DateMilliVector) {
      return Math.floorDiv(((DateMilliVector) v).get(row), 86_400_000L);
    }
    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
    long raw =
        f.getTypeWidth() == 4
            ? f.getDataBuffer().getInt((long) row * 4)
            : f.getDataBuffer().getLong((long) row * 8);
    if (at instanceof ArrowType.Timestamp
        && ((ArrowType.Timestamp) at).getUnit() == org.apache.arrow.vector.types.TimeUnit.SECOND) {
      return raw * 1000;
    }
    return raw;
  }

  private static BigInteger unscaled(FieldVector v, int row) {
    java.math.BigDecimal d =
        v instanceof DecimalVector
            ? ((DecimalVector) v).getObject(row)
            : ((Decimal256Vector) v).getObject(row);
    return d.unscaledValue();
  }

  private static byte[] bytes(FieldVector v, int row, PrimitiveType p) {
    ArrowType at = v.getField().getType();
    if (at instanceof ArrowType.Decimal) {
      byte[] min = unscaled(v, row).toByteArray();
      if (p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BINARY) {
        return min;
      }
      byte[] out = new byte[p.getTypeLength()];
      java.util.Arrays.fill(out, min[0] < 0 ? (byte) -1 : 0);
      System.arraycopy(min, 0, out, out.length - min.length, min.length);
      return out;
    }
    if (v instanceof VariableWidthFieldVector) {
      return ((VariableWidthFieldVector) v).get(row);
    }
    BaseFixedWidthVector f = (BaseFixedWidthVector) v;
    int w = f.getTypeWidth();
    byte[] out = new byte[w];
    ArrowBuf data = f.getDataBuffer();
    data.getBytes((long) row * w, out);
    return out;
  }
}
