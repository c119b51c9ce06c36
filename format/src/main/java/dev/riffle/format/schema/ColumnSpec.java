package dev.riffle.format.schema;

import java.util.List;

/**
 * One stored column: either a single top-level field, or a group of top-level fields that are
 * stored row-major together so that reading all of them for one row costs one read.
 *
 * @param name the field name, or the group's name (its field names joined by '+')
 * @param fields indices of the top-level fields, in schema order
 * @param group whether this is a group (its records carry the fields' validity inside)
 */
public record ColumnSpec(String name, List<Integer> fields, boolean group) {
  public ColumnSpec {
    fields = List.copyOf(fields);
    if (fields.isEmpty()) {
      throw new IllegalArgumentException("column " + name + " has no fields");
    }
  }
}
