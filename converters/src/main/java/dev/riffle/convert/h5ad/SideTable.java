package dev.riffle.convert.h5ad;

import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.SharedDictionaries;
import dev.riffle.format.write.WriterOptions;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table that goes with a dataset but has other rows (var: one row a gene), written as one Riffle
 * file in the dataset's directory. The manifest has no field for such tables, so the converter
 * records their paths and SHA-256 in its metadata.
 */
final class SideTable {
  private SideTable() {}

  /**
   * Writes {@code rows} rows of the columns to {@code path}.
   *
   * @return the file's SHA-256, hex
   */
  static String write(
      Storage storage,
      String path,
      List<Column> columns,
      long rows,
      int batchRows,
      BufferAllocator allocator)
      throws IOException {
    List<Field> fields = new ArrayList<>();
    DictionaryProvider.MapDictionaryProvider dictionaries =
        new DictionaryProvider.MapDictionaryProvider();
    for (Column c : columns) {
      fields.add(c.field());
      if (c.dictionary() != null) {
        dictionaries.put(c.dictionary());
      }
    }
    Schema schema = new Schema(fields);
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    try (OutputStream raw = storage.create(path);
        DigestOutputStream digest = new DigestOutputStream(raw, md);
        OutputStream out = new BufferedOutputStream(digest, 1 << 20);
        FileWriter w =
            FileWriter.create(
                out,
                schema,
                dictionaries,
                WriterOptions.defaults(),
                // Categories keep their list and order, unused ones too.
                SharedDictionaries.declared(schema, dictionaries, WriterOptions.defaults()))) {
      for (long start = 0; start < rows; start += batchRows) {
        int n = (int) Math.min(batchRows, rows - start);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
          for (int i = 0; i < columns.size(); i++) {
            FieldVector v = root.getVector(i);
            v.allocateNew();
            columns.get(i).fill(v, start, n);
          }
          root.setRowCount(n);
          w.write(root);
        }
      }
      w.finish();
      out.flush();
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
