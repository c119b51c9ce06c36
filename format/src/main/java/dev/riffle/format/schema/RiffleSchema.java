package dev.riffle.format.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The schema of a file: the Arrow schema as readers see it (dictionary fields carry their index
 * type and encoding, as in an Arrow {@code VectorSchemaRoot}), the value field of each dictionary
 * field, and how top-level fields are assigned to stored columns.
 */
public final class RiffleSchema {
  private final Schema arrow;
  private final Map<Integer, Field> dictionaryValues;
  private final List<ColumnSpec> columns;
  private final Map<String, Integer> fieldIndex = new HashMap<>();
  private final int[] columnOfField;

  /**
   * @param arrow the schema in Arrow's in-memory form
   * @param dictionaryValues for each dictionary-encoded top-level field (by index), the field that
   *     describes its dictionary's values
   * @param columns the stored columns; every top-level field must appear in exactly one
   */
  public RiffleSchema(
      Schema arrow, Map<Integer, Field> dictionaryValues, List<ColumnSpec> columns) {
    this.arrow = arrow;
    this.dictionaryValues = Collections.unmodifiableMap(new LinkedHashMap<>(dictionaryValues));
    this.columns = List.copyOf(columns);
    List<Field> fields = arrow.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (fieldIndex.put(fields.get(i).getName(), i) != null) {
        throw new IllegalArgumentException(
            "two top-level fields are named '" + fields.get(i).getName() + "'");
      }
    }
    columnOfField = new int[fields.size()];
    java.util.Arrays.fill(columnOfField, -1);
    for (int c = 0; c < this.columns.size(); c++) {
      if (!this.columns.get(c).group() && this.columns.get(c).fields().size() != 1) {
        throw new IllegalArgumentException(
            "column "
                + this.columns.get(c).name()
                + " is not a group but has "
                + this.columns.get(c).fields().size()
                + " fields");
      }
      for (int f : this.columns.get(c).fields()) {
        if (f < 0 || f >= fields.size() || columnOfField[f] >= 0) {
          throw new IllegalArgumentException(
              "column "
                  + this.columns.get(c).name()
                  + " names field "
                  + f
                  + " twice or out of range");
        }
        columnOfField[f] = c;
      }
    }
    for (int f = 0; f < fields.size(); f++) {
      if (columnOfField[f] < 0) {
        throw new IllegalArgumentException(
            "field '" + fields.get(f).getName() + "' is in no column");
      }
      boolean dict = fields.get(f).getDictionary() != null;
      if (dict && this.columns.get(columnOfField[f]).group()) {
        throw new IllegalArgumentException(
            "dictionary field '" + fields.get(f).getName() + "' in a column group");
      }
      if (dict != dictionaryValues.containsKey(f)) {
        throw new IllegalArgumentException(
            "field '" + fields.get(f).getName() + "' dictionary values missing or unexpected");
      }
    }
  }

  /**
   * Builds the schema a writer stores: every field is checked, then assigned to its group or to a
   * column of its own, in schema order of each column's first field.
   *
   * @param groups lists of top-level field names to store together; may be empty
   * @throws UnsupportedTypeException naming the first field whose type cannot be stored
   * @throws IllegalArgumentException if a group names an unknown or already grouped field
   */
  public static RiffleSchema forWriting(
      Schema arrow, Map<Integer, Field> dictionaryValues, List<List<String>> groups) {
    List<Field> fields = arrow.getFields();
    if (fields.size() > TypeSupport.MAX_COUNT) {
      throw new IllegalArgumentException(
          "a file holds at most "
              + TypeSupport.MAX_COUNT
              + " top-level fields, not "
              + fields.size());
    }
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      if (f.getDictionary() != null) {
        TypeSupport.checkDictionaryIndex(f);
        Field values = dictionaryValues.get(i);
        if (values == null) {
          throw new IllegalArgumentException(
              "field '" + f.getName() + "' is dictionary-encoded but no dictionary was given");
        }
        TypeSupport.check(values, f.getName() + " (dictionary values)");
      } else {
        TypeSupport.check(f, f.getName());
      }
    }
    Map<String, Integer> byName = new HashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      byName.put(fields.get(i).getName(), i);
    }
    int[] groupOf = new int[fields.size()];
    java.util.Arrays.fill(groupOf, -1);
    for (int g = 0; g < groups.size(); g++) {
      Set<String> seen = new HashSet<>();
      for (String name : groups.get(g)) {
        Integer idx = byName.get(name);
        if (idx == null) {
          throw new IllegalArgumentException(
              "column group " + groups.get(g) + " names unknown field '" + name + "'");
        }
        if (groupOf[idx] >= 0 || !seen.add(name)) {
          throw new IllegalArgumentException(
              "field '" + name + "' is in more than one column group");
        }
        if (fields.get(idx).getDictionary() != null) {
          throw new IllegalArgumentException(
              "field '"
                  + name
                  + "' is dictionary-encoded; "
                  + "dictionary fields cannot be in a column group");
        }
        groupOf[idx] = g;
      }
    }
    List<ColumnSpec> columns = new ArrayList<>();
    boolean[] emitted = new boolean[groups.size()];
    for (int i = 0; i < fields.size(); i++) {
      int g = groupOf[i];
      if (g < 0) {
        columns.add(new ColumnSpec(fields.get(i).getName(), List.of(i), false));
      } else if (!emitted[g]) {
        emitted[g] = true;
        List<Integer> members = new ArrayList<>();
        for (int j = 0; j < fields.size(); j++) {
          if (groupOf[j] == g) {
            members.add(j);
          }
        }
        List<String> names = new ArrayList<>();
        for (int j : members) {
          names.add(fields.get(j).getName());
        }
        columns.add(new ColumnSpec(String.join("+", names), members, true));
      }
    }
    return new RiffleSchema(arrow, dictionaryValues, columns);
  }

  /** The Arrow schema in in-memory form. */
  public Schema arrow() {
    return arrow;
  }

  public List<Field> fields() {
    return arrow.getFields();
  }

  public List<ColumnSpec> columns() {
    return columns;
  }

  /** The dictionary value field of dictionary field {@code fieldIndex}, or null. */
  public Field dictionaryValues(int fieldIndex) {
    return dictionaryValues.get(fieldIndex);
  }

  public Map<Integer, Field> dictionaryValues() {
    return dictionaryValues;
  }

  /** Index of the top-level field with this name, or -1. */
  public int fieldIndex(String name) {
    return fieldIndex.getOrDefault(name, -1);
  }

  /** Index of the stored column that holds top-level field {@code fieldIndex}. */
  public int columnOf(int fieldIndex) {
    return columnOfField[fieldIndex];
  }

  /** True if the field is dictionary-encoded. */
  public boolean isDictionary(int fieldIndex) {
    return arrow.getFields().get(fieldIndex).getDictionary() != null;
  }

  static boolean isInt(ArrowType t) {
    return t instanceof ArrowType.Int;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RiffleSchema
        && ((RiffleSchema) o).arrow.equals(arrow)
        && ((RiffleSchema) o).dictionaryValues.equals(dictionaryValues)
        && ((RiffleSchema) o).columns.equals(columns);
  }

  @Override
  public int hashCode() {
    return arrow.hashCode() * 31 + columns.hashCode();
  }

  @Override
  public String toString() {
    return arrow.toString() + " columns=" + columns;
  }
}
