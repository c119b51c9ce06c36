package dev.riffle.dataset;

import dev.riffle.format.ByteSink;
import dev.riffle.format.encoding.Codecs;
import dev.riffle.format.encoding.ValueCodec;
import dev.riffle.format.read.FileReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * One dictionary per categorical field for a whole dataset: the union of its files' dictionaries,
 * in file order, and for each file the map from its codes to the dataset's. Files written by one
 * {@code DatasetWriter} share codes, so their maps are the identity; files from separate writers
 * are remapped, so that a code means one value across every batch a dataset returns.
 */
final class DictionaryUnion implements AutoCloseable {
  private final Map<Long, FieldVector> dictionaries = new HashMap<>();
  private final Map<Long, DictionaryEncoding> encodings = new HashMap<>();

  /** encoding id → per file (by index) code map, null when the identity. */
  private final Map<Long, int[][]> maps = new HashMap<>();

  /** Loads every file's dictionaries (one column-block read per file and categorical field). */
  static DictionaryUnion build(Dataset dataset, BufferAllocator allocator) throws IOException {
    DictionaryUnion u = new DictionaryUnion();
    boolean ok = false;
    try {
      List<Field> fields = dataset.schema().fields();
      for (int f = 0; f < fields.size(); f++) {
        DictionaryEncoding enc = fields.get(f).getDictionary();
        if (enc == null) {
          continue;
        }
        Field valueField = dataset.schema().dictionaryValues(f);
        ValueCodec codec = Codecs.forField(valueField);
        FieldVector union = valueField.createVector(allocator);
        u.dictionaries.put(enc.getId(), union);
        u.encodings.put(enc.getId(), enc);
        union.allocateNew();
        Map<ByteBuffer, Integer> codes = new HashMap<>();
        ByteSink key = new ByteSink();
        int[][] perFile = new int[dataset.fileCount()][];
        int size = 0;
        for (int i = 0; i < dataset.fileCount(); i++) {
          FileReader file = dataset.file(i);
          Dictionary d = file.dictionaries().lookup(enc.getId());
          FieldVector values = d == null ? null : d.getVector();
          int n = values == null ? 0 : values.getValueCount();
          int[] map = new int[n];
          boolean identity = true;
          for (int c = 0; c < n; c++) {
            key.clear();
            codec.encode(values, c, key, true);
            ByteBuffer k = ByteBuffer.wrap(key.toByteArray());
            Integer code = codes.get(k);
            if (code == null) {
              code = size++;
              codes.put(k, code);
              union.copyFromSafe(c, code, values);
            }
            map[c] = code;
            identity &= code == c;
          }
          perFile[i] = identity ? null : map;
        }
        union.setValueCount(size);
        u.maps.put(enc.getId(), perFile);
      }
      ok = true;
      return u;
    } finally {
      if (!ok) {
        u.close();
      }
    }
  }

  /** The code map of file {@code file} for a dictionary, or null if codes are kept as they are. */
  private int[] map(long encodingId, int file) {
    return maps.get(encodingId)[file];
  }

  /** Rewrites the codes of a batch taken from file {@code file} into the dataset's, in place. */
  void remap(VectorSchemaRoot part, int file) {
    for (FieldVector v : part.getFieldVectors()) {
      if (v.getField().getDictionary() == null) {
        continue;
      }
      int[] map = map(v.getField().getDictionary().getId(), file);
      if (map == null) {
        continue;
      }
      BaseIntVector codes = (BaseIntVector) v;
      for (int j = 0; j < v.getValueCount(); j++) {
        if (!v.isNull(j)) {
          codes.setWithPossibleTruncate(j, map[(int) codes.getValueAsLong(j)]);
        }
      }
    }
  }

  DictionaryProvider provider() {
    DictionaryProvider.MapDictionaryProvider p = new DictionaryProvider.MapDictionaryProvider();
    for (Map.Entry<Long, FieldVector> e : dictionaries.entrySet()) {
      p.put(new Dictionary(e.getValue(), encodings.get(e.getKey())));
    }
    return p;
  }

  @Override
  public void close() {
    new ArrayList<>(dictionaries.values()).forEach(FieldVector::close);
    dictionaries.clear();
  }
}
