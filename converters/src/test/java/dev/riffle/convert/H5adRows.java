package dev.riffle.convert;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.read.FileReader;
import dev.riffle.format.read.ScanCursor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reads a converted dataset or side table back by column, as {@link ArrowValues} shows values, with
 * categoricals decoded to their strings and fixed-size lists as lists.
 */
final class H5adRows {
  private H5adRows() {}

  static Map<String, List<Object>> dataset(Path root, BufferAllocator allocator)
      throws IOException {
    try (LocalStorage storage = new LocalStorage(root);
        Dataset d = Dataset.open(storage, allocator)) {
      List<String> fields = new ArrayList<>();
      d.arrowSchema().getFields().forEach(f -> fields.add(f.getName()));
      Map<String, List<Object>> out = empty(fields);
      DatasetView.Cursor c = d.all().scan(fields, 16);
      while (true) {
        VectorSchemaRoot batch = c.next();
        if (batch == null) {
          break;
        }
        try (VectorSchemaRoot b = batch) {
          add(out, b, d.dictionaries());
        }
      }
      return out;
    }
  }

  static Map<String, List<Object>> file(Path path, BufferAllocator allocator) throws IOException {
    try (FileReader r = FileReader.open(path, allocator)) {
      List<String> fields = new ArrayList<>();
      r.arrowSchema().getFields().forEach(f -> fields.add(f.getName()));
      Map<String, List<Object>> out = empty(fields);
      ScanCursor c = r.scan(fields, 16);
      while (true) {
        VectorSchemaRoot batch = c.next();
        if (batch == null) {
          break;
        }
        try (VectorSchemaRoot b = batch) {
          add(out, b, r.dictionaries());
        }
      }
      return out;
    }
  }

  private static Map<String, List<Object>> empty(List<String> fields) {
    Map<String, List<Object>> out = new LinkedHashMap<>();
    fields.forEach(f -> out.put(f, new ArrayList<>()));
    return out;
  }

  private static void add(
      Map<String, List<Object>> out, VectorSchemaRoot b, DictionaryProvider dictionaries) {
    for (FieldVector v : b.getFieldVectors()) {
      List<Object> col = out.get(v.getName());
      Field f = v.getField();
      for (int i = 0; i < b.getRowCount(); i++) {
        Object x = value(v, i);
        if (x instanceof Long && f.getDictionary() != null) {
          VarCharVector dict =
              (VarCharVector) dictionaries.lookup(f.getDictionary().getId()).getVector();
          x = new String(dict.get((int) (long) (Long) x), StandardCharsets.UTF_8);
        }
        col.add(x);
      }
    }
  }

  private static Object value(FieldVector v, int i) {
    if (v instanceof FixedSizeListVector && !v.isNull(i)) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      List<Object> items = new ArrayList<>();
      for (int j = 0; j < l.getListSize(); j++) {
        items.add(ArrowValues.get((FieldVector) l.getDataVector(), i * l.getListSize() + j));
      }
      return items;
    }
    return ArrowValues.get(v, i);
  }
}
