package dev.riffle.convert;

import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.storage.Storage;
import dev.riffle.format.ColumnLayout;
import dev.riffle.format.schema.TypeNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * String columns written as categoricals ({@link ConvertOptions#categorical()}, {@code convert
 * --categorical}): each named top-level utf8 or large_utf8 column becomes dictionary-encoded, with
 * the smallest index type of {@link #indexType}. Its dictionary is the column's distinct non-null
 * values over the whole input, found by a first pass, in ascending order of their UTF-8 bytes
 * (Unicode code point order, as Python sorts str): the same codes whatever the order of the input
 * files, their number or the threads. The writer declares the dictionary before any row, so every
 * file of the version has these codes. Nulls stay null.
 *
 * <p>When appending to a dataset that already has the column as a string categorical, its
 * dictionary and index type are kept and new values follow, sorted, so that existing codes never
 * change. A column that is dictionary-encoded in the input already stays as it is.
 */
public final class Categoricals implements AutoCloseable {
  /** The most values a categorical holds: the format's limit on dictionary entries. */
  static final int MAX_VALUES = ColumnLayout.MAX_DICTIONARY_ENTRIES;

  private final Schema schema;
  private final int[] columns;
  private final List<Field> fields;
  private final List<Map<Bytes, Integer>> codes;
  private final Map<Long, Dictionary> dictionaries;

  private Categoricals(
      Schema schema,
      int[] columns,
      List<Field> fields,
      List<Map<Bytes, Integer>> codes,
      Map<Long, Dictionary> dictionaries) {
    this.schema = schema;
    this.columns = columns;
    this.fields = fields;
    this.codes = codes;
    this.dictionaries = dictionaries;
  }

  /**
   * The smallest signed index type for a dictionary of {@code values} entries: int8 up to 127,
   * int16 up to 32767, else int32.
   */
  public static ArrowType.Int indexType(long values) {
    int bits = values <= Byte.MAX_VALUE ? 8 : values <= Short.MAX_VALUE ? 16 : 32;
    return new ArrowType.Int(bits, true);
  }

  /** A column's value as a key: its bytes, compared unsigned. */
  record Bytes(byte[] bytes) implements Comparable<Bytes> {
    @Override
    public boolean equals(Object o) {
      return o instanceof Bytes b && Arrays.equals(bytes, b.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public int compareTo(Bytes o) {
      return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public String toString() {
      return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /**
   * The distinct values of one column, at most {@link #MAX_VALUES} of them: the first pass collects
   * one per column and input file, then merges them.
   */
  static final class Distinct {
    /**
     * Heap a set may take, about: one per file and thread is held at once, then merged, so that a
     * column of mostly distinct values (ids, free text) asked for by mistake is refused before it
     * exhausts the heap.
     */
    static final long HEAP = Runtime.getRuntime().maxMemory() / 8;

    // A value's cost in the set beyond its bytes: its key object, array header and hash node.
    private static final int OVERHEAD = 80;

    final String column;
    final Set<Bytes> values = new HashSet<>();
    private final int cap;
    private final long heap;
    private long bytes;

    Distinct(String column) {
      this(column, MAX_VALUES, HEAP);
    }

    /** With smaller limits than the format's and the heap's, for tests. */
    Distinct(String column, int cap, long heap) {
      this.column = column;
      this.cap = cap;
      this.heap = heap;
    }

    /**
     * @throws IllegalArgumentException naming the column, past the cap
     */
    void add(byte[] value) {
      if (values.add(new Bytes(value))) {
        bytes += OVERHEAD + value.length;
        checkSize();
      }
    }

    void addAll(Distinct other) {
      for (Bytes b : other.values) {
        if (values.add(b)) {
          bytes += OVERHEAD + b.bytes().length;
        }
      }
      checkSize();
    }

    private void checkSize() {
      if (values.size() > cap) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "categorical column '%s' has more than %,d distinct values, the most a"
                    + " categorical holds; leave it a string column",
                column,
                cap));
      }
      if (bytes > heap) {
        throw new IllegalArgumentException(
            String.format(
                Locale.ROOT,
                "categorical column '%s' has over %,d distinct values (%,d MiB of them), more"
                    + " than this process's heap can hold as a dictionary; leave it a string"
                    + " column, or give Java more heap (RIFFLE_JAVA_OPTS=-Xmx...)",
                column,
                values.size(),
                bytes >> 20));
      }
    }
  }

  /**
   * The columns of {@code schema} to encode, by index, for the names asked for: each must be a
   * top-level utf8 or large_utf8 column; one already dictionary-encoded is left out (it is a
   * categorical already). Names may repeat.
   *
   * @throws InputException naming {@code input}, for a name that is no column or no string column
   */
  static int[] resolve(Schema schema, List<String> names, String input) throws InputException {
    List<String> all = new ArrayList<>();
    schema.getFields().forEach(f -> all.add(f.getName()));
    Set<Integer> out = new LinkedHashSet<>();
    for (String name : names) {
      int i = all.indexOf(name);
      if (i < 0) {
        throw new InputException(
            input,
            "--categorical names no column '"
                + name
                + "' (the top-level columns are "
                + String.join(", ", all)
                + ")");
      }
      Field f = schema.getFields().get(i);
      if (f.getDictionary() != null) {
        continue;
      }
      ArrowType.ArrowTypeID t = f.getType().getTypeID();
      if (t != ArrowType.ArrowTypeID.Utf8 && t != ArrowType.ArrowTypeID.LargeUtf8) {
        throw new InputException(
            input,
            "--categorical column '"
                + name
                + "' is "
                + TypeNames.of(f, null)
                + ", not a string column (utf8 or large_utf8)");
      }
      out.add(i);
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Nothing to encode: batches pass as they are. */
  static Categoricals none(Schema schema) {
    return new Categoricals(schema, new int[0], List.of(), List.of(), Map.of());
  }

  /**
   * The dictionaries of {@code columns} from their distinct values; with {@link
   * ConvertOptions#append()}, continuing those of the dataset at {@code out}.
   *
   * @param schema the input's schema
   * @param columns from {@link #resolve}
   * @param values each column's distinct values, in the order of {@code columns}
   * @param allocator holds the dictionaries until {@link #close}, and the codes of {@link #encode}
   * @throws IllegalArgumentException naming the column, if appending needs more values than the
   *     dataset's index type holds
   */
  static Categoricals build(
      Schema schema,
      int[] columns,
      List<Distinct> values,
      Storage out,
      ConvertOptions options,
      BufferAllocator allocator)
      throws IOException {
    if (options.append() && !Dataset.versions(out).isEmpty()) {
      try (Dataset d = Dataset.open(out, allocator)) {
        return dictionaries(schema, columns, values, d.arrowSchema(), d.dictionaries(), allocator);
      }
    }
    return dictionaries(schema, columns, values, null, null, allocator);
  }

  /** As {@link #build}, continuing the dictionaries of {@code existing}, unless null. */
  private static Categoricals dictionaries(
      Schema schema,
      int[] columns,
      List<Distinct> values,
      Schema existing,
      DictionaryProvider existingDictionaries,
      BufferAllocator allocator) {
    long nextId = 0;
    for (Field f : schema.getFields()) {
      if (f.getDictionary() != null) {
        nextId = Math.max(nextId, f.getDictionary().getId() + 1);
      }
    }
    if (existing != null) {
      for (Field f : existing.getFields()) {
        if (f.getDictionary() != null) {
          nextId = Math.max(nextId, f.getDictionary().getId() + 1);
        }
      }
    }
    List<Field> out = new ArrayList<>(schema.getFields());
    List<Field> fields = new ArrayList<>();
    List<Map<Bytes, Integer>> codes = new ArrayList<>();
    Map<Long, Dictionary> dictionaries = new HashMap<>();
    Categoricals c = new Categoricals(null, columns, fields, codes, dictionaries);
    try {
      for (int k = 0; k < columns.length; k++) {
        Field f = schema.getFields().get(columns[k]);
        List<Bytes> order = new ArrayList<>();
        DictionaryEncoding kept = null;
        Field before = existing == null ? null : field(existing, f.getName());
        if (before != null && before.getDictionary() != null) {
          Dictionary d = existingDictionaries.lookup(before.getDictionary().getId());
          if (d != null && d.getVector() instanceof VariableWidthFieldVector v) {
            ArrowType.ArrowTypeID t = d.getVector().getField().getType().getTypeID();
            if (t == ArrowType.ArrowTypeID.Utf8 || t == ArrowType.ArrowTypeID.LargeUtf8) {
              kept = before.getDictionary();
              for (int i = 0; i < v.getValueCount(); i++) {
                if (!v.isNull(i)) {
                  order.add(new Bytes(v.get(i)));
                }
              }
            }
          }
        }
        Set<Bytes> known = new HashSet<>(order);
        values.get(k).values.stream().filter(b -> !known.contains(b)).sorted().forEach(order::add);
        DictionaryEncoding encoding =
            kept != null ? kept : new DictionaryEncoding(nextId++, false, indexType(order.size()));
        ArrowType.Int type = encoding.getIndexType();
        int bits = type.getBitWidth() - (type.getIsSigned() ? 1 : 0);
        long room = bits >= 63 ? Long.MAX_VALUE : 1L << bits;
        if (order.size() > Math.min(room, MAX_VALUES)) {
          throw new IllegalArgumentException(
              String.format(
                  Locale.ROOT,
                  "categorical column '%s' would have %,d values with the new input, more than"
                      + " the dataset's %s codes hold; convert the data into a new dataset",
                  f.getName(),
                  order.size(),
                  TypeNames.of(encoding.getIndexType())));
        }
        Map<Bytes, Integer> index = new HashMap<>(order.size() * 2);
        for (int i = 0; i < order.size(); i++) {
          index.put(order.get(i), i);
        }
        Field valuesField = new Field(f.getName(), FieldType.nullable(f.getType()), null);
        VariableWidthFieldVector vector =
            (VariableWidthFieldVector) valuesField.createVector(allocator);
        dictionaries.put(encoding.getId(), new Dictionary(vector, encoding));
        vector.allocateNew(order.size());
        for (int i = 0; i < order.size(); i++) {
          vector.setSafe(i, order.get(i).bytes());
        }
        vector.setValueCount(order.size());
        Field coded =
            new Field(
                f.getName(),
                new FieldType(f.isNullable(), encoding.getIndexType(), encoding, f.getMetadata()),
                List.of());
        out.set(columns[k], coded);
        fields.add(coded);
        codes.add(index);
      }
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    return new Categoricals(
        new Schema(out, schema.getCustomMetadata()), columns, fields, codes, dictionaries);
  }

  private static Field field(Schema schema, String name) {
    for (Field f : schema.getFields()) {
      if (f.getName().equals(name)) {
        return f;
      }
    }
    return null;
  }

  boolean isEmpty() {
    return columns.length == 0;
  }

  /** The indices of the input columns made categorical. */
  int[] columns() {
    return columns.clone();
  }

  /** The schema the writer takes: the input's, with the columns made categorical. */
  Schema schema() {
    return schema;
  }

  /**
   * The dictionaries of the columns made categorical, then those of the input's own ({@code input},
   * or null where it has none).
   */
  DictionaryProvider dictionaries(DictionaryProvider input) {
    return new DictionaryProvider() {
      @Override
      public Dictionary lookup(long id) {
        Dictionary d = dictionaries.get(id);
        return d != null || input == null ? d : input.lookup(id);
      }

      @Override
      public Set<Long> getDictionaryIds() {
        Set<Long> ids = new HashSet<>(dictionaries.keySet());
        if (input != null) {
          ids.addAll(input.getDictionaryIds());
        }
        return ids;
      }
    };
  }

  /**
   * A batch in the writer's schema: {@link #root} holds the input batch's vectors, and the codes of
   * the columns made categorical in place of their strings; {@link #close} frees only the codes.
   */
  record Encoded(VectorSchemaRoot root, List<FieldVector> codes) implements AutoCloseable {
    @Override
    public void close() {
      codes.forEach(FieldVector::close);
    }
  }

  /**
   * {@code batch} in the writer's schema; {@code batch} stays the caller's.
   *
   * @throws InputException naming {@code input}, for a value the first pass did not see (the input
   *     changed meanwhile)
   */
  Encoded encode(VectorSchemaRoot batch, BufferAllocator allocator, String input)
      throws InputException {
    int n = batch.getRowCount();
    List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors());
    List<FieldVector> made = new ArrayList<>();
    try {
      for (int k = 0; k < columns.length; k++) {
        VariableWidthFieldVector strings = (VariableWidthFieldVector) vectors.get(columns[k]);
        FieldVector v = fields.get(k).createVector(allocator);
        made.add(v);
        ((BaseFixedWidthVector) v).allocateNew(n);
        fill(strings, (BaseIntVector) v, n, codes.get(k), fields.get(k), input);
        v.setValueCount(n);
        vectors.set(columns[k], v);
      }
    } catch (InputException | RuntimeException e) {
      made.forEach(FieldVector::close);
      throw e;
    }
    return new Encoded(new VectorSchemaRoot(schema, vectors, n), made);
  }

  private static void fill(
      VariableWidthFieldVector strings,
      BaseIntVector out,
      int n,
      Map<Bytes, Integer> codes,
      Field field,
      String input)
      throws InputException {
    for (int i = 0; i < n; i++) {
      if (strings.isNull(i)) {
        // Null as allocated.
        continue;
      }
      Integer code = codes.get(new Bytes(strings.get(i)));
      if (code == null) {
        throw new InputException(
            input,
            "categorical column '"
                + field.getName()
                + "' holds a value that the first pass over the input did not see: the input"
                + " changed during the conversion");
      }
      out.setWithPossibleTruncate(i, code);
    }
  }

  /**
   * As {@link #encode}, for a batch the caller hands over: the result holds its vectors (the
   * strings replaced are freed) and is the caller's to close.
   */
  VectorSchemaRoot encodeOwned(VectorSchemaRoot batch, BufferAllocator allocator, String input)
      throws InputException {
    if (isEmpty()) {
      return batch;
    }
    Encoded e;
    try {
      e = encode(batch, allocator, input);
    } catch (InputException | RuntimeException ex) {
      batch.close();
      throw ex;
    }
    for (int c : columns) {
      batch.getVector(c).close();
    }
    return e.root();
  }

  @Override
  public void close() {
    dictionaries.values().forEach(d -> d.getVector().close());
  }
}
