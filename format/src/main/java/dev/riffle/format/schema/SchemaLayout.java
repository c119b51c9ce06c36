package dev.riffle.format.schema;

import dev.riffle.format.ByteSink;
import dev.riffle.format.CorruptFileException;
import dev.riffle.format.RecordInput;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The schema block (FORMAT.md §6): fields as a pre-order tree of nodes, schema metadata, and the
 * stored columns. All integers little-endian; strings are a u32 byte length and UTF-8 bytes.
 *
 * <pre>
 * u16 fieldCount, node[fieldCount]
 * node: str name | u8 typeCode | type params | u8 flags (bit0 nullable, bit1 dictionary)
 *       | if dictionary: u64 id, u8 indexBitWidth, u8 indexSigned, u8 ordered
 *       | u16 metadataCount, (str key, str value)[] | u16 childCount, node[childCount]
 * u16 schemaMetadataCount, (str key, str value)[]
 * u16 columnCount, column[]: str name | u8 isGroup | u16 n | u16 fieldIndex[n]
 * </pre>
 */
public final class SchemaLayout {
  private SchemaLayout() {}

  // Type codes; params follow the code byte.
  static final int BOOL = 1; // -
  static final int INT = 2; // u8 bitWidth, u8 signed
  static final int FLOAT = 3; // u8 precision: 0 half, 1 single, 2 double
  static final int DECIMAL = 4; // u16 bitWidth, i32 precision, i32 scale
  static final int DATE = 5; // u8 unit: 0 day, 1 millisecond
  static final int TIME = 6; // u8 unit, u8 bitWidth
  static final int TIMESTAMP = 7; // u8 unit, u8 hasZone, [str zone]
  static final int DURATION = 8; // u8 unit
  static final int UTF8 = 9;
  static final int LARGE_UTF8 = 10;
  static final int BINARY = 11;
  static final int LARGE_BINARY = 12;
  static final int FIXED_SIZE_BINARY = 13; // u32 byteWidth
  static final int FIXED_SIZE_LIST = 14; // u32 listSize
  static final int LIST = 15;
  static final int LARGE_LIST = 16;
  static final int STRUCT = 17;
  static final int MAP = 18; // u8 keysSorted

  /** Caps that keep a damaged schema block from asking for absurd allocations. */
  static final int MAX_DEPTH = 64;

  static final int MAX_CHILDREN = 1 << 16;

  /** Serializes a schema. */
  public static byte[] write(RiffleSchema schema) {
    ByteSink out = new ByteSink(1024);
    List<Field> fields = schema.fields();
    out.putShort(fields.size());
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      Field dictValues = schema.dictionaryValues(i);
      if (dictValues != null) {
        writeNode(
            out,
            f.getName(),
            f.isNullable(),
            dictValues.getType(),
            f.getDictionary(),
            f.getMetadata(),
            dictValues.getChildren());
      } else {
        writeNode(
            out, f.getName(), f.isNullable(), f.getType(), null, f.getMetadata(), f.getChildren());
      }
    }
    writeMetadata(out, schema.arrow().getCustomMetadata());
    out.putShort(schema.columns().size());
    for (ColumnSpec c : schema.columns()) {
      writeString(out, c.name());
      out.put((byte) (c.group() ? 1 : 0));
      out.putShort(c.fields().size());
      for (int f : c.fields()) {
        out.putShort(f);
      }
    }
    return out.toByteArray();
  }

  private static void writeNode(
      ByteSink out,
      String name,
      boolean nullable,
      ArrowType t,
      DictionaryEncoding dict,
      Map<String, String> metadata,
      List<Field> children) {
    writeString(out, name);
    writeType(out, t);
    out.put((byte) ((nullable ? 1 : 0) | (dict != null ? 2 : 0)));
    if (dict != null) {
      out.putLong(dict.getId());
      out.put((byte) dict.getIndexType().getBitWidth());
      out.put((byte) (dict.getIndexType().getIsSigned() ? 1 : 0));
      out.put((byte) (dict.isOrdered() ? 1 : 0));
    }
    writeMetadata(out, metadata);
    out.putShort(children.size());
    for (Field c : children) {
      writeNode(
          out, c.getName(), c.isNullable(), c.getType(), null, c.getMetadata(), c.getChildren());
    }
  }

  private static void writeType(ByteSink out, ArrowType t) {
    switch (t.getTypeID()) {
      case Bool:
        out.put((byte) BOOL);
        break;
      case Int:
        ArrowType.Int i = (ArrowType.Int) t;
        out.put((byte) INT);
        out.put((byte) i.getBitWidth());
        out.put((byte) (i.getIsSigned() ? 1 : 0));
        break;
      case FloatingPoint:
        out.put((byte) FLOAT);
        out.put((byte) ((ArrowType.FloatingPoint) t).getPrecision().ordinal());
        break;
      case Decimal:
        ArrowType.Decimal d = (ArrowType.Decimal) t;
        out.put((byte) DECIMAL);
        out.putShort(d.getBitWidth());
        out.putInt(d.getPrecision());
        out.putInt(d.getScale());
        break;
      case Date:
        out.put((byte) DATE);
        out.put((byte) (((ArrowType.Date) t).getUnit() == DateUnit.DAY ? 0 : 1));
        break;
      case Time:
        ArrowType.Time tm = (ArrowType.Time) t;
        out.put((byte) TIME);
        out.put((byte) tm.getUnit().ordinal());
        out.put((byte) tm.getBitWidth());
        break;
      case Timestamp:
        ArrowType.Timestamp ts = (ArrowType.Timestamp) t;
        out.put((byte) TIMESTAMP);
        out.put((byte) ts.getUnit().ordinal());
        out.put((byte) (ts.getTimezone() != null ? 1 : 0));
        if (ts.getTimezone() != null) {
          writeString(out, ts.getTimezone());
        }
        break;
      case Duration:
        out.put((byte) DURATION);
        out.put((byte) ((ArrowType.Duration) t).getUnit().ordinal());
        break;
      case Utf8:
        out.put((byte) UTF8);
        break;
      case LargeUtf8:
        out.put((byte) LARGE_UTF8);
        break;
      case Binary:
        out.put((byte) BINARY);
        break;
      case LargeBinary:
        out.put((byte) LARGE_BINARY);
        break;
      case FixedSizeBinary:
        out.put((byte) FIXED_SIZE_BINARY);
        out.putInt(((ArrowType.FixedSizeBinary) t).getByteWidth());
        break;
      case FixedSizeList:
        out.put((byte) FIXED_SIZE_LIST);
        out.putInt(((ArrowType.FixedSizeList) t).getListSize());
        break;
      case List:
        out.put((byte) LIST);
        break;
      case LargeList:
        out.put((byte) LARGE_LIST);
        break;
      case Struct:
        out.put((byte) STRUCT);
        break;
      case Map:
        out.put((byte) MAP);
        out.put((byte) (((ArrowType.Map) t).getKeysSorted() ? 1 : 0));
        break;
      default:
        throw new IllegalArgumentException("no schema code for " + t);
    }
  }

  private static void writeMetadata(ByteSink out, Map<String, String> metadata) {
    if (metadata == null) {
      out.putShort(0);
      return;
    }
    // Sorted so that equal maps always give equal bytes (the writer is deterministic).
    List<String> keys = new ArrayList<>(metadata.keySet());
    java.util.Collections.sort(keys);
    out.putShort(keys.size());
    for (String k : keys) {
      writeString(out, k);
      writeString(out, metadata.get(k));
    }
  }

  private static void writeString(ByteSink out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.putInt(b.length);
    out.put(b, 0, b.length);
  }

  /** Parses a schema block; {@code in} covers exactly the block. */
  public static RiffleSchema read(RecordInput in) throws CorruptFileException {
    int n = in.u16();
    List<Field> fields = new ArrayList<>(n);
    Map<Integer, Field> dictValues = new HashMap<>();
    for (int i = 0; i < n; i++) {
      long at = in.fileOffset();
      Field value = readNode(in, 0, i, dictValues);
      fields.add(value);
      if (value == null) {
        throw new CorruptFileException(in.resource(), at, "bad field");
      }
    }
    Map<String, String> metadata = readMetadata(in);
    int columnCount = in.u16();
    List<ColumnSpec> columns = new ArrayList<>(Math.min(columnCount, n));
    for (int c = 0; c < columnCount; c++) {
      String name = readString(in);
      int group = in.u8();
      int m = in.u16();
      if (group > 1 || m == 0) {
        throw in.corrupt("column '" + name + "' has a bad group flag or no fields");
      }
      List<Integer> members = new ArrayList<>(m);
      for (int k = 0; k < m; k++) {
        members.add(in.u16());
      }
      columns.add(new ColumnSpec(name, members, group == 1));
    }
    if (in.remaining() != 0) {
      throw in.corrupt(in.remaining() + " unexpected bytes after the schema");
    }
    try {
      return new RiffleSchema(new Schema(fields, metadata), dictValues, columns);
    } catch (IllegalArgumentException e) {
      throw new CorruptFileException(
          in.resource(), in.fileOffset(), "inconsistent schema: " + e.getMessage(), e);
    }
  }

  private static Field readNode(
      RecordInput in, int depth, int topIndex, Map<Integer, Field> dictValues)
      throws CorruptFileException {
    if (depth > MAX_DEPTH) {
      throw in.corrupt("schema nests deeper than " + MAX_DEPTH);
    }
    String name = readString(in);
    long typeAt = in.fileOffset();
    ArrowType type = readType(in);
    int flags = in.u8();
    if ((flags & ~3) != 0) {
      throw in.corrupt("unknown field flags " + flags);
    }
    boolean nullable = (flags & 1) != 0;
    DictionaryEncoding dict = null;
    if ((flags & 2) != 0) {
      if (depth != 0) {
        throw in.corrupt("dictionary encoding below the top level");
      }
      long id = in.i64();
      int bits = in.u8();
      int signed = in.u8();
      int ordered = in.u8();
      if ((bits != 8 && bits != 16 && bits != 32 && bits != 64) || signed > 1 || ordered > 1) {
        throw in.corrupt("bad dictionary index type");
      }
      dict = new DictionaryEncoding(id, ordered == 1, new ArrowType.Int(bits, signed == 1));
    }
    Map<String, String> metadata = readMetadata(in);
    int childCount = in.u16();
    List<Field> children = new ArrayList<>(Math.min(childCount, 64));
    for (int i = 0; i < childCount; i++) {
      children.add(readNode(in, depth + 1, topIndex, dictValues));
    }
    checkShape(in, typeAt, type, childCount);
    if ((type instanceof ArrowType.FixedSizeList || type instanceof ArrowType.FixedSizeBinary)
        && TypeSupport.nominalBytes(new Field(name, FieldType.nullable(type), children))
            > TypeSupport.MAX_FIXED_VALUE_BYTES) {
      throw new CorruptFileException(
          in.resource(),
          typeAt,
          "fixed-size value larger than " + TypeSupport.MAX_FIXED_VALUE_BYTES + " bytes");
    }
    if (dict != null) {
      dictValues.put(topIndex, new Field(name, new FieldType(true, type, null, null), children));
      return new Field(name, new FieldType(nullable, dict.getIndexType(), dict, metadata), null);
    }
    return new Field(name, new FieldType(nullable, type, null, metadata), children);
  }

  private static void checkShape(RecordInput in, long at, ArrowType type, int childCount)
      throws CorruptFileException {
    int want;
    switch (type.getTypeID()) {
      case List:
      case LargeList:
      case FixedSizeList:
      case Map:
        want = 1;
        break;
      case Struct:
        if (childCount == 0) {
          throw new CorruptFileException(in.resource(), at, "struct without fields");
        }
        return;
      default:
        want = 0;
    }
    if (childCount != want) {
      throw new CorruptFileException(
          in.resource(), at, type + " must have " + want + " children, not " + childCount);
    }
  }

  private static ArrowType readType(RecordInput in) throws CorruptFileException {
    int code = in.u8();
    switch (code) {
      case BOOL:
        return ArrowType.Bool.INSTANCE;
      case INT:
        {
          int bits = in.u8();
          int signed = in.u8();
          if ((bits != 8 && bits != 16 && bits != 32 && bits != 64) || signed > 1) {
            throw in.corrupt("bad int type");
          }
          return new ArrowType.Int(bits, signed == 1);
        }
      case FLOAT:
        {
          int p = in.u8();
          if (p > 2) {
            throw in.corrupt("bad float precision " + p);
          }
          return new ArrowType.FloatingPoint(FloatingPointPrecision.values()[p]);
        }
      case DECIMAL:
        {
          int bits = in.u16();
          int precision = in.i32();
          int scale = in.i32();
          if ((bits != 128 && bits != 256) || precision < 1 || precision > 76) {
            throw in.corrupt("bad decimal type");
          }
          return new ArrowType.Decimal(precision, scale, bits);
        }
      case DATE:
        {
          int u = in.u8();
          if (u > 1) {
            throw in.corrupt("bad date unit " + u);
          }
          return new ArrowType.Date(u == 0 ? DateUnit.DAY : DateUnit.MILLISECOND);
        }
      case TIME:
        {
          int u = in.u8();
          int bits = in.u8();
          if (u > 3 || (bits != 32 && bits != 64)) {
            throw in.corrupt("bad time type");
          }
          ArrowType.Time time = new ArrowType.Time(TimeUnit.values()[u], bits);
          if (!TypeSupport.timeWidthMatches(time)) {
            throw in.corrupt("time unit " + time.getUnit() + " with " + bits + " bits");
          }
          return time;
        }
      case TIMESTAMP:
        {
          int u = in.u8();
          int hasZone = in.u8();
          if (u > 3 || hasZone > 1) {
            throw in.corrupt("bad timestamp type");
          }
          return new ArrowType.Timestamp(
              TimeUnit.values()[u], hasZone == 1 ? readString(in) : null);
        }
      case DURATION:
        {
          int u = in.u8();
          if (u > 3) {
            throw in.corrupt("bad duration unit " + u);
          }
          return new ArrowType.Duration(TimeUnit.values()[u]);
        }
      case UTF8:
        return ArrowType.Utf8.INSTANCE;
      case LARGE_UTF8:
        return ArrowType.LargeUtf8.INSTANCE;
      case BINARY:
        return ArrowType.Binary.INSTANCE;
      case LARGE_BINARY:
        return ArrowType.LargeBinary.INSTANCE;
      case FIXED_SIZE_BINARY:
        {
          int w = in.i32();
          if (w < 1 || w > TypeSupport.MAX_FIXED_SIZE) {
            throw in.corrupt("bad fixed-size binary width " + w);
          }
          return new ArrowType.FixedSizeBinary(w);
        }
      case FIXED_SIZE_LIST:
        {
          int n = in.i32();
          if (n < 1 || n > TypeSupport.MAX_FIXED_SIZE) {
            throw in.corrupt("bad fixed-size list size " + n);
          }
          return new ArrowType.FixedSizeList(n);
        }
      case LIST:
        return ArrowType.List.INSTANCE;
      case LARGE_LIST:
        return ArrowType.LargeList.INSTANCE;
      case STRUCT:
        return ArrowType.Struct.INSTANCE;
      case MAP:
        {
          int sorted = in.u8();
          if (sorted > 1) {
            throw in.corrupt("bad map flag");
          }
          return new ArrowType.Map(sorted == 1);
        }
      default:
        throw new CorruptFileException(
            in.resource(), in.fileOffset() - 1, "unknown type code " + code);
    }
  }

  private static Map<String, String> readMetadata(RecordInput in) throws CorruptFileException {
    int n = in.u16();
    if (n == 0) {
      return null;
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      m.put(readString(in), readString(in));
    }
    return m;
  }

  private static String readString(RecordInput in) throws CorruptFileException {
    int n = in.i32();
    if (n < 0) {
      throw in.corrupt("negative string length");
    }
    int at = in.take(n);
    byte[] b = new byte[n];
    in.buffer().get(at, b);
    return new String(b, StandardCharsets.UTF_8);
  }
}
