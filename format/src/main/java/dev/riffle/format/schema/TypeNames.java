package dev.riffle.format.schema;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Short, Arrow-style names of field types ({@code uint64}, {@code list<float32>}, {@code
 * fixed_size_list<float32, 768>}, {@code dictionary<values=utf8, indices=int8>}), in the spelling
 * pyarrow users know, because Arrow Java's {@code toString} ({@code Int(64, false)}) is hard to
 * read in a table or a message. The CLI prints column types with it, and the loader's and the
 * dataset's messages name types with it, so that a type reads the same wherever it is shown.
 */
public final class TypeNames {
  private TypeNames() {}

  /**
   * The type of {@code field}; nested non-nullable children are marked {@code not null} since that
   * changes what a reader may see.
   *
   * @param dictionaryValues for a dictionary-encoded field, the field describing its values;
   *     otherwise ignored
   */
  public static String of(Field field, Field dictionaryValues) {
    if (field.getDictionary() != null) {
      String values = dictionaryValues == null ? "?" : of(dictionaryValues, null);
      return "dictionary<values="
          + values
          + ", indices="
          + of(field.getDictionary().getIndexType(), List.of())
          + ">";
    }
    return of(field.getType(), field.getChildren());
  }

  /**
   * As {@link #of(Field, Field)}, and {@code not null} after it where the field is not nullable:
   * for messages that compare two fields, where nullability can be all that differs.
   */
  public static String withNullability(Field field, Field dictionaryValues) {
    return of(field, dictionaryValues) + (field.isNullable() ? "" : " not null");
  }

  /**
   * The type of the top-level field {@code name} of {@code schema}, a dictionary's values included.
   *
   * @throws IllegalArgumentException if the schema has no such field
   */
  public static String of(RiffleSchema schema, String name) {
    int f = schema.fieldIndex(name);
    if (f < 0) {
      throw new IllegalArgumentException("no field '" + name + "'");
    }
    return of(schema.fields().get(f), schema.dictionaryValues(f));
  }

  /** The name of a type without children (an index type, a primitive). */
  public static String of(ArrowType type) {
    return of(type, List.of());
  }

  private static String of(ArrowType t, List<Field> children) {
    switch (t.getTypeID()) {
      case Null:
        return "null";
      case Bool:
        return "bool";
      case Int:
        ArrowType.Int i = (ArrowType.Int) t;
        return (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
      case FloatingPoint:
        switch (((ArrowType.FloatingPoint) t).getPrecision()) {
          case HALF:
            return "float16";
          case SINGLE:
            return "float32";
          default:
            return "float64";
        }
      case Utf8:
        return "utf8";
      case LargeUtf8:
        return "large_utf8";
      case Binary:
        return "binary";
      case LargeBinary:
        return "large_binary";
      case FixedSizeBinary:
        return "fixed_size_binary[" + ((ArrowType.FixedSizeBinary) t).getByteWidth() + "]";
      case Decimal:
        ArrowType.Decimal d = (ArrowType.Decimal) t;
        return "decimal" + d.getBitWidth() + "(" + d.getPrecision() + ", " + d.getScale() + ")";
      case Date:
        return ((ArrowType.Date) t).getUnit() == DateUnit.DAY ? "date32" : "date64";
      case Time:
        ArrowType.Time time = (ArrowType.Time) t;
        return "time" + time.getBitWidth() + "[" + unit(time.getUnit()) + "]";
      case Timestamp:
        ArrowType.Timestamp ts = (ArrowType.Timestamp) t;
        return "timestamp["
            + unit(ts.getUnit())
            + (ts.getTimezone() == null ? "" : ", tz=" + ts.getTimezone())
            + "]";
      case Duration:
        return "duration[" + unit(((ArrowType.Duration) t).getUnit()) + "]";
      case List:
        return "list<" + child(children, 0) + ">";
      case LargeList:
        return "large_list<" + child(children, 0) + ">";
      case FixedSizeList:
        return "fixed_size_list<"
            + child(children, 0)
            + ", "
            + ((ArrowType.FixedSizeList) t).getListSize()
            + ">";
      case Map:
        // A map's only child is the struct of its entries: show key and value types.
        List<Field> entry = children.isEmpty() ? List.of() : children.get(0).getChildren();
        return "map<" + child(entry, 0) + ", " + child(entry, 1) + ">";
      case Struct:
        List<String> parts = new ArrayList<>();
        for (int c = 0; c < children.size(); c++) {
          parts.add(children.get(c).getName() + ": " + child(children, c));
        }
        return "struct<" + String.join(", ", parts) + ">";
      default:
        return t.toString();
    }
  }

  private static String child(List<Field> children, int index) {
    if (index >= children.size()) {
      return "?";
    }
    return withNullability(children.get(index), null);
  }

  private static String unit(TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return "s";
      case MILLISECOND:
        return "ms";
      case MICROSECOND:
        return "us";
      default:
        return "ns";
    }
  }
}
