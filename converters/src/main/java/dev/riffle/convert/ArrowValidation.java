package dev.riffle.convert;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.validate.ValidateUtil;
import org.apache.arrow.vector.validate.ValidateVectorBufferVisitor;
import org.apache.arrow.vector.validate.ValidateVectorDataVisitor;
import org.apache.arrow.vector.validate.ValidateVectorTypeVisitor;

/**
 * Arrow Java's full validation ({@code ValueVectorUtility.validateFull}), less its false alarms on
 * valid data: its type check rejects every map (it checks a MapVector as a list) and every float16
 * vector, and its data check throws on every fixed-size list (it asks for offsets, which fixed-size
 * lists have none of). Arrow IPC written by other implementations (arrow-js, pyarrow) has all
 * three, and was reported as damaged.
 */
final class ArrowValidation {
  private ArrowValidation() {}

  /** Validates a batch's vectors: types, buffer sizes, offsets and dictionary indices. */
  static void validateFull(VectorSchemaRoot root) {
    for (FieldVector v : root.getFieldVectors()) {
      validateFull(v);
    }
  }

  static void validateFull(ValueVector v) {
    v.accept(new Types(), null);
    v.accept(new ValidateVectorBufferVisitor(), null);
    v.accept(new Data(), null);
  }

  private static final class Types extends ValidateVectorTypeVisitor {
    @Override
    public Void visit(ListVector v, Void value) {
      if (!(v instanceof MapVector)) {
        return super.visit(v, value);
      }
      ValidateUtil.validateOrThrow(
          v.getField().getType() instanceof ArrowType.Map,
          "Incorrect arrow type for " + v.getClass() + " : " + v.getField().getType());
      v.getDataVector().accept(this, null);
      return null;
    }

    @Override
    public Void visit(BaseFixedWidthVector v, Void value) {
      if (!(v instanceof Float2Vector)) {
        return super.visit(v, value);
      }
      ArrowType t = v.getField().getType();
      ValidateUtil.validateOrThrow(
          t instanceof ArrowType.FloatingPoint
              && ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.HALF,
          "Incorrect arrow type for " + v.getClass() + " : " + t);
      return null;
    }
  }

  private static final class Data extends ValidateVectorDataVisitor {
    @Override
    public Void visit(FixedSizeListVector v, Void value) {
      // No offsets to check: the buffer check has seen that the child holds every list.
      v.getDataVector().accept(this, null);
      return null;
    }
  }
}
