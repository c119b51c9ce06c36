package dev.riffle.format.encoding;

import dev.riffle.format.schema.ColumnSpec;
import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeSupport;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Builds the codec tree for a field, and the record codec for a stored column. */
public final class Codecs {
  private Codecs() {}

  /** The codec of a field's values (for a dictionary field: of its indices). */
  public static ValueCodec forField(Field field) {
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Bool) {
      return new BoolCodec();
    }
    int w = TypeSupport.fixedWidth(t);
    if (w > 0) {
      return new FixedCodec(w);
    }
    if (TypeSupport.isBinary(t)) {
      return new BinaryCodec();
    }
    switch (t.getTypeID()) {
      case List:
      case LargeList:
      case Map:
        Field item = field.getChildren().get(0);
        boolean map = t.getTypeID() == ArrowType.ArrowTypeID.Map;
        return new ListCodec(
            forField(item),
            item.isNullable(),
            map ? 0 : packWidth(item),
            TypeSupport.integerSignedness(item.getType()) == 1,
            map ? 0 : floatPackWidth(item));
      case FixedSizeList:
        Field el = field.getChildren().get(0);
        return new FixedListCodec(
            forField(el), el.isNullable(), ((ArrowType.FixedSizeList) t).getListSize());
      case Struct:
        return new StructCodec.Nested(structOf(field.getChildren()));
      default:
        throw new IllegalArgumentException("no codec for " + t);
    }
  }

  /**
   * The item width of a list that packed records pack (FORMAT.md §5.3): an item of an integer kind
   * — INT, DATE, TIME, TIMESTAMP, DURATION — of 1, 2, 4 or 8 bytes, not dictionary-encoded; else 0.
   * Lists of nullable items pack in format 1.4 only ({@link ListCodec}).
   */
  static int packWidth(Field item) {
    ArrowType t = item.getType();
    if (item.getDictionary() != null || t instanceof ArrowType.Bool) {
      return 0;
    }
    int w = TypeSupport.fixedWidth(t);
    return TypeSupport.integerSignedness(t) >= 0 && Integer.bitCount(w) == 1 && w <= 8 ? w : 0;
  }

  /**
   * The item width of a float list that packed records of format 1.4 pack (FORMAT.md §5.3): a not
   * dictionary-encoded float32 (4) or float64 (8) item; else 0.
   */
  static int floatPackWidth(Field item) {
    if (item.getDictionary() != null || !(item.getType() instanceof ArrowType.FloatingPoint)) {
      return 0;
    }
    switch (((ArrowType.FloatingPoint) item.getType()).getPrecision()) {
      case SINGLE:
        return 4;
      case DOUBLE:
        return 8;
      default:
        return 0;
    }
  }

  /** The codec of a column group's records: a struct of its fields. */
  public static StructCodec forGroup(RiffleSchema schema, ColumnSpec column) {
    List<Field> fields = new ArrayList<>();
    for (int f : column.fields()) {
      fields.add(schema.fields().get(f));
    }
    return structOf(fields);
  }

  private static StructCodec structOf(List<Field> fields) {
    List<ValueCodec> codecs = new ArrayList<>();
    boolean[] nullable = new boolean[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      codecs.add(forField(fields.get(i)));
      nullable[i] = fields.get(i).isNullable();
    }
    return new StructCodec(codecs, nullable);
  }
}
