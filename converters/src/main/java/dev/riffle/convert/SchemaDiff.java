package dev.riffle.convert;

import dev.riffle.format.schema.TypeNames;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** The first difference between two inputs' schemas, worded for an error message. */
final class SchemaDiff {
  private SchemaDiff() {}

  /**
   * @return null if the schemas are equal
   */
  static String first(Schema expected, Schema actual, String expectedName) {
    Map<String, Field> want = new LinkedHashMap<>();
    expected.getFields().forEach(f -> want.put(f.getName(), f));
    Map<String, Field> have = new LinkedHashMap<>();
    actual.getFields().forEach(f -> have.put(f.getName(), f));
    for (Field w : want.values()) {
      Field h = have.get(w.getName());
      if (h == null) {
        return "field '" + w.getName() + "' is missing (it is in " + expectedName + ")";
      }
      if (!h.equals(w)) {
        String here = TypeNames.withNullability(h, null);
        String there = TypeNames.withNullability(w, null);
        return "field '"
            + w.getName()
            + "' is "
            + here
            + (here.equals(there)
                ? " here and in " + expectedName + ", but its metadata differs"
                : " here but " + there + " in " + expectedName);
      }
    }
    for (Field h : have.values()) {
      if (!want.containsKey(h.getName())) {
        return "field '" + h.getName() + "' is not in " + expectedName;
      }
    }
    if (!expected.getFields().equals(actual.getFields())) {
      return "the fields are in another order than in " + expectedName;
    }
    return null;
  }
}
