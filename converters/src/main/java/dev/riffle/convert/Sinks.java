package dev.riffle.convert;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Builds the sink tree of a Parquet schema over the vectors of the Arrow schema that {@link
 * ParquetSchemas#toArrow} made from it; the two walks follow the same rules.
 */
final class Sinks {
  private Sinks() {}

  static GroupSinks.Record record(MessageType message, VectorSchemaRoot root) {
    List<VectorSink> children = new ArrayList<>();
    for (int i = 0; i < message.getFieldCount(); i++) {
      children.add(field(message.getType(i), root.getVector(i)));
    }
    return new GroupSinks.Record(children);
  }

  private static VectorSink field(Type t, FieldVector v) {
    if (t.isRepetition(Type.Repetition.REPEATED)) {
      ListVector list = (ListVector) v;
      return new GroupSinks.ImplicitList(list, value(t, list.getDataVector()));
    }
    return value(t, v);
  }

  /** The sink of a field's values, ignoring its repetition. */
  private static VectorSink value(Type t, FieldVector v) {
    if (t.isPrimitive()) {
      return new PrimitiveSink(v, t.asPrimitiveType().getPrimitiveTypeName());
    }
    GroupType g = t.asGroupType();
    LogicalTypeAnnotation a = g.getLogicalTypeAnnotation();
    if (a instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      ListVector list = (ListVector) v;
      Type repeated = g.getType(0);
      if (ParquetSchemas.repeatedIsElement(g, repeated)) {
        VectorSink element = value(repeated, list.getDataVector());
        return new GroupSinks.ListGroup(list, element, element.converter());
      }
      VectorSink element = field(repeated.asGroupType().getType(0), list.getDataVector());
      return new GroupSinks.ListGroup(list, element, new GroupSinks.Repeated(element));
    }
    if (a instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
        || a instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation) {
      ListVector map = (ListVector) v;
      // The repeated key_value group is the entries struct, whatever it is annotated.
      VectorSink entries = struct(g.getType(0).asGroupType(), map.getDataVector());
      return new GroupSinks.ListGroup(map, entries, entries.converter());
    }
    return struct(g, v);
  }

  private static VectorSink struct(GroupType g, FieldVector v) {
    NonNullableStructVector struct = (NonNullableStructVector) v;
    List<VectorSink> children = new ArrayList<>();
    for (int i = 0; i < g.getFieldCount(); i++) {
      children.add(field(g.getType(i), (FieldVector) struct.getChildByOrdinal(i)));
    }
    return new GroupSinks.Struct(struct, children);
  }
}
