package dev.riffle.convert;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Reads a whole (small) dataset back as rows of {@link ArrowValues}. */
final class DatasetRows {
  private DatasetRows() {}

  static List<List<Object>> read(Storage storage, BufferAllocator allocator) throws IOException {
    List<List<Object>> rows = new ArrayList<>();
    try (Dataset d = Dataset.open(storage, allocator)) {
      List<String> fields = new ArrayList<>();
      d.arrowSchema().getFields().forEach(f -> fields.add(f.getName()));
      DatasetView.Cursor c = d.all().scan(fields, 4096);
      while (true) {
        VectorSchemaRoot b = c.next();
        if (b == null) {
          break;
        }
        try (b) {
          rows.addAll(ArrowValues.rows(b));
        }
      }
    }
    return rows;
  }
}
