package dev.riffle.format.write;

import dev.riffle.format.ByteSink;
import dev.riffle.format.encoding.ValueCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * Gives each distinct dictionary value one code for the whole file, the values of the dictionary
 * given at creation first in its order, then others in first-seen order, so that batches with
 * different (or differently ordered) Arrow dictionaries still write one consistent file dictionary,
 * and the same rows always give the same codes.
 */
final class DictionaryRemapper {
  private final String field;
  private final ValueCodec valueCodec;
  private final long maxCodes;
  private final Map<ByteBuffer, Integer> codes = new HashMap<>();
  private final List<byte[]> values = new ArrayList<>();
  private final ByteSink scratch = new ByteSink();
  private FieldVector batchDictionary;
  private int[] batchCodes = new int[0];

  DictionaryRemapper(String field, ValueCodec valueCodec, int indexBits, boolean signed) {
    this.field = field;
    this.valueCodec = valueCodec;
    long byIndex = indexBits == 64 ? Long.MAX_VALUE : 1L << (indexBits - (signed ? 1 : 0));
    // Readers refuse larger dictionaries: beyond this a column is no categorical.
    this.maxCodes = Math.min(byIndex, dev.riffle.format.ColumnLayout.MAX_DICTIONARY_ENTRIES);
  }

  /**
   * Gives {@code dictionary}'s values their codes now, in its order, before any row: a declared
   * dictionary (pandas categories) keeps its order and its unused values, also with no rows.
   */
  void declare(FieldVector dictionary) {
    startBatch(dictionary);
    for (int i = 0; i < dictionary.getValueCount(); i++) {
      lookup(i);
    }
  }

  String field() {
    return field;
  }

  /** Starts a batch whose indices refer to {@code dictionary}. */
  void startBatch(FieldVector dictionary) {
    batchDictionary = dictionary;
    int n = dictionary.getValueCount();
    if (batchCodes.length < n) {
      batchCodes = new int[n];
    }
    Arrays.fill(batchCodes, 0, n, -2);
  }

  /**
   * The file code of row {@code row} of the index vector, or -1 if the row is null (a null index or
   * an index pointing at a null dictionary entry).
   */
  int code(BaseIntVector indices, int row) {
    if (((FieldVector) indices).isNull(row)) {
      return -1;
    }
    long in = indices.getValueAsLong(row);
    if (in < 0 || in >= batchDictionary.getValueCount()) {
      throw new IllegalArgumentException(
          "field '"
              + field
              + "' row "
              + row
              + " has dictionary index "
              + in
              + " but the dictionary has "
              + batchDictionary.getValueCount()
              + " entries");
    }
    int i = (int) in;
    int code = batchCodes[i];
    if (code == -2) {
      code = lookup(i);
      batchCodes[i] = code;
    }
    return code;
  }

  private int lookup(int i) {
    if (batchDictionary.isNull(i)) {
      return -1;
    }
    scratch.clear();
    valueCodec.encode(batchDictionary, i, scratch, true);
    ByteBuffer key = ByteBuffer.wrap(scratch.toByteArray());
    Integer code = codes.get(key);
    if (code == null) {
      if (values.size() >= maxCodes) {
        throw new IllegalArgumentException(
            "field '"
                + field
                + "' has more distinct dictionary values than its index type and the format allow ("
                + maxCodes
                + ")");
      }
      code = values.size();
      codes.put(key, code);
      values.add(key.array());
    }
    return code;
  }

  /** The file dictionary: each value's record, in code order. */
  List<byte[]> values() {
    return values;
  }
}
