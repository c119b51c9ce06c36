package dev.riffle.convert;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Replaces dictionary-encoded (categorical) fields by their values, for exports: the schema once,
 * then every batch. Parquet re-encodes them with its own dictionary pages.
 */
final class DictionaryDecoder {
  private final Schema source;
  private final Schema decoded;
  private final DictionaryProvider dictionaries;

  DictionaryDecoder(Schema source, DictionaryProvider dictionaries) {
    this.source = source;
    this.dictionaries = dictionaries;
    List<Field> fields = new ArrayList<>();
    for (Field f : source.getFields()) {
      if (f.getDictionary() == null) {
        fields.add(f);
      } else {
        Field values = dictionaries.lookup(f.getDictionary().getId()).getVector().getField();
        fields.add(
            new Field(
                f.getName(),
                new FieldType(f.isNullable(), values.getType(), null, f.getMetadata()),
                values.getChildren()));
      }
    }
    this.decoded = new Schema(fields, source.getCustomMetadata());
  }

  Schema schema() {
    return decoded;
  }

  /** The batch with its categorical fields decoded; closes {@code batch} if it made a new one. */
  VectorSchemaRoot decode(VectorSchemaRoot batch, BufferAllocator allocator) {
    if (decoded == source || source.getFields().stream().allMatch(f -> f.getDictionary() == null)) {
      return batch;
    }
    List<FieldVector> out = new ArrayList<>();
    try {
      for (int i = 0; i < source.getFields().size(); i++) {
        Field f = source.getFields().get(i);
        FieldVector v = batch.getVector(i);
        if (f.getDictionary() == null) {
          var tp = v.getTransferPair(allocator);
          tp.transfer();
          out.add((FieldVector) tp.getTo());
        } else {
          Dictionary d = dictionaries.lookup(f.getDictionary().getId());
          try (ValueVector values = DictionaryEncoder.decode(v, d, allocator)) {
            FieldVector target = decoded.getFields().get(i).createVector(allocator);
            values.makeTransferPair(target).transfer();
            out.add(target);
          }
        }
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    } finally {
      batch.close();
    }
    VectorSchemaRoot r = new VectorSchemaRoot(decoded.getFields(), out, batch.getRowCount());
    r.setRowCount(batch.getRowCount());
    return r;
  }
}
