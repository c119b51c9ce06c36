package dev.riffle.dataset.write;

import dev.riffle.format.schema.RiffleSchema;
import dev.riffle.format.schema.TypeNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Why a schema offered for an append is not the dataset's, in words for the refusal. */
final class SchemaDifferences {
  private SchemaDifferences() {}

  /**
   * What differs between two schemas, field by field, for messages (empty if nothing does). Types
   * are named as the CLI prints them ({@link TypeNames}).
   *
   * @param have the existing schema
   * @param want the schema offered
   * @param wantDictionaries the dictionaries of the schema offered (for the values' types), or null
   */
  static List<String> of(RiffleSchema have, Schema want, DictionaryProvider wantDictionaries) {
    List<String> out = new ArrayList<>();
    Map<String, Field> a = new LinkedHashMap<>();
    have.arrow().getFields().forEach(f -> a.put(f.getName(), f));
    Map<String, Field> b = new LinkedHashMap<>();
    want.getFields().forEach(f -> b.put(f.getName(), f));
    for (String name : a.keySet()) {
      if (!b.containsKey(name)) {
        out.add("field '" + name + "' is missing");
      } else if (!a.get(name).equals(b.get(name))) {
        String offered =
            TypeNames.withNullability(b.get(name), values(b.get(name), wantDictionaries));
        String existing =
            TypeNames.withNullability(a.get(name), have.dictionaryValues(have.fieldIndex(name)));
        out.add(
            "field '"
                + name
                + "' is "
                + offered
                + (offered.equals(existing)
                    ? ", as in the dataset, but differs in its metadata or dictionary encoding"
                    : ", the dataset has " + existing));
      }
    }
    for (String name : b.keySet()) {
      if (!a.containsKey(name)) {
        out.add("field '" + name + "' is new");
      }
    }
    if (out.isEmpty() && !new ArrayList<>(a.keySet()).equals(new ArrayList<>(b.keySet()))) {
      out.add("the fields are in another order: " + b.keySet() + " instead of " + a.keySet());
    }
    return out;
  }

  /** The field describing a dictionary field's values, where the provider has them; else null. */
  private static Field values(Field field, DictionaryProvider dictionaries) {
    if (field.getDictionary() == null || dictionaries == null) {
      return null;
    }
    Dictionary d = dictionaries.lookup(field.getDictionary().getId());
    return d == null ? null : d.getVector().getField();
  }
}
