package dev.riffle.format.schema;

import dev.riffle.format.PageStatsLayout.Kind;
import dev.riffle.format.PageStatsLayout.Order;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * What the page statistics of a field hold (FORMAT.md §4.5, "Kinds"), from its type alone, so that
 * writer and reader agree without the file naming it.
 */
public final class StatsKinds {
  private StatsKinds() {}

  /**
   * The kind of a field that is not dictionary-encoded (a dictionary field's kind is {@link
   * Kind#codes(int)} of its dictionary's size), or of a dictionary's values.
   */
  public static Kind of(Field field) {
    ArrowType t = field.getType();
    switch (t.getTypeID()) {
      case Bool:
        return new Kind(Order.BOOL, 1, 0);
      case Int:
        ArrowType.Int i = (ArrowType.Int) t;
        return new Kind(i.getIsSigned() ? Order.SIGNED : Order.UNSIGNED, i.getBitWidth() / 8, 0);
      case Date:
      case Time:
      case Timestamp:
      case Duration:
        return new Kind(Order.SIGNED, TypeSupport.fixedWidth(t), 0);
      case FloatingPoint:
        // Half floats have no exact comparison in Java 17's library: null counts only.
        return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.HALF
            ? Kind.NULLS
            : new Kind(Order.FLOAT, TypeSupport.fixedWidth(t), 0);
      case Decimal:
        return new Kind(Order.DECIMAL, TypeSupport.fixedWidth(t), 0);
      case Utf8:
      case LargeUtf8:
      case Binary:
      case LargeBinary:
        return new Kind(Order.BYTES, 0, 0);
      case FixedSizeBinary:
        return new Kind(Order.BYTES, ((ArrowType.FixedSizeBinary) t).getByteWidth(), 0);
      default:
        return Kind.NULLS;
    }
  }

  /** Whether the field's values are text (their bounds print as strings). */
  public static boolean isText(Field field) {
    ArrowType.ArrowTypeID id = field.getType().getTypeID();
    return id == ArrowType.ArrowTypeID.Utf8 || id == ArrowType.ArrowTypeID.LargeUtf8;
  }
}
