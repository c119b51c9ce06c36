package dev.riffle.format.testing;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;

import dev.riffle.format.testing.AdversarialFloats.Regime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Rows of float lists for {@code FloatListsBitsTest}: every list kind the writer stores (list,
 * large list, fixed-size list; items nullable or not; lists nullable or not) filled in runs of rows
 * that share a shape (null, empty, one item, a few, hundreds, 5,000), a value regime ({@link
 * AdversarialFloats}) and null rates. Each column also gets the runs that make the writer use each
 * float encoding (packed decimal items at two scales, LISTS and RECORDS sectors side by side,
 * compressed sectors, packed records of forms INTEGERS and DICTIONARY), so that a test can check
 * that it still covers them; the rest of the rows are random runs.
 */
public final class FloatListsData {
  private FloatListsData() {}

  private static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  private static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  /** Items of each fixed-size list of fx64: 1,280-byte records, beyond sectors (ZIP_FIXED). */
  public static final int FX64_SIZE = 160;

  public static final Schema SCHEMA =
      new Schema(
          List.of(
              f("f32", ArrowType.List.INSTANCE, notNull("item", F32)),
              f("f32n", ArrowType.List.INSTANCE, f("item", F32)),
              notNull("f64", ArrowType.List.INSTANCE, notNull("item", F64)),
              f("f64n", ArrowType.LargeList.INSTANCE, f("item", F64)),
              f("f32large", ArrowType.LargeList.INSTANCE, notNull("item", F32)),
              f("fx32", new ArrowType.FixedSizeList(4), f("item", F32)),
              f("fx64", new ArrowType.FixedSizeList(FX64_SIZE), notNull("item", F64)),
              notNull("f32s", F32),
              f("f64s", F64),
              f(
                  "nested",
                  ArrowType.List.INSTANCE,
                  notNull("item", ArrowType.List.INSTANCE, notNull("item", F32))),
              f(
                  "st",
                  ArrowType.Struct.INSTANCE,
                  f("x", F64),
                  f("v", ArrowType.LargeList.INSTANCE, f("item", F64)))));

  /** How many items the lists of a run hold. */
  enum Shape {
    /** 0 to 8, mostly 0–2. */
    SHORT,
    /** Always 1. */
    ONE,
    /** 3 to 8 float64 or 6 to 16 float32: records of about 45 bytes either way. */
    FEW,
    /** 9 to 120. */
    MEDIUM,
    /** 250 to 400, now and then 5,000: records beyond sectors. */
    LONG,
    /** 5,000. */
    HUGE
  }

  /** Rows that share a shape, a value regime and null rates; one of them may hold an odd value. */
  record Run(
      int rows,
      Shape shape,
      Regime regime,
      int scale,
      int digits,
      double nullLists,
      double nullItems,
      boolean odd) {}

  /** A source of {@code rows} rows (at least 3,400, which the forced runs take). */
  public static VectorSchemaRoot generate(int rows, SplittableRandom r, BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    for (FieldVector v : root.getFieldVectors()) {
      fill(v, rows, r.split());
    }
    root.setRowCount(rows);
    return root;
  }

  /**
   * The runs that make the writer use each encoding: two pages' worth of clean decimals at each of
   * two scales (packed items), decimals with a few null items (RECORDS beside LISTS sectors), a run
   * with one odd value, short lists of a few special values (compressed sectors), long lists of
   * counts and of a few special values (packed records, forms INTEGERS and DICTIONARY), a few
   * 5,000-item lists.
   */
  private static List<Run> forcedRuns(SplittableRandom r, boolean single) {
    int s1 = 1 + r.nextInt(4);
    int s2 = (s1 + 1 + r.nextInt(5)) % 7;
    int digits = 1 + r.nextInt(single ? 5 : 12);
    List<Run> runs = new ArrayList<>();
    runs.add(new Run(900, Shape.FEW, Regime.DECIMAL, s1, digits, 0.05, 0, false));
    runs.add(new Run(900, Shape.FEW, Regime.DECIMAL, s2, digits, 0.05, 0, false));
    runs.add(new Run(400, Shape.FEW, Regime.DECIMAL, s1, digits, 0.05, 0.03, false));
    runs.add(new Run(300, Shape.SHORT, Regime.DECIMAL, s2, digits, 0, 0, true));
    runs.add(new Run(800, Shape.SHORT, Regime.FEW_SPECIAL, 0, 0, 0.1, 0, false));
    runs.add(new Run(40, Shape.LONG, Regime.COUNTS, 0, 0, 0, 0, false));
    runs.add(new Run(40, Shape.LONG, Regime.FEW_SPECIAL, 0, 0, 0, 0, false));
    runs.add(new Run(3, Shape.HUGE, Regime.DECIMAL, s1, digits, 0, 0, true));
    return runs;
  }

  private static Run randomRun(SplittableRandom r, boolean single) {
    Shape[] shapes = Shape.values();
    Shape shape = shapes[r.nextInt(shapes.length)];
    Regime[] regimes = Regime.values();
    Regime regime = regimes[r.nextInt(regimes.length)];
    int rows =
        shape == Shape.HUGE ? 1 : shape == Shape.LONG ? 1 + r.nextInt(30) : 1 + r.nextInt(300);
    double[] nulls = {0, 0, 0.01, 0.1, 0.5};
    return new Run(
        rows,
        shape,
        regime,
        r.nextInt(13),
        1 + r.nextInt(single ? 9 : 17),
        nulls[r.nextInt(nulls.length)],
        nulls[r.nextInt(nulls.length)] / 4,
        r.nextInt(3) == 0);
  }

  private static int count(Shape shape, boolean single, SplittableRandom r) {
    switch (shape) {
      case SHORT:
        int k = r.nextInt(10);
        return k < 2 ? 0 : k < 5 ? 1 : k < 7 ? 2 : r.nextInt(3, 9);
      case ONE:
        return 1;
      case FEW:
        return r.nextInt(3, 9) * (single ? 2 : 1);
      case MEDIUM:
        return r.nextInt(9, 121);
      case LONG:
        return r.nextInt(40) == 0 ? 5000 : r.nextInt(250, 401);
      default:
        return 5000;
    }
  }

  /** Fills the {@code rows} rows of top-level vector {@code v} run by run. */
  private static void fill(FieldVector v, int rows, SplittableRandom r) {
    boolean single = firstFloatIsSingle(v.getField());
    List<Run> runs = forcedRuns(r, single);
    int forced = 0;
    for (Run run : runs) {
      forced += run.rows();
    }
    // Random runs fill the rest exactly, so that no forced run is cut short.
    for (int total = forced; total < rows; ) {
      Run run = randomRun(r, single);
      int n = Math.min(run.rows(), rows - total);
      runs.add(
          new Run(
              n,
              run.shape(),
              run.regime(),
              run.scale(),
              run.digits(),
              run.nullLists(),
              run.nullItems(),
              run.odd()));
      total += n;
    }
    Collections.shuffle(runs, new Random(r.nextLong()));
    Values values = new Values(r, single);
    int row = 0;
    for (Run run : runs) {
      values.start(run);
      for (int k = 0; k < run.rows(); k++, row++) {
        put(v, row, values, true);
      }
    }
    v.setValueCount(rows);
  }

  /** The values of the current run of one column, and whether its odd value is still to come. */
  private static final class Values {
    final SplittableRandom r;
    final boolean single;
    final AdversarialFloats floats;
    Run run;
    boolean oddPending;

    Values(SplittableRandom r, boolean single) {
      this.r = r;
      this.single = single;
      this.floats = new AdversarialFloats(r, single);
    }

    void start(Run run) {
      this.run = run;
      if (run.regime() == Regime.DECIMAL && run.digits() > 0) {
        floats.startDecimals(run.scale(), run.digits());
      } else {
        floats.start(run.regime(), run.scale());
      }
      oddPending = run.odd();
    }

    long next() {
      if (oddPending && r.nextInt(8) == 0) {
        oddPending = false;
        return floats.odd();
      }
      return floats.next();
    }
  }

  private static boolean firstFloatIsSingle(Field field) {
    if (field.getType() instanceof ArrowType.FloatingPoint fp) {
      return fp.getPrecision() == FloatingPointPrecision.SINGLE;
    }
    return firstFloatIsSingle(field.getChildren().get(0));
  }

  /**
   * Writes slot {@code i} of {@code v} (written in order): a float, or a list, fixed-size list or
   * struct of them, null at the run's rate (lists and structs at its list rate, floats at its item
   * rate) where the field is nullable.
   */
  private static void put(FieldVector v, int i, Values values, boolean top) {
    Run run = values.run;
    SplittableRandom r = values.r;
    boolean isFloat = v.getField().getType() instanceof ArrowType.FloatingPoint;
    double nullRate = isFloat && !top ? run.nullItems() : run.nullLists();
    if (v.getField().isNullable() && r.nextDouble() < nullRate) {
      putNull(v, i);
      return;
    }
    if (isFloat) {
      FloatBits.set(v, i, values.next(), false);
    } else if (v instanceof ListVector || v instanceof LargeListVector) {
      FieldVector items = FloatBits.items(v);
      // Lists of lists hold a few lists each, so that their items stay within bounds.
      int c =
          items.getField().getType() instanceof ArrowType.FloatingPoint
              ? count(run.shape(), values.single, r)
              : r.nextInt(4);
      long first =
          v instanceof ListVector l ? l.startNewValue(i) : ((LargeListVector) v).startNewValue(i);
      for (int t = 0; t < c; t++) {
        put(items, Math.toIntExact(first + t), values, false);
      }
      if (v instanceof ListVector l) {
        l.endValue(i, c);
      } else {
        ((LargeListVector) v).endValue(i, c);
      }
    } else if (v instanceof FixedSizeListVector f) {
      f.setNotNull(i);
      for (int t = 0; t < f.getListSize(); t++) {
        put(f.getDataVector(), i * f.getListSize() + t, values, false);
      }
    } else {
      StructVector s = (StructVector) v;
      s.setIndexDefined(i);
      for (FieldVector child : s.getChildrenFromFields()) {
        put(child, i, values, false);
      }
    }
  }

  /**
   * A null slot; a null fixed-size list or struct still owns its children's slots (the writer
   * ignores them), which are made null too so that children stay written in order.
   */
  private static void putNull(FieldVector v, int i) {
    if (v.getField().getType() instanceof ArrowType.FloatingPoint) {
      FloatBits.set(v, i, 0, true);
    } else if (v instanceof ListVector l) {
      l.setNull(i);
    } else if (v instanceof LargeListVector l) {
      l.setNull(i);
    } else if (v instanceof FixedSizeListVector f) {
      f.setNull(i);
      for (int t = 0; t < f.getListSize(); t++) {
        putNull(f.getDataVector(), i * f.getListSize() + t);
      }
    } else {
      StructVector s = (StructVector) v;
      s.setNull(i);
      for (FieldVector child : s.getChildrenFromFields()) {
        putNull(child, i);
      }
    }
  }
}
