package dev.riffle.format.schema;

import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Which Arrow types Riffle stores, checked in one place so that the writer refuses a schema before
 * writing a byte, with a message that names the field.
 */
public final class TypeSupport {
  private TypeSupport() {}

  /**
   * Checks a field and its children.
   *
   * @param path the field's dotted path, used in the message
   * @throws UnsupportedTypeException naming the first unsupported field
   */
  public static void check(Field field, String path) {
    check(field, path, 0);
  }

  /** Deepest nesting the schema block accepts (FORMAT.md §10). */
  public static final int MAX_DEPTH = 64;

  /**
   * Largest fixed-size binary width and fixed-size list size (2^28): one value of Arrow's
   * int-indexed vectors must stay addressable in a batch.
   */
  public static final int MAX_FIXED_SIZE = 1 << 28;

  /**
   * Largest fixed-size value, counting every item of nested fixed-size lists (16 MiB: a 2048 × 2048
   * float32 tensor); larger ones belong in variable-size columns.
   */
  public static final long MAX_FIXED_VALUE_BYTES = 16L << 20;

  /**
   * Bytes one value of a field takes at least in an Arrow batch, used to size batches and to bound
   * fixed-size values: fixed widths, fixed-size lists multiplied out, one nominal item per
   * variable-size list or string.
   */
  public static long nominalBytes(Field field) {
    ArrowType t = field.getType();
    int w = fixedWidth(t);
    if (w > 0) {
      return w;
    }
    if (t instanceof ArrowType.Bool) {
      return 1;
    }
    if (isBinary(t)) {
      return 16;
    }
    long children = 0;
    for (Field c : field.getChildren()) {
      children = Math.min(Long.MAX_VALUE / 4, children + nominalBytes(c));
    }
    if (t instanceof ArrowType.FixedSizeList) {
      long size = ((ArrowType.FixedSizeList) t).getListSize();
      return children > (Long.MAX_VALUE / 4) / Math.max(1, size)
          ? Long.MAX_VALUE / 4
          : size * children;
    }
    return 8 + children;
  }

  /** Most children, metadata entries or top-level fields (they are stored as u16 counts). */
  public static final int MAX_COUNT = 65535;

  private static void check(Field field, String path, int depth) {
    ArrowType t = field.getType();
    if (depth > MAX_DEPTH) {
      throw new UnsupportedTypeException(path, t.toString(), "nested deeper than " + MAX_DEPTH);
    }
    if (field.getChildren().size() > MAX_COUNT
        || (field.getMetadata() != null && field.getMetadata().size() > MAX_COUNT)) {
      throw new UnsupportedTypeException(
          path, t.toString(), "more than " + MAX_COUNT + " children or metadata entries");
    }
    if (t instanceof ArrowType.ExtensionType) {
      throw new UnsupportedTypeException(
          path,
          t.toString(),
          "extension types are not stored; " + "convert to the storage type first");
    }
    if (t instanceof ArrowType.Time && !timeWidthMatches((ArrowType.Time) t)) {
      throw new UnsupportedTypeException(
          path,
          t.toString(),
          "seconds and milliseconds are 32-bit" + " times, micro- and nanoseconds 64-bit");
    }
    if (field.getDictionary() != null) {
      throw new UnsupportedTypeException(
          path, t.toString(), "dictionary encoding is supported on top-level fields only");
    }
    if (t instanceof ArrowType.FixedSizeBinary
        && ((ArrowType.FixedSizeBinary) t).getByteWidth() > MAX_FIXED_SIZE) {
      throw new UnsupportedTypeException(path, t.toString(), "wider than " + MAX_FIXED_SIZE);
    }
    if ((t instanceof ArrowType.FixedSizeList || t instanceof ArrowType.FixedSizeBinary)
        && nominalBytes(field) > MAX_FIXED_VALUE_BYTES) {
      throw new UnsupportedTypeException(
          path,
          t.toString(),
          "a fixed-size value of more than "
              + MAX_FIXED_VALUE_BYTES
              + " bytes; use a variable-size list or binary");
    }
    if (fixedWidth(t) > 0 || t instanceof ArrowType.Bool || isBinary(t)) {
      return;
    }
    switch (t.getTypeID()) {
      case List:
      case LargeList:
      case Map:
        requireChildren(field, path, 1);
        checkChildren(field, path, depth);
        return;
      case FixedSizeList:
        requireChildren(field, path, 1);
        if (((ArrowType.FixedSizeList) t).getListSize() < 1
            || ((ArrowType.FixedSizeList) t).getListSize() > MAX_FIXED_SIZE) {
          throw new UnsupportedTypeException(path, t.toString(), "list size must be at least 1");
        }
        checkChildren(field, path, depth);
        return;
      case Struct:
        if (field.getChildren().isEmpty()) {
          throw new UnsupportedTypeException(
              path, t.toString(), "a struct needs at least one field");
        }
        checkChildren(field, path, depth);
        return;
      default:
        throw new UnsupportedTypeException(
            path,
            t.toString(),
            "supported are bool, ints, floats, decimals, dates, times, "
                + "timestamps, durations, (large) utf8 and binary, fixed-size binary, (large) "
                + "list, fixed-size list, map, struct, and top-level dictionaries");
    }
  }

  /** Checks the index type of a dictionary-encoded top-level field. */
  public static void checkDictionaryIndex(Field field) {
    ArrowType.Int index = field.getDictionary().getIndexType();
    if (!(field.getType() instanceof ArrowType.Int) || !field.getType().equals(index)) {
      throw new UnsupportedTypeException(
          field.getName(),
          field.getType().toString(),
          "a dictionary field's vector type must be its index type " + index);
    }
  }

  private static void requireChildren(Field field, String path, int n) {
    if (field.getChildren().size() != n) {
      throw new UnsupportedTypeException(
          path, field.getType().toString(), "expected " + n + " child field(s)");
    }
  }

  private static void checkChildren(Field field, String path, int depth) {
    for (Field child : field.getChildren()) {
      check(child, path + "." + child.getName(), depth + 1);
    }
  }

  /** Arrow's time vectors are 32-bit for s and ms and 64-bit for us and ns. */
  public static boolean timeWidthMatches(ArrowType.Time t) {
    boolean wide =
        t.getUnit() == org.apache.arrow.vector.types.TimeUnit.MICROSECOND
            || t.getUnit() == org.apache.arrow.vector.types.TimeUnit.NANOSECOND;
    return t.getBitWidth() == (wide ? 64 : 32);
  }

  /** True for utf8, large utf8, binary, large binary. */
  public static boolean isBinary(ArrowType t) {
    switch (t.getTypeID()) {
      case Utf8:
      case LargeUtf8:
      case Binary:
      case LargeBinary:
        return true;
      default:
        return false;
    }
  }

  /** Bytes per value of a fixed-width primitive type (not bool), or -1. */
  public static int fixedWidth(ArrowType t) {
    switch (t.getTypeID()) {
      case Int:
        return ((ArrowType.Int) t).getBitWidth() / 8;
      case FloatingPoint:
        FloatingPointPrecision p = ((ArrowType.FloatingPoint) t).getPrecision();
        return p == FloatingPointPrecision.HALF ? 2 : p == FloatingPointPrecision.SINGLE ? 4 : 8;
      case Decimal:
        return ((ArrowType.Decimal) t).getBitWidth() / 8;
      case Date:
        return ((ArrowType.Date) t).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8;
      case Time:
        return ((ArrowType.Time) t).getBitWidth() / 8;
      case Timestamp:
      case Duration:
        return 8;
      case FixedSizeBinary:
        int w = ((ArrowType.FixedSizeBinary) t).getByteWidth();
        return w > 0 ? w : -1;
      default:
        return -1;
    }
  }

  /**
   * Whether values of this type are integers for frame-of-reference packing, and if so whether they
   * are signed (1) or unsigned (0); -1 if not an integer kind. Dates, times, timestamps and
   * durations are signed integers in Arrow.
   */
  public static int integerSignedness(ArrowType t) {
    switch (t.getTypeID()) {
      case Int:
        return ((ArrowType.Int) t).getIsSigned() ? 1 : 0;
      case Date:
      case Time:
      case Timestamp:
      case Duration:
        return 1;
      case Bool:
        return 0;
      default:
        return -1;
    }
  }

  /**
   * The byte width of the first floating-point type in {@code field}'s type tree (pre-order: the
   * field, then its children), or 0 if it holds none: the plane stride for split records.
   */
  public static int floatStride(Field field) {
    if (field.getType() instanceof ArrowType.FloatingPoint) {
      return fixedWidth(field.getType());
    }
    for (Field child : field.getChildren()) {
      int s = floatStride(child);
      if (s > 0) {
        return s;
      }
    }
    return 0;
  }

  /**
   * The item width of a field that LISTS sectors can hold (FORMAT.md §5.1): a list or large list
   * whose item field is of a fixed-width primitive type of at most 64 bytes (1 byte for a boolean)
   * and non-nullable, or in a 1.4 file also nullable (such a sector then holds only lists without a
   * null item); -1 for any other field.
   *
   * @param v14 whether the file is 1.4
   */
  public static int listItemWidth(Field field, boolean v14) {
    ArrowType t = field.getType();
    if (field.getDictionary() != null
        || !(t instanceof ArrowType.List || t instanceof ArrowType.LargeList)
        || field.getChildren().size() != 1) {
      return -1;
    }
    Field item = field.getChildren().get(0);
    if ((item.isNullable() && !v14) || item.getDictionary() != null) {
      return -1;
    }
    int w = item.getType() instanceof ArrowType.Bool ? 1 : fixedWidth(item.getType());
    return w >= 1 && w <= 64 ? w : -1;
  }
}
