package dev.riffle.format.testing;

import dev.riffle.format.write.FileWriter;
import dev.riffle.format.write.WriterOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Seeded random Arrow data for round-trip tests. Each top-level field draws from its own stream,
 * row by row, so the first n rows are the same whatever the total: page-boundary sizes found on a
 * large file reproduce on a small one.
 *
 * <p>Field-name prefixes steer the values: {@code small_} integers in a narrow range (so frame of
 * reference packing applies), {@code long_} strings of 1.5–6 KiB (zipped pages), {@code zstd_}
 * compressible binaries of 3–6 KiB, {@code text_} short strings over 16 letters and {@code rep_}
 * fixed-width values drawn from four (both compress well, so they go to compressed sectors), {@code
 * ids_} lists of 150–850 items, whose integer items ascend from a random start by gaps of 1–24
 * (like the sorted gene ids of a sparse row: wide records of packable lists).
 */
public final class RandomData {
  private RandomData() {}

  public static VectorSchemaRoot generate(
      Schema schema, int rows, long seed, double nullRate, BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    List<Field> fields = schema.getFields();
    for (int f = 0; f < fields.size(); f++) {
      SplittableRandom r = new SplittableRandom(seed * 1_000_003L + f);
      FieldVector v = root.getVector(f);
      String style = fields.get(f).getName();
      for (int i = 0; i < rows; i++) {
        fill(v, i, r, nullRate, style);
      }
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
    return root;
  }

  /** The bytes of one file of {@link #generate generated} rows written with {@code options}. */
  public static byte[] file(
      Schema schema,
      int rows,
      long seed,
      double nullRate,
      WriterOptions options,
      BufferAllocator allocator)
      throws IOException {
    try (VectorSchemaRoot root = generate(schema, rows, seed, nullRate, allocator)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (FileWriter w = FileWriter.create(out, schema, null, options)) {
        w.write(root);
        w.finish();
      }
      return out.toByteArray();
    }
  }

  public static void fill(FieldVector v, int i, SplittableRandom r, double nullRate, String style) {
    if (v.getField().isNullable() && nullRate > 0 && r.nextDouble() < nullRate) {
      v.setNull(i);
      return;
    }
    if (v.getField().getDictionary() != null) {
      // Indices into a dictionary of DICTIONARY_SIZE entries.
      setInt((BaseFixedWidthVector) v, i, r.nextInt(DICTIONARY_SIZE));
      return;
    }
    if (v instanceof BitVector) {
      ((BitVector) v).setSafe(i, r.nextInt(2));
    } else if (v instanceof BaseFixedWidthVector) {
      BaseFixedWidthVector f = (BaseFixedWidthVector) v;
      if (style.startsWith("small_") && v instanceof BaseIntVector) {
        setInt(f, i, 1000 + r.nextInt(100));
        return;
      }
      if (style.contains("_cnt") && (v instanceof Float4Vector || v instanceof Float8Vector)) {
        // "_cnt" fields: counts as single-cell matrices hold them, integer-valued floats, mostly
        // 1-3.
        double count = r.nextInt(10) < 7 ? 1 + r.nextInt(3) : Math.floor(Math.exp(r.nextDouble(7)));
        if (v instanceof Float4Vector) {
          ((Float4Vector) v).setSafe(i, (float) count);
        } else {
          ((Float8Vector) v).setSafe(i, count);
        }
        return;
      }
      if (style.contains("_nrm") && (v instanceof Float4Vector || v instanceof Float8Vector)) {
        // "_nrm" fields: normalised counts, log1p of a count times a scale, so a row holds as many
        // distinct values as distinct counts (packed float lists in form DICTIONARY).
        double count = r.nextInt(10) < 7 ? 1 + r.nextInt(3) : Math.floor(Math.exp(r.nextDouble(7)));
        double x = Math.log1p(count * 1.7);
        if (v instanceof Float4Vector) {
          ((Float4Vector) v).setSafe(i, (float) x);
        } else {
          ((Float8Vector) v).setSafe(i, x);
        }
        return;
      }
      if (style.contains("_dec") && (v instanceof Float4Vector || v instanceof Float8Vector)) {
        // "_dec" fields: floats written from three-decimal text in [-1, 1] (float32) or from
        // two-decimal text (float64), as Spark casts k / 1000.0 (packed decimal items, 1.4).
        int k = r.nextInt(2001) - 1000;
        if (v instanceof Float4Vector) {
          ((Float4Vector) v).setSafe(i, (float) (k / 1000.0));
        } else {
          ((Float8Vector) v).setSafe(i, k / 100.0);
        }
        return;
      }
      if (style.startsWith("unit_") && v instanceof Float4Vector) {
        // Floats in [-1, 1), like embeddings: the byte planes of sign and exponent compress.
        ((Float4Vector) v).setSafe(i, (float) (r.nextDouble() * 2 - 1));
        return;
      }
      if (style.startsWith("unit_") && v instanceof Float8Vector) {
        ((Float8Vector) v).setSafe(i, r.nextDouble() * 2 - 1);
        return;
      }
      int w = f.getTypeWidth();
      while (f.getValueCapacity() <= i) {
        f.reAlloc();
      }
      byte[] b = new byte[w];
      if (style.startsWith("rep_")) {
        // One of four fixed patterns, the same for every row of the field.
        new SplittableRandom(style.hashCode() * 31L + r.nextInt(4)).nextBytes(b);
      } else {
        r.nextBytes(b);
      }
      f.getDataBuffer().setBytes((long) i * w, b);
      BitVectorHelper.setBit(f.getValidityBuffer(), i);
    } else if (v instanceof VariableWidthFieldVector) {
      byte[] b;
      if (style.startsWith("long_")) {
        b = ascii(r, 1500 + r.nextInt(4500));
      } else if (style.startsWith("zstd_")) {
        b = new byte[3000 + r.nextInt(3000)];
        byte[] word = ascii(r, 7);
        for (int k = 0; k < b.length; k++) {
          b[k] = word[k % word.length];
        }
      } else if (style.startsWith("text_")) {
        b = new byte[8 + r.nextInt(17)];
        for (int k = 0; k < b.length; k++) {
          b[k] = (byte) ('a' + r.nextInt(16));
        }
      } else {
        b = ascii(r, r.nextInt(25));
      }
      ((VariableWidthFieldVector) v).setSafe(i, b);
    } else if (v instanceof FixedSizeListVector) {
      FixedSizeListVector l = (FixedSizeListVector) v;
      int start = l.startNewValue(i);
      for (int k = 0; k < l.getListSize(); k++) {
        fill(l.getDataVector(), start + k, r, nullRate, style);
      }
    } else if (v instanceof LargeListVector) {
      LargeListVector l = (LargeListVector) v;
      int n = listLength(r, style);
      long start = l.startNewValue(i);
      fillItems(l.getDataVector(), (int) start, n, r, nullRate, style);
      l.endValue(i, n);
    } else if (v instanceof ListVector) {
      ListVector l = (ListVector) v;
      int n = listLength(r, style);
      int start = l.startNewValue(i);
      fillItems(l.getDataVector(), start, n, r, nullRate, style);
      l.endValue(i, n);
    } else if (v instanceof StructVector) {
      StructVector s = (StructVector) v;
      for (FieldVector c : s.getChildrenFromFields()) {
        fill(c, i, r, nullRate, style);
      }
      s.setIndexDefined(i);
    } else {
      throw new IllegalArgumentException("no generator for " + v.getField());
    }
  }

  private static int listLength(SplittableRandom r, String style) {
    return style.startsWith("ids_") ? 150 + r.nextInt(701) : r.nextInt(6);
  }

  private static void fillItems(
      FieldVector items, int start, int n, SplittableRandom r, double nullRate, String style) {
    if (style.startsWith("ids_")
        && items instanceof BaseIntVector
        && !items.getField().isNullable()) {
      long id = r.nextInt(1000);
      for (int k = 0; k < n; k++) {
        setInt((BaseFixedWidthVector) items, start + k, id);
        id += 1 + r.nextInt(24);
      }
      return;
    }
    // "_fewnull": items are null a hundredth as often as rows, as in Spark arrays, whose items
    // are declared nullable and almost never are.
    double itemNullRate = style.contains("_fewnull") ? nullRate / 100 : nullRate;
    for (int k = 0; k < n; k++) {
      fill(items, start + k, r, itemNullRate, style);
    }
  }

  public static final int DICTIONARY_SIZE = 37;

  private static void setInt(BaseFixedWidthVector f, int i, long value) {
    while (f.getValueCapacity() <= i) {
      f.reAlloc();
    }
    ((BaseIntVector) f).setWithPossibleTruncate(i, value);
  }

  public static byte[] ascii(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    for (int k = 0; k < n; k++) {
      b[k] = (byte) ('a' + r.nextInt(26));
    }
    return b;
  }

  /** A dictionary vector of DICTIONARY_SIZE distinct strings, in an order given by the seed. */
  public static org.apache.arrow.vector.VarCharVector dictionary(
      String name, long seed, BufferAllocator allocator) {
    List<String> words = new ArrayList<>();
    for (int k = 0; k < DICTIONARY_SIZE; k++) {
      words.add("category-" + k);
    }
    java.util.Collections.shuffle(words, new java.util.Random(seed));
    org.apache.arrow.vector.VarCharVector d =
        new org.apache.arrow.vector.VarCharVector(name, allocator);
    d.allocateNew();
    for (int k = 0; k < words.size(); k++) {
      d.setSafe(k, words.get(k).getBytes(StandardCharsets.UTF_8));
    }
    d.setValueCount(words.size());
    return d;
  }
}
