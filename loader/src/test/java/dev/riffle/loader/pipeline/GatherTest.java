package dev.riffle.loader.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.riffle.format.read.RowCopy;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/**
 * The in-memory shuffle against a row-by-row reference copy, for every path of {@link Gather}:
 * fixed-width values, lists of non-null fixed-width items (bare buffers), lists with null items,
 * lists of booleans (bits, the general path), fixed-size lists and strings, with null rows.
 */
class GatherTest {
  private static final long SEED = 20261202L;

  private static Field list(String name, ArrowType item, boolean itemsNullable) {
    return new Field(
        name,
        FieldType.nullable(ArrowType.List.INSTANCE),
        List.of(new Field("item", new FieldType(itemsNullable, item, null), null)));
  }

  private static final List<Field> FIELDS =
      List.of(
          Field.nullable("id", new ArrowType.Int(32, true)),
          list("values", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false),
          list("maybe", new ArrowType.Int(32, true), true),
          list("flags", ArrowType.Bool.INSTANCE, false),
          new Field(
              "emb",
              FieldType.notNullable(new ArrowType.FixedSizeList(3)),
              List.of(
                  Field.notNullable(
                      "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))),
          Field.nullable("name", ArrowType.Utf8.INSTANCE));

  /** A source batch of {@code rows} random rows (null rows, empty lists, null items). */
  private static VectorSchemaRoot source(BufferAllocator a, int rows, SplittableRandom rnd) {
    VectorSchemaRoot root =
        VectorSchemaRoot.create(new org.apache.arrow.vector.types.pojo.Schema(FIELDS), a);
    root.allocateNew();
    IntVector id = (IntVector) root.getVector("id");
    ListVector values = (ListVector) root.getVector("values");
    ListVector maybe = (ListVector) root.getVector("maybe");
    ListVector flags = (ListVector) root.getVector("flags");
    FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
    VarCharVector name = (VarCharVector) root.getVector("name");
    for (int r = 0; r < rows; r++) {
      boolean nullRow = rnd.nextInt(5) == 0;
      if (nullRow) {
        id.setNull(r);
      } else {
        id.setSafe(r, rnd.nextInt());
      }
      int n = rnd.nextInt(6);
      if (nullRow) {
        values.setNull(r);
        maybe.setNull(r);
        flags.setNull(r);
        name.setNull(r);
      } else {
        int s = values.startNewValue(r);
        for (int i = 0; i < n; i++) {
          ((Float4Vector) values.getDataVector()).setSafe(s + i, rnd.nextFloat());
        }
        values.endValue(r, n);
        s = maybe.startNewValue(r);
        for (int i = 0; i < n; i++) {
          if (rnd.nextBoolean()) {
            ((IntVector) maybe.getDataVector()).setSafe(s + i, rnd.nextInt(100));
          } else {
            ((IntVector) maybe.getDataVector()).setNull(s + i);
          }
        }
        maybe.endValue(r, n);
        s = flags.startNewValue(r);
        for (int i = 0; i < n; i++) {
          ((BitVector) flags.getDataVector()).setSafe(s + i, rnd.nextBoolean() ? 1 : 0);
        }
        flags.endValue(r, n);
        name.setSafe(
            r, ("row" + rnd.nextInt(1000)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      emb.setNotNull(r);
      for (int i = 0; i < 3; i++) {
        ((Float4Vector) emb.getDataVector()).setSafe(3 * r + i, rnd.nextFloat());
      }
    }
    root.setRowCount(rows);
    return root;
  }

  @Test
  void gatheredRowsEqualARowByRowCopyForEveryColumnKind() {
    System.out.println("GatherTest seed " + SEED + " (reproduce: set SEED)");
    SplittableRandom rnd = new SplittableRandom(SEED);
    try (BufferAllocator a = new RootAllocator()) {
      List<VectorSchemaRoot> parts = new ArrayList<>();
      try {
        for (int p = 0; p < 3; p++) {
          parts.add(source(a, 20 + p, rnd));
        }
        int count = 40;
        int from = 5;
        int[] part = new int[from + count];
        int[] row = new int[from + count];
        for (int k = 0; k < part.length; k++) {
          part[k] = rnd.nextInt(parts.size());
          row[k] = rnd.nextInt(parts.get(part[k]).getRowCount());
        }
        try (VectorSchemaRoot got = Gather.gather(parts, part, row, from, count, a);
            VectorSchemaRoot want = VectorSchemaRoot.create(parts.get(0).getSchema(), a)) {
          want.allocateNew();
          for (int c = 0; c < FIELDS.size(); c++) {
            FieldVector target = want.getVector(c);
            for (int k = 0; k < count; k++) {
              RowCopy.copy(parts.get(part[from + k]).getVector(c), row[from + k], target, k);
            }
          }
          want.setRowCount(count);
          assertEquals(count, got.getRowCount());
          for (int c = 0; c < FIELDS.size(); c++) {
            FieldVector g = got.getVector(c);
            FieldVector w = want.getVector(c);
            for (int k = 0; k < count; k++) {
              assertEquals(
                  String.valueOf(w.getObject(k)),
                  String.valueOf(g.getObject(k)),
                  FIELDS.get(c).getName() + " row " + k);
            }
          }
          for (int c = 0; c < FIELDS.size(); c++) {
            assertTrue(
                VectorEqualsVisitor.vectorEquals(got.getVector(c), want.getVector(c)),
                FIELDS.get(c).getName() + " differs");
          }
        }
      } finally {
        parts.forEach(VectorSchemaRoot::close);
      }
    }
  }
}
