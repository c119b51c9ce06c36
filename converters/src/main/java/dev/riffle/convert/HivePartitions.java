package dev.riffle.convert;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Columns held in directory names, as Spark, Hive, DuckDB and pandas write a partitioned dataset:
 * {@code cells/plate=p07/tissue=lung/part-0.parquet} holds rows whose {@code plate} is {@code p07}
 * and {@code tissue} is {@code lung}, and its Parquet file has no such columns. Left out, they
 * would be lost without a word; so every {@code key=value} directory between what the user named
 * and the file adds a column {@code key}, after the files' own, with the file's value in every row.
 *
 * <p>A value is decoded from its {@code %XX} escapes; {@code __HIVE_DEFAULT_PARTITION__} is null. A
 * key's type is int64 when every value is an integer written as Java writes it, float64 when every
 * value is a decimal written as Java writes it, a date when every value is a day of the calendar
 * written {@code yyyy-MM-dd} (the most common partition key, which DuckDB and Spark read back as a
 * date too), else a string: {@code 007} and {@code 2023-02-29} stay the strings they are. String
 * partition columns are written as categoricals ({@link Categoricals}: sorted by code point), since
 * a partition key has few values and is often the label a loader samples by.
 */
final class HivePartitions {
  /** The directory name for a null value (Hive's, Spark's and DuckDB's). */
  static final String NULL = "__HIVE_DEFAULT_PARTITION__";

  private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]{0,18})");
  private static final Pattern DATE = Pattern.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}");

  private final List<String> keys;
  private final List<ArrowType> types;
  private final java.util.Map<SourceFile, Integer> fileIndex = new java.util.IdentityHashMap<>();
  // values.get(f).get(k): file f's value of key k, decoded (null for NULL)
  private final List<List<String>> values;

  private HivePartitions(
      List<String> keys, List<ArrowType> types, List<SourceFile> files, List<List<String>> values) {
    this.keys = keys;
    this.types = types;
    for (int f = 0; f < files.size(); f++) {
      fileIndex.put(files.get(f), f);
    }
    this.values = values;
  }

  /**
   * The partition columns of {@code inputs}: the same keys, in the same order, in every file's
   * directories.
   *
   * @throws InputException naming a file whose keys differ from the first file's
   */
  static HivePartitions of(List<SourceFile> inputs) throws InputException {
    List<String> keys = null;
    List<List<String>> values = new ArrayList<>();
    for (SourceFile f : inputs) {
      List<String> k = new ArrayList<>();
      List<String> v = new ArrayList<>();
      for (String dir : f.directories()) {
        int eq = dir.indexOf('=');
        if (eq > 0) {
          String key = decode(dir.substring(0, eq));
          if (k.contains(key)) {
            throw new InputException(
                f.name(), "partition key '" + key + "' appears twice in its directories");
          }
          k.add(key);
          String value = dir.substring(eq + 1);
          v.add(value.equals(NULL) ? null : decode(value));
        }
      }
      if (keys == null) {
        keys = k;
      } else if (!keys.equals(k)) {
        throw new InputException(
            f.name(),
            "its partition directories give the columns "
                + k
                + ", but "
                + inputs.get(0).name()
                + " gives "
                + keys
                + "; every file of a partitioned input sits below the same key=value directories");
      }
      values.add(v);
    }
    keys = keys == null ? List.of() : keys;
    List<ArrowType> types = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      types.add(typeOf(values, k));
    }
    return new HivePartitions(keys, types, List.copyOf(inputs), values);
  }

  boolean isEmpty() {
    return keys.isEmpty();
  }

  List<String> keys() {
    return keys;
  }

  /** The partition columns whose values are strings (written as categoricals). */
  List<String> stringKeys() {
    List<String> out = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      if (types.get(k) instanceof ArrowType.Utf8) {
        out.add(keys.get(k));
      }
    }
    return out;
  }

  /** The distinct non-null values of a string key over all files, as UTF-8 bytes. */
  Set<byte[]> distinct(String key) {
    int k = keys.indexOf(key);
    Set<String> seen = new LinkedHashSet<>();
    for (List<String> v : values) {
      if (v.get(k) != null) {
        seen.add(v.get(k));
      }
    }
    Set<byte[]> out = new LinkedHashSet<>();
    seen.forEach(s -> out.add(s.getBytes(StandardCharsets.UTF_8)));
    return out;
  }

  /**
   * The files' schema with the partition columns after their own.
   *
   * @throws InputException naming the file, if its own columns include a partition key
   */
  Schema extend(Schema files, String input) throws InputException {
    if (keys.isEmpty()) {
      return files;
    }
    List<Field> fields = new ArrayList<>(files.getFields());
    for (int k = 0; k < keys.size(); k++) {
      for (Field f : files.getFields()) {
        if (f.getName().equals(keys.get(k))) {
          throw new InputException(
              input,
              "column '"
                  + f.getName()
                  + "' is in the file and in its partition directories ("
                  + f.getName()
                  + "=...); which one holds the value is ambiguous");
        }
      }
      fields.add(new Field(keys.get(k), FieldType.nullable(types.get(k)), null));
    }
    return new Schema(fields, files.getCustomMetadata());
  }

  /**
   * {@code batch}, read from input file {@code file}, with the partition columns added (the file's
   * values in every row); it takes over the batch's vectors (the batch is closed).
   */
  VectorSchemaRoot extend(VectorSchemaRoot batch, SourceFile file, BufferAllocator allocator) {
    if (keys.isEmpty()) {
      return batch;
    }
    int f = fileIndex.get(file);
    int n = batch.getRowCount();
    List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors());
    List<FieldVector> made = new ArrayList<>();
    try {
      for (int k = 0; k < keys.size(); k++) {
        FieldVector v = column(keys.get(k), types.get(k), values.get(f).get(k), n, allocator);
        made.add(v);
      }
    } catch (RuntimeException e) {
      made.forEach(FieldVector::close);
      batch.close();
      throw e;
    }
    vectors.addAll(made);
    List<Field> fields = new ArrayList<>();
    vectors.forEach(v -> fields.add(v.getField()));
    return new VectorSchemaRoot(fields, vectors, n);
  }

  private static FieldVector column(
      String key, ArrowType type, String value, int n, BufferAllocator allocator) {
    Field field = new Field(key, FieldType.nullable(type), null);
    FieldVector v = field.createVector(allocator);
    try {
      if (v instanceof BigIntVector b) {
        b.allocateNew(n);
        if (value != null) {
          long x = Long.parseLong(value);
          for (int i = 0; i < n; i++) {
            b.set(i, x);
          }
        }
      } else if (v instanceof DateDayVector d) {
        d.allocateNew(n);
        if (value != null) {
          int day = Math.toIntExact(LocalDate.parse(value).toEpochDay());
          for (int i = 0; i < n; i++) {
            d.set(i, day);
          }
        }
      } else if (v instanceof Float8Vector d) {
        d.allocateNew(n);
        if (value != null) {
          double x = Double.parseDouble(value);
          for (int i = 0; i < n; i++) {
            d.set(i, x);
          }
        }
      } else {
        VarCharVector s = (VarCharVector) v;
        byte[] bytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        s.allocateNew(bytes == null ? 1 : (long) bytes.length * n, n);
        if (bytes != null) {
          for (int i = 0; i < n; i++) {
            s.set(i, bytes);
          }
        }
      }
      v.setValueCount(n);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  /**
   * int64, float64, date or utf8: the narrowest that every value of key {@code k} is written as.
   */
  private static ArrowType typeOf(List<List<String>> values, int k) {
    boolean integers = true;
    boolean decimals = true;
    boolean dates = true;
    for (List<String> v : values) {
      String s = v.get(k);
      if (s == null) {
        continue;
      }
      integers &= isInteger(s);
      decimals &= isDecimal(s);
      dates &= isDate(s);
    }
    if (integers) {
      return new ArrowType.Int(64, true);
    }
    if (decimals) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    }
    return dates ? new ArrowType.Date(DateUnit.DAY) : ArrowType.Utf8.INSTANCE;
  }

  /** A day of the proleptic Gregorian calendar as {@code yyyy-MM-dd}: {@code 2023-02-29} is not. */
  private static boolean isDate(String s) {
    if (!DATE.matcher(s).matches()) {
      return false;
    }
    try {
      return LocalDate.parse(s).toString().equals(s);
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  private static boolean isInteger(String s) {
    if (!INTEGER.matcher(s).matches()) {
      return false;
    }
    try {
      return Long.toString(Long.parseLong(s)).equals(s);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** An integer, or a decimal as Java writes a double (so that it reads back as the same text). */
  private static boolean isDecimal(String s) {
    if (isInteger(s)) {
      return true;
    }
    if (s.indexOf('.') < 0) {
      return false; // NaN, Infinity, hexadecimal: left as text
    }
    try {
      return Double.toString(Double.parseDouble(s)).equals(s);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** {@code s} with its {@code %XX} escapes decoded as UTF-8; a malformed escape stays as it is. */
  static String decode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '%' && i + 2 < b.length && hex(b[i + 1]) >= 0 && hex(b[i + 2]) >= 0) {
        out.write(hex(b[i + 1]) * 16 + hex(b[i + 2]));
        i += 2;
      } else {
        out.write(b[i]);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static int hex(byte c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
