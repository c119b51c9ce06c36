package dev.riffle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.riffle.format.schema.TypeNames;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A categorical field's dictionary in the JSON of {@code inspect} and {@code info}: its id, types,
 * {@code ordered} flag and values in code order, so that a category list and its order can be
 * checked against the source (pandas categories, Arrow dictionaries).
 */
final class DictionaryJson {
  private DictionaryJson() {}

  static void put(ObjectNode node, Field field, Field values, DictionaryProvider dictionaries) {
    ObjectNode dict = node.putObject("dictionary");
    dict.put("id", field.getDictionary().getId());
    dict.put("valueType", TypeNames.of(values, null));
    dict.put("indexType", TypeNames.of(field.getDictionary().getIndexType()));
    dict.put("ordered", field.getDictionary().isOrdered());
    ArrayNode list = dict.putArray("values");
    Dictionary d = dictionaries == null ? null : dictionaries.lookup(field.getDictionary().getId());
    if (d == null) {
      return;
    }
    // Each value as scan prints it (ISO dates, unsigned and wide integers, decimals as strings).
    FieldVector v = d.getVector();
    ArrowJson.ValueWriter writer = ArrowJson.writerFor(v, dictionaries);
    for (int i = 0; i < v.getValueCount(); i++) {
      list.addRawValue(new RawValue(ArrowJson.text(writer, i)));
    }
  }
}
